import AppStoreServerAPI
import DeskStore
import Foundation

/// How a customer is assembled from the parts of its lookup: the one rule for the console's panes
/// and the command line's `lookup`, `case` and `timeline`.
extension CustomerState {
    /// The first step for the typed ID, before anything is asked of Apple or the store.
    public mutating func begin(in environment: AppStoreEnvironment) -> CustomerStep {
        switch IDKind.classify(query) {
        case .invalid(let reason):
            return .nothingFound(DisplayError(summary: reason))
        case .orderId:
            order = .loading
            guard environment == .production else { return .nothingFound(Self.orderLookupInSandbox) }
            return .wait
        case .transactionId(let id):
            return .loadParts(anchor: id, includeTransaction: true)
        case .appAccountToken:
            account = .loading
            return .wait
        }
    }

    /// Apple offers no order lookup in Sandbox.
    public static let orderLookupInSandbox = DisplayError(
        summary: "Look Up Order ID is available in Production only: Apple offers no order lookup in Sandbox.",
        hint: "Switch with :env production, or look up a transaction ID instead (Sandbox purchases show theirs in the device's purchase history).",
        environment: .sandbox)

    /// Every part under `anchor` is about to be read.
    public mutating func startLoading(anchor: String, includeTransaction: Bool) {
        anchorId = anchor
        if includeTransaction { transaction = .loading }
        subscriptions = .loading
        refunds = .loading
        history = .loading
        notifications = .loading
        appTransaction = .loading
    }

    /// Takes one part and says where the lookup goes next.
    public mutating func apply(_ part: CustomerPart) -> CustomerStep {
        switch part {
        case .order(.failure(let error)):
            // Without the order nothing else of the customer can be found.
            order = .failed(error)
            return .nothingFound(error)
        case .order(.success(let found)):
            order = .loaded(found)
            if found.status == .valid, let first = found.transactions.first?.payload?.originalTransactionId {
                environment = .production
                return .loadParts(anchor: first, includeTransaction: false)
            }
            return .nothingFound(DisplayError(
                summary: "Apple has no purchases under order ID \(found.orderId).",
                hint: "Read the order ID again from the customer's receipt e-mail (such as MK5TTTVWJH), or look up a transaction ID.",
                environment: .production))
        case .accountLinks(.failure(let error)):
            account = .failed(error)
            return .nothingFound(error)
        case .accountLinks(.success(let links)):
            guard let shown = links.first else { return .nothingFound(DisplayError(summary: "No purchase seen with app account token \(query).")) }
            account = .loaded(AccountMatch(kind: .appAccountToken, account: IDKind.classify(query).accountToken ?? query, links: links))
            environment = AppStoreEnvironment(rawValue: shown.environment)
            return .loadParts(anchor: shown.originalTransactionId, includeTransaction: true)
        case .appTransactionFound(let anchor, let found):
            account = .loaded(AccountMatch(kind: .appTransactionId, account: anchor, links: []))
            environment = found
            // Not a purchase: there is no transaction of its own to show.
            transaction = .idle
        case .transaction(.success(let located)):
            transaction = .loaded(located.value)
            environment = located.environment
        case .transaction(.failure(let error)):
            transaction = .failed(error)
        case .subscriptions(let result): subscriptions = Loadable(result)
        case .refunds(let result): refunds = Loadable(result)
        case .history(let result): history = Loadable(result)
        case .historyPage: break
        case .notifications(let result): notifications = Loadable(result)
        case .appTransaction(let result): appTransaction = Loadable(result)
        }
        return .wait
    }

    /// Nothing can be found for this lookup: every part says why, so nothing reads as an empty
    /// history or "no subscriptions" of a customer that does not exist.
    public mutating func markNothingFound(_ error: DisplayError) {
        if !order.isLoaded { order = .failed(error) }
        transaction = .failed(error)
        subscriptions = .failed(error)
        refunds = .failed(error)
        history = .failed(error)
        notifications = .failed(error)
        appTransaction = .failed(error)
        if account.isLoading { account = .failed(error) }
    }

    /// What is still loading was cancelled. Cut off before the customer was found (the order or
    /// the account token still unanswered), nothing of theirs was read, so no part may read as
    /// empty ("no refunds"): every part not yet asked for says it was cancelled too.
    public mutating func markCancelled(_ cancelled: DisplayError) {
        let beforeParts = anchorId == nil
        func cancel<Value>(_ part: inout Loadable<Value>) {
            if part.isLoading || (beforeParts && part.isIdle) { part = .failed(cancelled) }
        }
        cancel(&order)
        cancel(&transaction)
        cancel(&subscriptions)
        cancel(&refunds)
        cancel(&history)
        cancel(&notifications)
        cancel(&appTransaction)
        if account.isLoading { account = .failed(cancelled) }
    }
}

extension IDKind {
    /// The ID itself, as lookups use it; nil for what names no customer.
    public var id: String? {
        switch self {
        case .orderId(let id), .transactionId(let id), .appAccountToken(let id): return id
        case .invalid: return nil
        }
    }

    /// The token of an app account token ID.
    public var accountToken: String? {
        if case .appAccountToken(let token) = self { return token }
        return nil
    }
}
