import AppStoreServerAPI
import Foundation

/// A notification history request as the pane builds it (dates are made absolute by the runner).
public struct NotificationRequestSpec: Sendable, Equatable {
    public var since: TimeInterval
    public var type: NotificationType?
    public var subtype: NotificationSubtype?
    public var transactionId: String?
    public var onlyFailures: Bool

    /// How far back one customer's notifications are read: the last 30 days, an hour short. A
    /// choice (a customer's notifications are few), not Apple's Sandbox window, though no longer than
    /// it: the read is accepted in either environment and never needs clamping.
    public static let customerSpan: TimeInterval = 30 * 86_400 - 3600

    public init(since: TimeInterval, type: NotificationType?, subtype: NotificationSubtype?, transactionId: String?, onlyFailures: Bool) {
        self.since = since
        self.type = type
        self.subtype = subtype
        self.transactionId = transactionId
        self.onlyFailures = onlyFailures
    }
}
