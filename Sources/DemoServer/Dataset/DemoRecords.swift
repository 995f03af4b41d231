import AppStoreServerAPI
import Foundation

/// One customer of the demo: the transactions reachable from any of their IDs.
public struct DemoCustomer: Sendable {
    public let number: Int
    /// What the customer shows, such as "Active monthly subscription".
    public let scenario: String
    public let appTransactionId: String?
    public var appAccountToken: String?
    public let storefront: String
}

/// A transaction as stored; it is signed when served, with `signedDate` the time of the answer.
struct DemoTransaction: Sendable {
    var payload: TransactionPayload
    let orderId: String
    let customer: Int
    /// The record's last change, which history sorts by (purchase, upgrade or revocation).
    var modified: Date
    /// A consumable the app has reported as finished.
    var finished: Bool
}

/// The state of one subscription chain (one original transaction ID).
struct DemoSubscription: Sendable {
    let originalTransactionId: String
    let customer: Int
    let groupId: String
    var status: SubscriptionStatus
    var renewal: RenewalInfoPayload
    var latestTransactionId: String
    /// Extensions applied: when, by how many days, under which request identifier, with their answer.
    var extensions: [DemoExtension]
    /// In a free-offer period, which cannot be extended.
    var inFreeOffer: Bool
}

struct DemoExtension: Sendable {
    let date: Date
    let days: Int
    let requestIdentifier: String
    let response: ExtendRenewalDateResponse
}

/// A notification as Apple recorded it: the payload as signed when sent, and every send attempt.
struct DemoNotification: Sendable {
    let uuid: String
    let type: NotificationType
    let subtype: NotificationSubtype?
    let signedDate: Date
    let signedPayload: String
    var attempts: [SendAttemptItem]
    /// Customer it concerns (nil for TEST and summaries).
    let customer: Int?

    var delivered: Bool { attempts.contains { $0.sendAttemptResult == .success } }
}

struct DemoMassExtension: Sendable {
    let request: MassExtendRenewalDateRequest
    let requested: Date
    var complete: Bool
    var completeDate: Date?
    var succeeded: Int64
    var failed: Int64
}

/// Everything one environment (Production or Sandbox) holds.
struct DemoEnvironmentData: Sendable {
    let environment: AppStoreEnvironment
    var customers: [Int: DemoCustomer] = [:]
    var transactions: [String: DemoTransaction] = [:]
    /// Transaction IDs of each customer, in purchase order.
    var customerTransactions: [Int: [String]] = [:]
    var orders: [String: [String]] = [:]
    var subscriptions: [String: DemoSubscription] = [:]
    var appTransactions: [String: AppTransactionPayload] = [:]
    /// Any ID of a customer (transaction, original transaction, app transaction) to the customer.
    var customerByID: [String: Int] = [:]
    var notifications: [DemoNotification] = []
    var testNotifications: [String: DemoNotification] = [:]
    var massExtensions: [String: DemoMassExtension] = [:]
    /// Transactions Apple asked the app about (CONSUMPTION_REQUEST in the history), and when last.
    var refundRequests: [String: Date] = [:]
    /// Consumption information accepted and not decided on yet, by transaction.
    var consumptionAnswers: [String: DemoConsumptionAnswer] = [:]
    /// Transactions Apple decided a refund request on (REFUND or REFUND_DECLINED), and when.
    var refundDecisions: [String: Date] = [:]
    /// Refund requests the data shows answered already.
    var seededAnswers: [DemoSeededAnswer] = []
    /// Images, messages, default messages, the realtime URL and performance tests.
    var retention = DemoRetention()
    /// Every Advanced Commerce requestReferenceId accepted, lower-cased (Apple refuses a repeat: 4000097).
    var advancedCommerceRequests: Set<String> = []

    init(environment: AppStoreEnvironment) {
        self.environment = environment
    }
}
