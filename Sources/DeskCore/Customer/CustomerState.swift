import AppStoreServerAPI
import DeskStore
import Foundation

/// Everything one looked-up customer is made of; each part loads on its own.
public struct CustomerState: Sendable {
    public var query: String
    /// Which lookup this is: answers to an earlier lookup never land here.
    public var lookup: Int
    /// The requests made for this customer; an answer to any other request is dropped.
    public var requests: Set<Int> = []
    public var anchorId: String?
    /// Where the customer was found; every later request for them goes there.
    public var environment: AppStoreEnvironment?
    public var order: Loadable<OrderResult> = .idle
    public var transaction: Loadable<VerifiedTransaction> = .idle
    public var subscriptions: Loadable<[SubscriptionRow]> = .idle
    public var refunds: Loadable<[VerifiedTransaction]> = .idle
    public var history: Loadable<[VerifiedTransaction]> = .idle
    public var notifications: Loadable<[NotificationRow]> = .idle
    public var appTransaction: Loadable<VerifiedPayload<AppTransactionPayload>> = .idle
    /// How a customer looked up by the app's own ID (account token, app transaction ID) was found.
    public var account: Loadable<AccountMatch> = .idle
    /// The field took the keys back once this lookup was known to have found nothing.
    public var refocused = false
    /// When the lookup started: what anyone changed after it is not on screen.
    public var readAt: Date?

    public init(query: String, lookup: Int) {
        self.query = query
        self.lookup = lookup
    }

    /// The customer in the words an agent reads back: the ID typed and, when it differs, the
    /// original transaction a write goes to.
    public func subject(originalTransactionId: String) -> String {
        let typed = IDKind.classify(query)
        var words = "original transaction \(originalTransactionId)"
        if case .orderId(let order) = typed { words += " (order \(order))" }
        else if case .appAccountToken(let token) = typed { words += " (looked up as app account token \(token))" }
        else if account.value?.kind == .appTransactionId { words += " (looked up as app transaction \(query))" }
        else if query != originalTransactionId { words += " (looked up as transaction \(query))" }
        return words
    }
}

extension CustomerState {
    /// Every part has answered and none found anything: the ID names no customer (or the
    /// network failed before any part could say).
    public var foundNothing: Bool {
        let parts: [(loading: Bool, loaded: Bool)] = [
            (order.isLoading, order.value?.status == .valid), (transaction.isLoading, transaction.isLoaded),
            (subscriptions.isLoading, subscriptions.isLoaded), (refunds.isLoading, refunds.isLoaded),
            (history.isLoading, history.isLoaded), (notifications.isLoading, notifications.isLoaded),
        ]
        return !parts.contains { $0.loading || $0.loaded } && (transaction.error != nil || order.isLoaded || order.error != nil)
    }

    /// Every signed payload of the summary: order, transaction, subscriptions, history, refunds.
    public var verifications: [VerificationStatus] {
        var statuses: [VerificationStatus] = []
        statuses += order.value?.transactions.map(\.status) ?? []
        if let t = transaction.value { statuses.append(t.status) }
        for row in subscriptions.value ?? [] { statuses += [row.transaction?.status, row.renewal?.status].compactMap { $0 } }
        statuses += history.value?.map(\.status) ?? []
        statuses += refunds.value?.map(\.status) ?? []
        return statuses
    }
}
