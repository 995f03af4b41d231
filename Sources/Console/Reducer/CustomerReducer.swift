import AppStoreServerAPI
import DeskCore
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
        case .orderId(let id), .transactionId(let id), .appAccountToken(let id):
            var effects = begin(&state, query: id) + remember(&state, id)
            guard follow(&state, state.customer?.begin(in: state.environment) ?? .wait, effects: &effects) else { return effects }
            switch IDKind.classify(id) {
            case .orderId:
                let request = start(&state, "Look Up Order ID \(id)")
                effects.append(.task(PaneTask(request: request, name: "look up order \(id)") { services, _ in
                    CustomerAnswer.part(.order(await CustomerReads.order(id, services)))
                }))
            case .appAccountToken:
                effects += AccountLookup.find(&state, token: id)
            case .transactionId, .invalid:
                break
            }
            return effects
        }
    }

    /// Takes the lookup's next step; false when it has ended (nothing found).
    static func follow(_ state: inout ConsoleState, _ step: CustomerStep, effects: inout [ConsoleEffect]) -> Bool {
        switch step {
        case .wait:
            return true
        case .loadParts(let anchor, let includeTransaction):
            effects += loadCustomer(&state, anchor: anchor, includeTransaction: includeTransaction)
            return true
        case .nothingFound(let error):
            noCustomer(&state, error)
            return false
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
        let lookup = state.takeRequestID()
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
        // An answer begun on the last customer's transaction is not this one's.
        if state.consumptionForm?.customerLookup != nil {
            state.consumptionForm = nil
            if state.overlay == .consumption { state.overlay = nil }
        }
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
        state.customer?.startLoading(anchor: anchor, includeTransaction: includeTransaction)
        state.transactionsPane = .loading
        let request = start(&state, "Customer \(anchor)")
        state.historyRequest = request
        // nil: the environment is found (Production, then Sandbox); otherwise every request goes there.
        let environment = state.customer?.environment
        return [.task(PaneTask(request: request, name: "customer \(anchor)") { services, progress in
            await CustomerReads.load(anchor: anchor, includeTransaction: includeTransaction, services: services.scoped(to: environment)) { part in
                progress(CustomerAnswer.part(part))
            }
            return nil
        })]
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
        guard state.customer != nil else { return }
        state.customer?.markNothingFound(error)
        state.transactionsPane = .failed(error)
        state.lastError = error
        offerTheFieldAgain(&state)
    }

    static func markCancelled(_ state: inout ConsoleState) {
        guard let customer = state.customer else { return }
        state.customer?.markCancelled(PaneReducer.cancelled)
        // Cut off before the customer was found: the Transactions pane was never asked either.
        if customer.anchorId == nil, state.transactionsPane.isIdle { state.transactionsPane = .failed(PaneReducer.cancelled) }
    }

    /// Applies a part of the customer, unless its request was cancelled or replaced.
    static func receive(_ state: inout ConsoleState, request: Int, _ part: CustomerPart) -> [ConsoleEffect] {
        if case .historyPage(let rows, let pages) = part {
            // The customer's history as it arrives fills the Transactions pane, by that pane's rule.
            return TransactionsPane.receive(&state, request: request, .historySoFar(rows, pages: pages))
        }
        guard isCurrent(state, request) else { return [] }
        if case .order = part { state.inFlight[request] = nil }
        return apply(&state, part, request: request)
    }

    /// Takes a part into the customer on screen and follows where the lookup goes next.
    static func apply(_ state: inout ConsoleState, _ part: CustomerPart, request: Int? = nil) -> [ConsoleEffect] {
        guard let step = state.customer?.apply(part) else { return [] }
        var effects: [ConsoleEffect] = []
        guard follow(&state, step, effects: &effects) else { return effects }
        if case .history(let result) = part, let request, state.historyRequest == request {
            // The Transactions pane shows it unless it has asked for other filters since.
            state.transactionsPane = Loadable(result)
            // The summary's history is complete: no page of an earlier filter follows it.
            state.historyPaging = HistoryPaging()
            PaneReducer.pagingEnded(&state, request, .transactions)
        }
        if case .notifications(.success(let notes)) = part, notes.contains(where: { RefundRequests.Sighting($0) != nil }),
           state.refundRequests.queue == nil, state.refundRequests.request == nil {
            // The summary says a refund request's state in pane 0's words, which need the answers in
            // the ledger: the queue is read once, in the background.
            effects += RefundRequestsPane.load(&state, background: true)
        }
        if let error = part.failure { state.lastError = error }
        offerTheFieldAgain(&state)
        return effects
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
}
