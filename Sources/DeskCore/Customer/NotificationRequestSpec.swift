import AppStoreServerAPI
import Foundation

/// A notification history request as the pane builds it (dates are made absolute by the runner).
public struct NotificationRequestSpec: Sendable, Equatable {
    public var since: TimeInterval
    public var type: NotificationType?
    public var subtype: NotificationSubtype?
    public var transactionId: String?
    public var onlyFailures: Bool

    public init(since: TimeInterval, type: NotificationType?, subtype: NotificationSubtype?, transactionId: String?, onlyFailures: Bool) {
        self.since = since
        self.type = type
        self.subtype = subtype
        self.transactionId = transactionId
        self.onlyFailures = onlyFailures
    }
}
