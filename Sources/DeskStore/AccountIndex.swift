import Foundation

/// The store's index from the app's own customer IDs to Apple's: an appAccountToken (the UUID an
/// app sets at purchase) or an app transaction ID, to the original transaction IDs seen under it.
/// Apple offers no such lookup, so the index knows only what this team's iapdesk saw: notifications
/// that `listen` received, customers looked up, histories read, and `iapdesk index` back-fills.
public protocol AccountIndex: Sendable {
    /// Adds the links, or moves an existing one's last sighting forward.
    func recordAccountLinks(_ links: [AccountLink]) async throws
    /// Every original transaction seen under `account`, the most recently seen first.
    func accountLinks(_ kind: AccountLink.Kind, _ account: String) async throws -> [AccountLink]
    /// How many distinct accounts of each kind the index holds.
    func accountIndexSize() async throws -> [AccountLink.Kind: Int]
}

/// One sighting of an app's customer ID beside an original transaction ID, in a verified payload.
public struct AccountLink: Sendable, Equatable, Hashable {
    public enum Kind: String, Sendable, CaseIterable, Hashable {
        case appAccountToken = "app-account-token"
        case appTransactionId = "app-transaction-id"

        /// As an agent reads it.
        public var label: String {
            switch self {
            case .appAccountToken: return "app account token"
            case .appTransactionId: return "app transaction ID"
            }
        }
    }

    /// Where the payload that carried the link was seen.
    public enum Source: String, Sendable, CaseIterable {
        /// A notification received by `iapdesk listen` (or the console's receiver).
        case listen
        /// A customer looked up in the console or on the command line.
        case lookup
        /// Apple's notification history, read by `iapdesk index`.
        case notificationHistory = "notification-history"
        /// Notifications already in the store, read by `iapdesk index`.
        case store

        /// Short enough for an 80-column summary line.
        public var phrase: String {
            switch self {
            case .listen: return "in a notification to listen"
            case .lookup: return "in a customer lookup"
            case .notificationHistory: return "in Apple's history (index)"
            case .store: return "in a stored notification (index)"
            }
        }
    }

    public var kind: Kind
    /// A lowercase UUID, or an app transaction ID's digits.
    public var account: String
    public var originalTransactionId: String
    /// "Production", "Sandbox", ...; empty when the payload did not say.
    public var environment: String
    /// Where it was seen last.
    public var source: Source
    public var firstSeen: Date
    public var lastSeen: Date
    /// Apple's signedDate of the newest payload that carried it: how current the link is.
    public var signedDate: Date

    public init(
        kind: Kind, account: String, originalTransactionId: String, environment: String?, source: Source, seen: Date, signedDate: Date?
    ) {
        self.kind = kind
        self.account = Self.normalized(account, kind)
        self.originalTransactionId = originalTransactionId
        self.environment = environment ?? ""
        self.source = source
        self.firstSeen = seen
        self.lastSeen = seen
        self.signedDate = signedDate ?? seen
    }

    /// UUIDs are compared in lowercase, as Apple writes them.
    public static func normalized(_ account: String, _ kind: Kind) -> String {
        kind == .appAccountToken ? account.lowercased() : account
    }

    /// The links one payload carries: its appAccountToken and appTransactionId, each beside its
    /// original transaction ID. An empty token (Apple sends "" for none) links nothing.
    public static func links(
        appAccountToken: String?, appTransactionId: String?, originalTransactionId: String?, environment: String?, source: Source,
        seen: Date, signedDate: Date?
    ) -> [AccountLink] {
        guard let original = originalTransactionId, !original.isEmpty else { return [] }
        var links: [AccountLink] = []
        if let token = appAccountToken, UUID(uuidString: token) != nil {
            links.append(AccountLink(
                kind: .appAccountToken, account: token, originalTransactionId: original, environment: environment, source: source, seen: seen,
                signedDate: signedDate))
        }
        if let app = appTransactionId, !app.isEmpty, app.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) {
            links.append(AccountLink(
                kind: .appTransactionId, account: app, originalTransactionId: original, environment: environment, source: source, seen: seen,
                signedDate: signedDate))
        }
        return links
    }

    /// One link per kind, account, original transaction and environment: the newest sighting of
    /// each, its first sighting kept.
    public static func merged(_ links: [AccountLink]) -> [AccountLink] {
        var byKey: [String: AccountLink] = [:]
        for link in links {
            let key = [link.kind.rawValue, link.account, link.originalTransactionId, link.environment].joined(separator: "\u{1F}")
            guard var kept = byKey[key] else { byKey[key] = link; continue }
            kept.firstSeen = min(kept.firstSeen, link.firstSeen)
            if link.lastSeen >= kept.lastSeen {
                kept.lastSeen = link.lastSeen
                kept.source = link.source
            }
            kept.signedDate = max(kept.signedDate, link.signedDate)
            byKey[key] = kept
        }
        // One order everywhere, so two writers of the same rows take their locks alike.
        return byKey.values.sorted {
            ($0.kind.rawValue, $0.account, $0.originalTransactionId, $0.environment) < ($1.kind.rawValue, $1.account, $1.originalTransactionId, $1.environment)
        }
    }
}
