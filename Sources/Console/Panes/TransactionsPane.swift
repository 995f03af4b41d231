import AppStoreServerAPI
import DeskCore
import Foundation
import TerminalUI

extension Pane {
    public static let transactions = Pane("transactions")
}

/// The Transactions pane's own state: the history it shows and the filters it was asked with.
public struct TransactionsModel: PaneModel {
    public var rows: Loadable<[VerifiedTransaction]> = .idle
    public var filters = HistoryFilterState()
    public var paging = HistoryPaging()
    /// The request whose answer the rows are: the customer's load, or this pane's latest (for a
    /// filtered history, its first page). Answers of any other are of filters no longer asked for.
    public var request: Int?
    public init() {}
}

/// Where a filtered history stands when it is read page by page as the user scrolls.
public struct HistoryPaging: Sendable, Equatable {
    /// The `revision` that asks Apple for the next page; nil once the rows are complete.
    public var nextRevision: String?
    /// The request fetching the next page, while one is out.
    public var pageRequest: Int?
    /// Why the last page did not come; the rows before it stay.
    public var error: DisplayError?
    public var pages = 0
    public init() {}

    public var hasMore: Bool { nextRevision != nil }
}

/// One page of a filtered history, verified.
struct HistoryPageAnswer: Sendable {
    let rows: [VerifiedTransaction]
    let nextRevision: String?
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

    public var historyPaging: HistoryPaging {
        get { models[TransactionsModel.self].paging }
        set { models[TransactionsModel.self].paging = newValue }
    }

    public var historyRequest: Int? {
        get { models[TransactionsModel.self].request }
        set { models[TransactionsModel.self].request = newValue }
    }
}

/// What the Transactions pane's reads answer.
enum TransactionsAnswer: PaneAnswer {
    /// One page of a filtered history, read as the list is scrolled.
    case nextPage(Result<HistoryPageAnswer, DisplayError>)
    /// The whole history as far as it has arrived (decoded, being verified); `.history` follows.
    case historySoFar([VerifiedTransaction], pages: Int)
    case history(Result<[VerifiedTransaction], DisplayError>)
}

/// The customer's transaction history. Unfiltered, it is the customer summary's complete history
/// (fetched once, all windows at once, because the summary counts it); filtered on Apple's side with
/// `:` commands, it is read a page at a time as the selection nears the end of what has arrived.
enum TransactionsPane {
    static let description = PaneDescription(
        pane: .transactions, title: "Transactions", shortTitle: "Hist", rowNoun: "transactions",
        commands: [FinishReducer.paneCommand, ConsumptionReducer.paneCommand],
        colonCommands: colonCommands,
        rowCount: { rows($0).count },
        selectedID: { PaneRows.selected(rows($0), $0, .transactions)?.payload?.transactionId },
        rowIDs: { rows($0).map { $0.payload?.transactionId } },
        detail: { PaneRows.selected(rows($0), $0, .transactions).map(DetailContent.transactionTree) },
        table: { _, inner in PaneLayout.belowHeading(inner) },
        render: TransactionsView.render,
        refresh: { state in
            guard let anchor = state.customer?.anchorId else { return [] }
            return load(&state, anchor: anchor)
        },
        answers: .of(TransactionsAnswer.self, receive),
        cancelled: { state in
            if state.transactionsPane.isLoading { state.transactionsPane = .failed(PaneReducer.cancelled) }
            PaneReducer.markPartial(&state, .transactions, count: state.transactionsPane.value?.count ?? 0)
            // A page cut off by Esc is asked for again on the next scroll.
            state.historyPaging.pageRequest = nil
        },
        reset: { state in
            state.transactionsPane = .idle
            state.historyPaging = HistoryPaging()
            state.historyRequest = nil
            // Filters set for one customer would hide the next one's history behind "no match".
            state.historyFilters = HistoryFilterState()
        },
        scrolled: nextPageIfNearEnd
    )

    /// How close to the last arrived row the selection comes before the next page is asked for:
    /// half of Apple's page of 20, so the next one is usually in before the selection gets there.
    static let pageAhead = 10

    static func rows(_ state: ConsoleState) -> [VerifiedTransaction] {
        PaneRows.transactions(state.transactionsPane.value ?? [], state, .transactions)
    }

    static func load(_ state: inout ConsoleState, anchor: String) -> [ConsoleEffect] {
        let earlier = supersede(&state)
        state.transactionsPane = .loading
        state.partialNote[.transactions] = nil
        state.historyPaging = HistoryPaging()
        let query = state.historyFilters.query
        guard query == HistoryFilterState().query else {
            let effects = requestPage(&state, anchor: anchor, revision: nil)
            state.historyRequest = state.historyPaging.pageRequest
            return effects + earlier
        }
        // The unfiltered history is the summary's: complete, as its counts need.
        let request = CustomerReducer.start(&state, "Transaction history \(anchor)", owner: .transactions)
        state.historyRequest = request
        let environment = state.customer?.environment
        return [.task(PaneTask(request: request, name: "transaction history \(anchor)") { services, progress in
            let result = await CustomerReads.history(anchor, query, services.scoped(to: environment)) { rows, pages in
                progress(TransactionsAnswer.historySoFar(rows, pages: pages))
            }
            return TransactionsAnswer.history(result)
        })] + earlier
    }

    /// Stops this pane's own requests of the last filters. The customer's load goes on for the
    /// other panes; its history simply no longer lands here.
    static func supersede(_ state: inout ConsoleState) -> [ConsoleEffect] {
        let own = [state.historyRequest, state.historyPaging.pageRequest].compactMap { $0 }.filter { state.requestOwners[$0] == .transactions }
        return Set(own).sorted().flatMap { PaneReducer.supersede(&state, $0) }
    }

    /// True when `request` is the one whose answer the rows are, and is still awaited.
    static func isCurrent(_ state: ConsoleState, _ request: Int) -> Bool {
        CustomerReducer.isCurrent(state, request) && state.historyRequest == request
    }

    /// Asks for one page of the filtered history (the first when `revision` is nil).
    static func requestPage(_ state: inout ConsoleState, anchor: String, revision: String?) -> [ConsoleEffect] {
        let page = state.historyPaging.pages + 1
        let request = CustomerReducer.start(&state, "Transaction history \(anchor), page \(page)", owner: .transactions)
        state.historyPaging.pageRequest = request
        state.historyPaging.error = nil
        let query = state.historyFilters.query
        let environment = state.customer?.environment
        return [.task(PaneTask(request: request, name: "history page \(page) of \(anchor)") { services, _ in
            TransactionsAnswer.nextPage(await fetchPage(anchor: anchor, revision: revision, query: query, services: services.scoped(to: environment)))
        })]
    }

    static func fetchPage(
        anchor: String, revision: String?, query: TransactionHistoryQuery, services: DeskServices
    ) async -> Result<HistoryPageAnswer, DisplayError> {
        do {
            let page = try await services.client.getTransactionHistory(anyTransactionId: anchor, revision: revision, query: query)
            let next = page.hasMore == true ? page.revision : nil
            return .success(HistoryPageAnswer(rows: await services.verification.transactions(page.signedTransactions), nextRevision: next))
        } catch {
            return .failure(services.failure(error))
        }
    }

    /// After the selection moved: the next page, when the selection is near the last row that
    /// arrived, more are to come and none is already on its way.
    static func nextPageIfNearEnd(_ state: inout ConsoleState) -> [ConsoleEffect] {
        let paging = state.historyPaging
        guard let revision = paging.nextRevision, paging.pageRequest == nil, let anchor = state.customer?.anchorId,
              let arrived = state.transactionsPane.value
        else { return [] }
        let selected = state.lists[.transactions]?.selected ?? 0
        guard selected >= PaneRows.transactions(arrived, state, .transactions).count - pageAhead else { return [] }
        return requestPage(&state, anchor: anchor, revision: revision)
    }

    static func receive(_ state: inout ConsoleState, request: Int, _ answer: TransactionsAnswer) -> [ConsoleEffect] {
        switch answer {
        case .nextPage(let page):
            guard CustomerReducer.isCurrent(state, request), state.historyPaging.pageRequest == request else { return [] }
            state.historyPaging.pageRequest = nil
            switch page {
            case .success(let page):
                // Pages come in the query's order, so each one goes after the rows already shown.
                state.transactionsPane = .loaded((state.transactionsPane.value ?? []) + page.rows)
                state.historyPaging.nextRevision = page.nextRevision
                state.historyPaging.pages += 1
                state.partialNote[.transactions] = page.nextRevision == nil ? nil : "first \(state.transactionsPane.value?.count ?? 0), more as you scroll"
                return nextPageIfNearEnd(&state)
            case .failure(let error):
                if state.historyPaging.pages == 0 {
                    state.transactionsPane = .failed(error)
                } else {
                    state.historyPaging.error = error
                    state.partialNote[.transactions] = "page \(state.historyPaging.pages + 1) failed: scroll to try again"
                }
                state.lastError = error
            }
        case .historySoFar(let rows, let pages):
            guard isCurrent(state, request) else { return [] }
            state.transactionsPane = .loaded(rows)
            PaneReducer.pagingProgressed(&state, request, .transactions, rows: rows.count, pages: pages, noun: "transactions")
        case .history(let result):
            guard isCurrent(state, request) else { return [] }
            state.transactionsPane = Loadable(result)
            // Rows shown while it loaded keep their selection; a new query starts at the top.
            if state.partialNote[.transactions] == nil { state.lists[.transactions] = ListState() }
            PaneReducer.pagingEnded(&state, request, .transactions)
            if case .failure(let error) = result { state.lastError = error }
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
