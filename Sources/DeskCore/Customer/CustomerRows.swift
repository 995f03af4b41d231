import AppStoreServerAPI
import Foundation

public typealias VerifiedTransaction = VerifiedPayload<TransactionPayload>
public typealias VerifiedRenewal = VerifiedPayload<RenewalInfoPayload>

/// One subscription chain as Get All Subscription Statuses reports it.
public struct SubscriptionRow: Sendable {
    public var groupIdentifier: String
    public var originalTransactionId: String
    public var status: SubscriptionStatus?
    public var transaction: VerifiedTransaction?
    public var renewal: VerifiedRenewal?

    public init(groupIdentifier: String, originalTransactionId: String, status: SubscriptionStatus?, transaction: VerifiedTransaction?, renewal: VerifiedRenewal?) {
        self.groupIdentifier = groupIdentifier
        self.originalTransactionId = originalTransactionId
        self.status = status
        self.transaction = transaction
        self.renewal = renewal
    }
}

/// One notification from the history with its delivery attempts.
public struct NotificationRow: Sendable {
    public var decoded: DecodedNotification?
    public var signedPayload: String
    public var attempts: [SendAttemptItem]

    public init(decoded: DecodedNotification?, signedPayload: String, attempts: [SendAttemptItem]) {
        self.decoded = decoded
        self.signedPayload = signedPayload
        self.attempts = attempts
    }

    public var payload: NotificationPayload? { decoded?.notification.payload }
    public var delivered: Bool { attempts.contains { $0.sendAttemptResult == .success } }
}

/// The order lookup of the customer pane.
public struct OrderResult: Sendable {
    public var orderId: String
    public var status: OrderLookupStatus?
    public var transactions: [VerifiedTransaction]

    public init(orderId: String, status: OrderLookupStatus?, transactions: [VerifiedTransaction]) {
        self.orderId = orderId
        self.status = status
        self.transactions = transactions
    }
}
