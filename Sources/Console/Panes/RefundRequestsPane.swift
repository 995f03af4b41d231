import AppStoreServerAPI
import DeskCore
import Foundation
import TerminalUI

extension Pane {
    public static let refundRequests = Pane("refundRequests")
}

extension ActionContext {
    public static let refundRequests = ActionContext("Refund requests")
}

extension CommandID {
    public static let refundRequestsAnswer = CommandID("refundRequests.answer")
    public static let refundRequestsPending = CommandID("refundRequests.pending")
}

/// The queue's own state: the requests as last read, and whether only the pending ones show.
public struct RefundRequestsModel: PaneModel {
    public var queue: RefundRequestQueue?
    /// The read in flight; its answer replaces the queue, an earlier one's is dropped.
    public var request: Int?
    /// Why the last read failed as a whole.
    public var error: DisplayError?
    public var onlyPending = false
    /// Whether the read in flight is the periodic one (not shown as a request, not cancelled by Esc).
    var background = false
    /// The tick of the last read: the queue is read again every `refreshEvery` ticks while shown.
    var lastReadTick = Int.min / 2
    public init() {}
}

extension ConsoleState {
    public var refundRequests: RefundRequestsModel {
        get { models[RefundRequestsModel.self] }
        set { models[RefundRequestsModel.self] = newValue }
    }
}

/// What the queue's read answers.
enum RefundRequestsAnswer: PaneAnswer {
    case read(RefundRequestQueue)
}

/// Apple's refund requests (CONSUMPTION_REQUEST) of the environment, whoever the customer: the
/// store's and Apple's history, each with its 12 hours, the answer sent and Apple's decision.
/// Enter opens the customer; `a` answers the selected request.
enum RefundRequestsPane {
    /// Ticks between reads while the pane is shown (a tick is 120 ms): once a minute.
    static let refreshEvery = 500
    /// How far back the queue looks: a request is answerable for 12 hours, its decision comes later.
    static let span: TimeInterval = 30 * 86_400

    static let description = PaneDescription(
        pane: .refundRequests, title: "Refund requests", shortTitle: "Asks", rowNoun: "refund requests", showsCustomer: false,
        commands: commands,
        rowCount: { rows($0).count },
        selectedID: { PaneRows.selected(rows($0), $0, .refundRequests)?.transactionId },
        rowIDs: { rows($0).map(\.notificationUUID) },
        table: { state, inner in RefundRequestsView.areas(state, inner).table },
        render: RefundRequestsView.render,
        opened: { state in
            state.focus = .content
            if state.refundRequests.queue == nil, state.refundRequests.background, let running = state.refundRequests.request {
                // The read the customer summary started is the one this pane waits for: said as in
                // flight, and Esc stops it.
                state.inFlight[running] = "Refund requests"
                state.refundRequests.background = false
                return []
            }
            return state.refundRequests.queue == nil && state.refundRequests.request == nil ? load(&state) : []
        },
        refresh: load,
        answers: .of(RefundRequestsAnswer.self, receive),
        cancelled: { state in
            if !state.refundRequests.background { state.refundRequests.request = nil }
        },
        tick: { state in
            guard state.pane == .refundRequests, state.refundRequests.request == nil,
                  state.tick - state.refundRequests.lastReadTick >= refreshEvery else { return [] }
            return load(&state, background: true)
        },
        reset: { state in state.refundRequests = RefundRequestsModel() },
        intercept: { state, _, command in
            // Enter on a request opens its customer, by the transaction Apple asked about.
            guard command?.id == .listOpen else { return nil }
            return openCustomer(&state)
        },
        openTitle: "Open customer"
    )

    static let commands: [KeyCommand] = [
        KeyCommand(.refundRequestsAnswer, "Answer the request", keys: [.character("a")], context: .refundRequests, dangerous: true, inFooter: true,
                   footerLabel: "Answer",
                   unavailable: { state in
                       guard let row = PaneRows.selected(rows(state), state, .refundRequests) else { return "Select a refund request first." }
                       return row.state(now: state.now) == .pending ? nil : "Only a pending request is answered; this one is \(row.state(now: state.now).label)."
                   }) { state, _ in
            guard let row = PaneRows.selected(rows(state), state, .refundRequests) else { return [] }
            return ConsumptionReducer.open(&state, request: row)
        },
        KeyCommand(.refundRequestsPending, "Pending only / all", keys: [.character("f")], context: .refundRequests, inFooter: true,
                   footerLabel: "Pending/all") { state, _ in
            state.refundRequests.onlyPending.toggle()
            state.lists[.refundRequests] = ListState()
            return []
        },
    ]

    /// Pending requests first, the least time left on top; then the rest, newest first.
    static func rows(_ state: ConsoleState) -> [RefundRequest] {
        let now = state.now
        let all = (state.refundRequests.queue?.requests ?? []).filter { !state.refundRequests.onlyPending || $0.state(now: now) == .pending }
        let ordered = all.filter { $0.state(now: now) == .pending }.sorted { $0.deadline < $1.deadline }
            + all.filter { $0.state(now: now) != .pending }
        return PaneRows.filtered(ordered, state.filters[.refundRequests]) { request in
            [request.transactionId ?? "", request.originalTransactionId ?? "", request.transaction?.appAccountToken ?? "", request.productId ?? "",
             request.reason?.label ?? "", request.state(now: now).label, request.answer?.agent ?? ""].joined(separator: " ")
        }
    }

    static func load(_ state: inout ConsoleState) -> [ConsoleEffect] { load(&state, background: false) }

    /// Reads the queue again; the rows on screen stay until the answer replaces them.
    static func load(_ state: inout ConsoleState, background: Bool) -> [ConsoleEffect] {
        let earlier = PaneReducer.supersede(&state, state.refundRequests.request)
        let request = background
            ? ConsoleReducer.startInBackground(&state, owner: .refundRequests)
            : ConsoleReducer.start(&state, "Refund requests", owner: .refundRequests)
        state.refundRequests.request = request
        state.refundRequests.background = background
        state.refundRequests.lastReadTick = state.tick
        let policy = state.refundPolicy
        return [.task(PaneTask(request: request, name: "refund requests") { services, _ in
            RefundRequestsAnswer.read(await RefundRequestReads.load(services, since: span, policy: policy))
        })] + earlier
    }

    static func receive(_ state: inout ConsoleState, request: Int, _ answer: RefundRequestsAnswer) -> [ConsoleEffect] {
        switch answer {
        case .read(let queue):
            guard state.refundRequests.request == request else { return [] }
            state.inFlight[request] = nil
            state.refundRequests.request = nil
            let selected = PaneRows.selected(rows(state), state, .refundRequests)?.notificationUUID
            state.refundRequests.queue = queue
            state.refundRequests.error = queue.complete || !queue.requests.isEmpty ? nil : DisplayError(summary: queue.notes.joined(separator: "; "))
            // The selection stays on its request when the order changes.
            var list = state.list(.refundRequests)
            let now = rows(state)
            if let selected, let index = now.firstIndex(where: { $0.notificationUUID == selected }) { list.selected = index }
            list.selected = min(list.selected, max(0, now.count - 1))
            state.lists[.refundRequests] = list
            ConsumptionReducer.queueRead(&state, queue)
        }
        return []
    }

    /// Looks up the customer Apple asked about, as `:tx ID` does.
    static func openCustomer(_ state: inout ConsoleState) -> [ConsoleEffect] {
        guard let row = PaneRows.selected(rows(state), state, .refundRequests) else { return [] }
        guard let id = row.transactionId ?? row.originalTransactionId else {
            ConsoleReducer.toast(&state, "This request carries no transaction ID to look up.", isError: true)
            return []
        }
        return CommandLine.lookUp(&state, "tx", id)
    }
}
