import AppStoreServerAPI
import Foundation
import TerminalUI

/// Looking up a customer from any ID, and the answers that fill the panes.
enum CustomerReducer {
    static func submit(_ state: inout ConsoleState, _ text: String) -> [ConsoleEffect] {
        switch IDKind.classify(text) {
        case .invalid(let reason) where text.allSatisfy(\.isWhitespace):
            // An empty field names nobody: the customer on screen stays until an ID is typed.
            ConsoleReducer.fail(&state, DisplayError(summary: reason))
            return []
        case .invalid(let reason):
            // What was typed names no customer, so nothing of the one on screen may stay under it.
            let effects = begin(&state, query: text.trimmingCharacters(in: .whitespacesAndNewlines))
            // Kept as typed, to be corrected or typed over.
            state.lookupInput = TextInputState(text: text, maxLength: state.lookupInput.maxLength)
            noCustomer(&state, DisplayError(summary: reason))
            return effects
        case .orderId(let order):
            var effects = begin(&state, query: order) + remember(&state, order)
            state.customer?.order = .loading
            guard state.environment == .production else {
                noCustomer(&state, DisplayError(
                    summary: "Look Up Order ID is available in Production only: Apple offers no order lookup in Sandbox.",
                    hint: "Switch with :env production, or look up a transaction ID instead (Sandbox purchases show theirs in the device's purchase history).",
                    environment: .sandbox))
                return effects
            }
            let request = start(&state, "Look Up Order ID \(order)")
            effects.append(.lookUpOrder(request: request, orderId: order))
            return effects
        case .transactionId(let id):
            var effects = begin(&state, query: id) + remember(&state, id)
            effects += loadCustomer(&state, anchor: id, includeTransaction: true)
            return effects
        case .appAccountToken(let token):
            let effects = begin(&state, query: token) + remember(&state, token)
            return effects + AccountLookup.find(&state, token: token)
        }
    }

    static func remember(_ state: inout ConsoleState, _ id: String) -> [ConsoleEffect] {
        state.recallIndex = nil
        guard state.recentLookups.first != id else { return [] }
        state.recentLookups = RecentLookups.adding(id, to: state.recentLookups)
        return [.saveRecentLookups(state.recentLookups)]
    }

    /// A new customer replaces the one on screen: what was asked for the old one is cancelled and
    /// its answers will be dropped; nothing of it stays in any pane.
    static func begin(_ state: inout ConsoleState, query: String) -> [ConsoleEffect] {
        let effects = cancelCustomerRequests(&state)
        let lookup = state.nextRequest
        state.nextRequest += 1
        state.customer = CustomerState(query: query, lookup: lookup)
        state.customer?.readAt = state.now
        state.lookupInput = TextInputState(text: query, maxLength: 64)
        state.focus = .content
        state.lastError = nil
        state.extendForm = nil
        state.finishConfirmation = nil
        // What was said about the last customer ("Not extended: …") must not read as this one's.
        state.toasts.removeAll()
        if state.overlay == .extend || state.overlay == .finishTransaction { state.overlay = nil }
        // Every pane showing the customer forgets the last one.
        for pane in Panes.all where pane.showsCustomer {
            pane.reset(&state)
            state.lists[pane.pane] = ListState()
            state.partialNote[pane.pane] = nil
        }
        return effects
    }

    /// Starts a request that belongs to the customer on screen; its answers go to `owner`.
    static func start(_ state: inout ConsoleState, _ description: String, owner: Pane? = .customer) -> Int {
        let request = ConsoleReducer.start(&state, description, owner: owner)
        state.customer?.requests.insert(request)
        return request
    }

    /// True when `request` was made for the customer on screen and is still awaited.
    static func isCurrent(_ state: ConsoleState, _ request: Int) -> Bool {
        state.inFlight[request] != nil && state.customer?.requests.contains(request) == true
    }

    static func loadCustomer(_ state: inout ConsoleState, anchor: String, includeTransaction: Bool) -> [ConsoleEffect] {
        state.customer?.anchorId = anchor
        if includeTransaction { state.customer?.transaction = .loading }
        state.customer?.subscriptions = .loading
        state.customer?.refunds = .loading
        state.customer?.history = .loading
        state.customer?.notifications = .loading
        state.customer?.appTransaction = .loading
        state.transactionsPane = .loading
        let request = start(&state, "Customer \(anchor)")
        state.historyRequest = request
        return [.loadCustomer(request: request, anchorId: anchor, includeTransaction: includeTransaction, environment: state.customer?.environment)]
    }

    static func cancelCustomerRequests(_ state: inout ConsoleState) -> [ConsoleEffect] {
        guard let customer = state.customer else { return [] }
        // A write in flight runs to its answer; see ConsoleReducer.cancelAll.
        let open = customer.requests.filter { state.inFlight[$0] != nil && state.extensionsInFlight[$0] == nil }.sorted()
        for request in open { state.inFlight[request] = nil }
        return open.map { .cancel(request: $0) }
    }

    /// Nothing can be found for this lookup: every part says why, so no pane shows empty
    /// headings or "no subscriptions" for a customer that does not exist.
    static func noCustomer(_ state: inout ConsoleState, _ error: DisplayError) {
        guard var customer = state.customer else { return }
        if !customer.order.isLoaded { customer.order = .failed(error) }
        customer.transaction = .failed(error)
        customer.subscriptions = .failed(error)
        customer.refunds = .failed(error)
        customer.history = .failed(error)
        customer.notifications = .failed(error)
        customer.appTransaction = .failed(error)
        if customer.account.isLoading { customer.account = .failed(error) }
        state.customer = customer
        state.transactionsPane = .failed(error)
        state.lastError = error
        offerTheFieldAgain(&state)
    }

    static func markCancelled(_ state: inout ConsoleState) {
        let cancelled = PaneReducer.cancelled
        guard var customer = state.customer else { return }
        if customer.order.isLoading { customer.order = .failed(cancelled) }
        if customer.transaction.isLoading { customer.transaction = .failed(cancelled) }
        if customer.subscriptions.isLoading { customer.subscriptions = .failed(cancelled) }
        if customer.refunds.isLoading { customer.refunds = .failed(cancelled) }
        if customer.history.isLoading { customer.history = .failed(cancelled) }
        if customer.notifications.isLoading { customer.notifications = .failed(cancelled) }
        if customer.appTransaction.isLoading { customer.appTransaction = .failed(cancelled) }
        if customer.account.isLoading { customer.account = .failed(cancelled) }
        state.customer = customer
    }

    /// Applies an answer, unless its request was cancelled or replaced.
    static func receive(_ state: inout ConsoleState, _ action: ConsoleAction) -> [ConsoleEffect] {
        switch action {
        case .order(let request, let result):
            guard isCurrent(state, request) else { return [] }
            state.inFlight[request] = nil
            switch result {
            case .failure(let error):
                // Without the order nothing else of the customer can be found: every part says why.
                state.customer?.order = .failed(error)
                noCustomer(&state, error)
            case .success(let order):
                state.customer?.order = .loaded(order)
                if order.status == .valid, let first = order.transactions.first?.payload?.originalTransactionId {
                    state.customer?.environment = .production
                    return loadCustomer(&state, anchor: first, includeTransaction: false)
                }
                noCustomer(&state, DisplayError(
                    summary: "Apple has no purchases under order ID \(order.orderId).",
                    hint: "Read the order ID again from the customer's receipt e-mail (such as MK5TTTVWJH), or look up a transaction ID.",
                    environment: .production))
            }
        case .transaction(let request, let result):
            guard isCurrent(state, request) else { return [] }
            switch result {
            case .success(let located):
                state.customer?.transaction = .loaded(located.value)
                state.customer?.environment = located.environment
            case .failure(let error): state.customer?.transaction = .failed(error)
            }
        case .subscriptions(let request, let result):
            guard isCurrent(state, request) else { return [] }
            state.customer?.subscriptions = PaneReducer.loadable(result)
        case .refunds(let request, let result):
            guard isCurrent(state, request) else { return [] }
            state.customer?.refunds = PaneReducer.loadable(result)
        case .history(let request, let result):
            guard isCurrent(state, request) else { return [] }
            state.customer?.history = PaneReducer.loadable(result)
            // The Transactions pane shows it unless it has asked for other filters since.
            guard state.historyRequest == request else { break }
            state.transactionsPane = PaneReducer.loadable(result)
            // The summary's history is complete: no page of an earlier filter follows it.
            state.historyPaging = HistoryPaging()
            PaneReducer.pagingEnded(&state, request, .transactions)
        case .historyPage:
            // The customer's history as it arrives fills the Transactions pane, by that pane's rule.
            return TransactionsPane.receive(&state, action)
        case .customerNotifications(let request, let result):
            guard isCurrent(state, request) else { return [] }
            state.customer?.notifications = PaneReducer.loadable(result)
        case .appTransaction(let request, let result):
            guard isCurrent(state, request) else { return [] }
            state.customer?.appTransaction = PaneReducer.loadable(result)
        default:
            break
        }
        if let error = failure(of: action) { state.lastError = error }
        offerTheFieldAgain(&state)
        return []
    }

    /// A lookup that found nothing leaves nothing to act on: the field takes the keys back, its ID
    /// selected, so the agent types the corrected one at once instead of typing into the commands
    /// (`a` would start a note). Once a lookup, and only if the agent is still on the summary.
    static func offerTheFieldAgain(_ state: inout ConsoleState) {
        guard var customer = state.customer, !customer.refocused, customer.foundNothing else { return }
        customer.refocused = true
        state.customer = customer
        guard state.pane == .customer, state.focus == .content, state.overlay == nil else { return }
        state.focus = .paneInput
        state.lookupInput = TextInputState(text: state.lookupInput.text, maxLength: state.lookupInput.maxLength, selected: true)
    }

    static func failure(of action: ConsoleAction) -> DisplayError? {
        switch action {
        case .subscriptions(_, .failure(let e)), .refunds(_, .failure(let e)), .history(_, .failure(let e)):
            return e
        case .transaction(_, .failure(let e)): return e
        default: return nil
        }
    }
}
