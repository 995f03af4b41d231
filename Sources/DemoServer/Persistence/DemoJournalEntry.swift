import AppStoreServerAPI
import Foundation

/// One write the demo accepted, as a line of its journal: what changed, when, in which
/// environment, with the values that were made at the time (tokens, UUIDs, signed payloads), so
/// replaying the lines in order rebuilds the same state.
struct DemoJournalEntry: Codable, Sendable, Equatable {
    enum Kind: String, Codable, Sendable {
        case renewalExtension = "extension"
        case massExtension = "mass-extension"
        case massExtensionCompleted = "mass-extension-completed"
        case notification
        case testNotification = "test-notification"
        case sendAttempt = "send-attempt"
        case appAccountToken = "app-account-token"
        case finishTransaction = "finish-transaction"
        case consumption
        case refundDecision = "refund-decision"
        case retention
        case advancedCommerce = "advanced-commerce"
    }

    var kind: Kind
    var environment: AppStoreEnvironment
    var at: Date
    /// What the write is about: an (original) transaction ID, a test token or a notification UUID.
    var id: String?
    var requestIdentifier: String?
    var days: Int?
    var appAccountToken: String?
    var massExtension: MassExtendRenewalDateRequest?
    var notification: JournaledNotification?
    var attempt: SendAttemptItem?
    /// The attempt was of a test notification (`id` is its token).
    var isTest: Bool?
    /// A body kept as it was sent (consumption information).
    var body: String?
    /// Apple's decision on a refund request (`id` is the transaction).
    var refundOutcome: DemoRefundOutcome?
    /// A Retention Messaging write.
    var retention: DemoRetentionChange?
    /// The Advanced Commerce action (`id` is the transaction, `body` the request as accepted).
    var action: String?

    init(_ kind: Kind, _ environment: AppStoreEnvironment, at: Date, id: String? = nil) {
        self.kind = kind
        self.environment = environment
        self.at = at
        self.id = id
    }

    /// Why the server would never have written this line (days out of Apple's 1 to 90, a time
    /// outside any dataset); nil when it can be replayed.
    var problem: String? {
        guard at.timeIntervalSince1970.isFinite, abs(at.timeIntervalSince1970) < 4_102_444_800 else { return "its time is out of range" }
        if let days, !(1...90).contains(days) { return "an extension of \(days) days (Apple allows 1 to 90)" }
        if let request = massExtension, let days = request.extendByDays, !(1...90).contains(Int(days)) {
            return "a mass extension of \(days) days (Apple allows 1 to 90)"
        }
        return nil
    }

    /// The words `demo --reset` counts it in.
    var noun: String {
        switch kind {
        case .renewalExtension: return "extension"
        case .massExtension: return "mass extension"
        case .massExtensionCompleted: return "mass extension completed"
        case .notification: return "notification"
        case .testNotification: return "test notification"
        case .sendAttempt: return "delivery attempt"
        case .appAccountToken: return "app account token"
        case .finishTransaction: return "finished transaction"
        case .consumption: return "consumption information"
        case .refundDecision: return "refund decision"
        case .retention: return "retention messaging change"
        case .advancedCommerce: return "Advanced Commerce action"
        }
    }
}

/// A notification as the demo signed and recorded it.
struct JournaledNotification: Codable, Sendable, Equatable {
    var uuid: String
    var type: NotificationType
    var subtype: NotificationSubtype?
    var signedDate: Date
    var signedPayload: String
    var customer: Int?

    init(_ note: DemoNotification) {
        uuid = note.uuid
        type = note.type
        subtype = note.subtype
        signedDate = note.signedDate
        signedPayload = note.signedPayload
        customer = note.customer
    }

    /// As stored in the dataset; attempts are journaled on their own as they happen.
    var note: DemoNotification {
        DemoNotification(uuid: uuid, type: type, subtype: subtype, signedDate: signedDate, signedPayload: signedPayload, attempts: [], customer: customer)
    }
}
