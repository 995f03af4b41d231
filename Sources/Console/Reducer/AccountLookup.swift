import AppStoreServerAPI
import Foundation
import WebhookStore

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

/// Finding a customer by the app's account token: the store's index names the original
/// transactions seen with it, and the customer is loaded from the one seen last.
enum AccountLookup {
    struct Found: Sendable {
        var lookup: Int
        var result: Result<[AccountLink], DisplayError>
    }

    /// Apple answered that the typed ID is an app transaction ID, found in `environment`.
    struct AppTransactionFound: Sendable {
        var anchor: String
        var environment: AppStoreEnvironment
    }

    static func find(_ state: inout ConsoleState, token: String) -> [ConsoleEffect] {
        guard let lookup = state.customer?.lookup else { return [] }
        state.customer?.account = .loading
        let request = CustomerReducer.start(&state, "Find app account token \(token)")
        return [.task(PaneTask(request: request, name: "find app account token \(token)") { services, _ in
            Found(lookup: lookup, result: await links(token, services))
        })]
    }

    static func links(_ token: String, _ services: ConsoleServices) async -> Result<[AccountLink], DisplayError> {
        guard let index = await services.accountIndex() else {
            return .failure(DisplayError(
                summary: "No store to find app account tokens in: the store listen writes cannot be opened.",
                hint: "Give the console the store with --store (or the profile's store), or look the customer up by an order or transaction ID."))
        }
        do {
            let links = try await index.accountLinks(.appAccountToken, token)
            guard !links.isEmpty else {
                return .failure(DisplayError(
                    summary: "No purchase seen with app account token \(token).",
                    hint: "The store's index knows only what listen received and lookups saw: iapdesk index --since 180d fills it from Apple's notification history. Or ask for the order ID on the customer's receipt e-mail."))
            }
            return .success(links)
        } catch {
            return .failure(DisplayError(summary: "The account index cannot be read: \(error)"))
        }
    }

    /// Takes the index's answer; nil when the answer is not one.
    static func receive(_ state: inout ConsoleState, request: Int, _ answer: any Sendable) -> [ConsoleEffect]? {
        if let app = answer as? AppTransactionFound {
            guard CustomerReducer.isCurrent(state, request) else { return [] }
            state.customer?.account = .loaded(AccountMatch(kind: .appTransactionId, account: app.anchor, links: []))
            state.customer?.environment = app.environment
            // Not a purchase: there is no transaction of its own to show.
            state.customer?.transaction = .idle
            return []
        }
        guard let found = answer as? Found else { return nil }
        state.inFlight[request] = nil
        guard let customer = state.customer, customer.lookup == found.lookup, case .appAccountToken(let token) = IDKind.classify(customer.query) else {
            return []
        }
        switch found.result {
        case .failure(let error):
            state.customer?.account = .failed(error)
            CustomerReducer.noCustomer(&state, error)
            return []
        case .success(let links):
            state.customer?.account = .loaded(AccountMatch(kind: .appAccountToken, account: token, links: links))
            let shown = links[0]
            state.customer?.environment = AppStoreEnvironment(rawValue: shown.environment)
            return CustomerReducer.loadCustomer(&state, anchor: shown.originalTransactionId, includeTransaction: true)
        }
    }

    /// What a customer's payloads add to the index: every verified transaction and renewal info
    /// that carries the app's IDs.
    static func links(transactions: [VerifiedTransaction], renewals: [VerifiedPayload<RenewalInfoPayload>], seen: Date) -> [AccountLink] {
        var links: [AccountLink] = []
        for transaction in transactions where transaction.status.isVerified {
            guard let t = transaction.payload else { continue }
            links += AccountLink.links(
                appAccountToken: t.appAccountToken, appTransactionId: t.appTransactionId, originalTransactionId: t.originalTransactionId,
                environment: t.environment?.rawValue, source: .lookup, seen: seen, signedDate: t.signedDate)
        }
        for renewal in renewals where renewal.status.isVerified {
            guard let r = renewal.payload else { continue }
            links += AccountLink.links(
                appAccountToken: r.appAccountToken, appTransactionId: r.appTransactionId, originalTransactionId: r.originalTransactionId,
                environment: r.environment?.rawValue, source: .lookup, seen: seen, signedDate: r.signedDate)
        }
        return AccountLink.merged(links)
    }
}

extension ConsoleServices {
    /// The store's account index (the store listen writes); nil when there is none to open.
    func accountIndex() async -> (any AccountIndex)? {
        guard let received else { return nil }
        return (try? await received.store()) as? any AccountIndex
    }
}
