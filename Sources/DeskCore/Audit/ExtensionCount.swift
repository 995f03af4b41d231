import Foundation

/// Earlier extensions of one subscription: Apple offers no count, so they are found in Apple's
/// notification history (as far back as it keeps) and in this ledger (for what is older).
public struct ExtensionCount: Sendable, Equatable {
    /// Dates of RENEWAL_EXTENDED notifications for this subscription in Apple's history.
    public var notified: [Date]
    /// Applied extensions in the ledger older than that history, within the last 365 days.
    public var fromLedger: [Date]
    /// How far back Apple's history reaches in this environment (180 days in Production, 30 in Sandbox).
    public var windowDays: Int
    /// This subscription's extensions in the audit ledger in the last 365 days, by any agent.
    public var recorded: [RecordedExtension]
    /// When the ledger was read: a write to the subscription recorded after it makes the agent look again.
    public var readAt: Date?
    /// Extensions the ledger has applied inside Apple's window beyond those its history lists yet.
    public var notYetNotified: [Date] = []

    public init(notified: [Date], fromLedger: [Date], windowDays: Int, recorded: [RecordedExtension] = [], readAt: Date? = nil) {
        self.notified = notified
        self.fromLedger = fromLedger
        self.windowDays = windowDays
        self.recorded = recorded
        self.readAt = readAt
    }

    public var total: Int { notified.count + notYetNotified.count + fromLedger.count }

    /// "2 found in the last 180 days; older ones unknown".
    public var summary: String {
        var text = "\(notified.count) found in the last \(windowDays) days"
        if !notYetNotified.isEmpty { text += ", \(notYetNotified.count) more applied in the audit ledger" }
        if !fromLedger.isEmpty { text += ", \(fromLedger.count) older in the audit ledger" }
        return text + (windowDays < 365 ? "; older ones by other tools unknown" : "")
    }
}
