import DeskStore
import Foundation

/// How a customer looked up by the app's own ID was found: said in the summary, because the index
/// behind an app account token knows only what this team's iapdesk saw.
public struct AccountMatch: Sendable, Equatable {
    public var kind: AccountLink.Kind
    public var account: String
    /// What the store's index holds under it, the most recently seen first; empty when Apple
    /// resolved the ID itself (an app transaction ID).
    public var links: [AccountLink]

    public init(kind: AccountLink.Kind, account: String, links: [AccountLink]) {
        self.kind = kind
        self.account = account
        self.links = links
    }

    /// The summary's lines: where the mapping came from, how old it is, and what it cannot know
    /// (short enough for 80 columns).
    public func lines(now: Date) -> [String] {
        guard let shown = links.first else {
            return ["Found by \(kind.label) \(account)", "  Apple's ID of the customer's app download: all below is Apple's answer."]
        }
        var lines = [
            "Found by \(kind.label) \(account)",
            "  → \(shown.originalTransactionId) seen \(DisplayFormat.relative(shown.lastSeen, now: now)) \(shown.source.phrase)",
        ]
        var signed = "  Apple signed it \(DisplayFormat.relative(shown.signedDate, now: now))."
        let others = links.dropFirst().map(\.originalTransactionId)
        if !others.isEmpty {
            signed += " Also under it: \(others.prefix(3).joined(separator: ", "))\(others.count > 3 ? " +\(others.count - 3)" : "")"
        }
        lines.append(signed)
        lines.append("  The index knows only what was seen here (listen, lookups, iapdesk index).")
        return lines
    }
}
