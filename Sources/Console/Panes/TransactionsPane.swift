import AppStoreServerAPI
import Foundation
import TerminalUI

extension Pane {
    public static let transactions = Pane("transactions")
}

/// The Transactions pane's own state: the history it shows and the filters it was asked with.
public struct TransactionsModel: PaneModel {
    public var rows: Loadable<[VerifiedTransaction]> = .idle
    public var filters = HistoryFilterState()
    public init() {}
}

extension ConsoleState {
    public var transactionsPane: Loadable<[VerifiedTransaction]> {
        get { models[TransactionsModel.self].rows }
        set { models[TransactionsModel.self].rows = newValue }
    }

    public var historyFilters: HistoryFilterState {
        get { models[TransactionsModel.self].filters }
        set { models[TransactionsModel.self].filters = newValue }
    }
}

/// The customer's whole transaction history, filtered on Apple's side with `:` commands.
enum TransactionsPane {
    static let description = PaneDescription(
        pane: .transactions, title: "Transactions", shortTitle: "History", rowNoun: "transactions",
        colonCommands: colonCommands,
        rowCount: { rows($0).count },
        selectedID: { PaneRows.selected(rows($0), $0, .transactions)?.payload?.transactionId },
        detail: { PaneRows.selected(rows($0), $0, .transactions).map(DetailContent.transactionTree) },
        table: { _, inner in PaneLayout.belowHeading(inner) },
        render: TransactionsView.render,
        refresh: { state in
            guard let anchor = state.customer?.anchorId else { return [] }
            return load(&state, anchor: anchor)
        },
        receive: receive,
        cancelled: { state in
            if state.transactionsPane.isLoading { state.transactionsPane = .failed(PaneReducer.cancelled) }
            PaneReducer.markPartial(&state, .transactions, count: state.transactionsPane.value?.count ?? 0)
        },
        reset: { state in state.transactionsPane = .idle }
    )

    static func rows(_ state: ConsoleState) -> [VerifiedTransaction] {
        PaneRows.transactions(state.transactionsPane.value ?? [], state, .transactions)
    }

    static func load(_ state: inout ConsoleState, anchor: String) -> [ConsoleEffect] {
        state.transactionsPane = .loading
        state.partialNote[.transactions] = nil
        let request = CustomerReducer.start(&state, "Transaction history \(anchor)", owner: .transactions)
        return [.loadHistory(request: request, anchorId: anchor, query: state.historyFilters.query, environment: state.customer?.environment)]
    }

    static func receive(_ state: inout ConsoleState, _ action: ConsoleAction) -> [ConsoleEffect] {
        switch action {
        case .historyPage(let request, let rows, let pages):
            guard CustomerReducer.isCurrent(state, request) else { return [] }
            state.transactionsPane = .loaded(rows)
            PaneReducer.pagingProgressed(&state, request, .transactions, rows: rows.count, pages: pages, noun: "transactions")
        case .paneHistory(let request, let result):
            guard CustomerReducer.isCurrent(state, request) else { return [] }
            state.transactionsPane = PaneReducer.loadable(result)
            // Rows shown while it loaded keep their selection; a new query starts at the top.
            if state.partialNote[.transactions] == nil { state.lists[.transactions] = ListState() }
            PaneReducer.pagingEnded(&state, request, .transactions)
            if case .failure(let error) = result { state.lastError = error }
        default: break
        }
        return []
    }

    // MARK: `:` filters, sent to Get Transaction History

    static let colonCommands: [ColonCommand] = [
        ColonCommand(["product"], usage: ":product ID", "Transactions of one product", perform: filter),
        ColonCommand(["kind"], usage: ":kind consumable", "Transactions of one product type", perform: filter),
        ColonCommand(["from"], usage: ":from 2026-11-01", "Transactions from a date or span (30d)", perform: filter),
        ColonCommand(["to"], usage: ":to 30d", "Transactions before a date or span", perform: filter),
        ColonCommand(["ownership"], usage: ":ownership family|purchased", "Family-shared or purchased transactions", perform: filter),
        ColonCommand(["group"], usage: ":group ID", "Transactions of one subscription group", perform: filter),
        ColonCommand(["sort"], usage: ":sort asc|desc", "Oldest or newest first", perform: filter),
        ColonCommand(["revoked"], usage: ":revoked yes|no|all", "Revoked transactions, or none", perform: filter),
        ColonCommand(["clear"], usage: ":clear", "Clear the transaction filters", perform: filter),
    ]

    static func filter(_ state: inout ConsoleState, _ verb: String, _ argument: String) -> [ConsoleEffect] {
        var q = state.historyFilters.query
        switch verb {
        case "product": q.productIds = argument.isEmpty ? [] : [argument]
        case "kind":
            let kind = HistoryProductType(argument.uppercased().replacingOccurrences(of: "-", with: "_"))
            guard argument.isEmpty || kind.isKnown else {
                ConsoleReducer.fail(&state, DisplayError(summary: ":kind takes auto-renewable, non-renewable, consumable or non-consumable."))
                return []
            }
            q.productTypes = argument.isEmpty ? [] : [kind]
        case "sort":
            switch argument.lowercased() {
            case "asc", "ascending", "oldest": q.sort = .ascending
            case "", "desc", "descending", "newest": q.sort = .descending
            default:
                ConsoleReducer.fail(&state, DisplayError(summary: ":sort takes asc (oldest first) or desc (newest first)."))
                return []
            }
        case "from", "to":
            var date: Date?
            if !argument.isEmpty {
                guard let parsed = CommandLine.day(argument) ?? CommandLine.duration(argument).map({ state.now.addingTimeInterval(-$0) }) else {
                    ConsoleReducer.fail(&state, DisplayError(summary: ":\(verb) takes a date such as 2026-11-01 or a span such as 30d."))
                    return []
                }
                date = parsed
            }
            if verb == "from" { q.startDate = date } else { q.endDate = date }
        case "ownership":
            switch argument.lowercased() {
            case "family", "family-shared": q.inAppOwnershipType = .familyShared
            case "purchased": q.inAppOwnershipType = .purchased
            case "", "all": q.inAppOwnershipType = nil
            default:
                ConsoleReducer.fail(&state, DisplayError(summary: ":ownership takes family, purchased or all."))
                return []
            }
        case "group": q.subscriptionGroupIdentifiers = argument.isEmpty ? [] : [argument]
        case "revoked":
            switch argument.lowercased() {
            case "yes", "true": q.revoked = true
            case "no", "false": q.revoked = false
            case "", "all": q.revoked = nil
            default:
                ConsoleReducer.fail(&state, DisplayError(summary: ":revoked takes yes, no or all."))
                return []
            }
        default: q = TransactionHistoryQuery(sort: .descending)
        }
        state.historyFilters.query = q
        state.pane = .transactions
        state.focus = .content
        guard let anchor = state.customer?.anchorId else {
            ConsoleReducer.toast(&state, "Look up a customer first; the filter applies then.")
            return []
        }
        return load(&state, anchor: anchor)
    }
}
