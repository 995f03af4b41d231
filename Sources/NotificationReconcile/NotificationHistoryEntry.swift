import AppStoreServerAPI
import Foundation

/// One notification of Apple's Get Notification History, decoded: Apple's side of the join.
public struct NotificationHistoryEntry: Sendable, Equatable {
    /// Nil when the signed payload could not be decoded: such an entry cannot be joined.
    public var notificationUUID: String?
    public var notificationType: String?
    public var subtype: String?
    public var signedDate: Date?
    /// Every send attempt, oldest first, as Apple lists them.
    public var attempts: [SendAttemptItem]
    /// The payload as Apple signed it, which `recover` and `replay` re-post.
    public var signedPayload: String?
    /// The verification of the signed payload with the session's verifier (`.notChecked` without one).
    public var verification: VerificationStatus

    public init(
        notificationUUID: String?, notificationType: String? = nil, subtype: String? = nil, signedDate: Date?, attempts: [SendAttemptItem],
        signedPayload: String? = nil, verification: VerificationStatus = .verified
    ) {
        self.notificationUUID = notificationUUID
        self.notificationType = notificationType
        self.subtype = subtype
        self.signedDate = signedDate
        self.attempts = attempts
        self.signedPayload = signedPayload
        self.verification = verification
    }

    public var lastAttempt: SendAttemptItem? { attempts.last }

    /// Apple stops retrying once an attempt succeeds, so the last one says whether it was delivered.
    public var deliveredPerApple: Bool { attempts.last?.sendAttemptResult == .success }

    /// Any attempt that did not succeed (TIMED_OUT, TLS_ISSUE, ...).
    public var firstFailedAttempt: SendAttemptItem? { attempts.first { $0.sendAttemptResult != .success } }

    /// The body Apple POSTs: `{"signedPayload": "..."}`.
    public var webhookBody: Data? {
        guard let signedPayload else { return nil }
        return try? JSONSerialization.data(withJSONObject: ["signedPayload": signedPayload], options: [.sortedKeys, .withoutEscapingSlashes])
    }
}
