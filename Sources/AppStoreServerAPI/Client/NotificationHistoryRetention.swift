import Foundation

extension AppStoreEnvironment {
    /// How many days back Get Notification History reaches: Apple keeps 180 days of notifications
    /// in Production and 30 in Sandbox (an earlier start date is refused, 4000012). Other
    /// environments have no history of Apple's; they are given the shorter window.
    public var notificationHistoryRetentionDays: Int { self == .production ? 180 : 30 }

    /// `notificationHistoryRetentionDays` in seconds.
    public var notificationHistoryRetention: TimeInterval { TimeInterval(notificationHistoryRetentionDays) * 86_400 }
}
