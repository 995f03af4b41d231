import AppStoreServerAPI
@testable import Console
@testable import DeskCore
import Foundation
import TerminalUI
import Testing

/// A filtered history is read a page at a time as the selection nears the end of what arrived:
/// one request per page, none twice, failures shown in the pane, rows in the order Apple sent them.
@Suite struct TransactionsPagingTests {
    static let anchor = "2000000400000044"

    func send(_ state: inout ConsoleState, _ keys: [Key]) -> [ConsoleEffect] {
        keys.flatMap { ConsoleReducer.reduce(&state, .key($0)) }.filter {
            if case .saveRecentLookups = $0 { return false } else { return true }
        }
    }

    /// A customer looked up, on the Transactions pane, with `:sort asc` applied: the first page's task.
    func filtered() throws -> (ConsoleState, PaneTask) {
        var state = ConsoleState(profileName: "p", environment: .production, isDemo: false, bundleId: "com.example", readOnly: false, themeName: "default")
        _ = send(&state, Self.anchor.map { .character($0) } + [.enter])
        #expect(state.customer?.anchorId == Self.anchor)
        _ = send(&state, [.escape, .character("5")])
        #expect(state.pane == .transactions)
        let effects = send(&state, [.character(":")] + "sort asc".map { .character($0) } + [.enter])
        let task = try #require(Self.tasks(effects).first, "a filtered history asks for its first page, not for all of it: \(effects)")
        #expect(!effects.contains { if case .task(let task) = $0 { task.name.hasPrefix("transaction history") } else { false } })
        #expect(state.transactionsPane.isLoading)
        return (state, task)
    }

    static func tasks(_ effects: [ConsoleEffect]) -> [PaneTask] {
        effects.compactMap { if case .task(let task) = $0 { task } else { nil } }
    }

    static func page(_ range: Range<Int>, next: String?) -> Result<HistoryPageAnswer, DisplayError> {
        let rows = range.map { index -> VerifiedTransaction in
            var payload = TransactionPayload()
            payload.transactionId = String(2_000_000_400_000_100 + index)
            return VerifiedPayload(payload: payload, rawPayload: nil, header: nil, status: .verified, chainSubjects: [])
        }
        return .success(HistoryPageAnswer(rows: rows, nextRevision: next))
    }

    func screen(_ state: ConsoleState) -> String {
        let backend = HeadlessBackend(width: 120, height: 36)
        Terminal(backend: backend).draw { area, buffer in ConsoleView.render(state, theme: .fallback, area: area, buffer: &buffer) }
        return backend.text
    }

    func ids(_ state: ConsoleState) -> [String] {
        (state.transactionsPane.value ?? []).compactMap { $0.payload?.transactionId }
    }

    @Test func scrollingNearTheEndAsksForTheNextPageOnce() throws {
        var (state, first) = try filtered()
        #expect(ConsoleReducer.reduce(&state, .nextPage(request: first.request, Self.page(0..<20, next: "r1"))).isEmpty,
                "the selection is far from the end: nothing more is asked yet")
        #expect(ids(state).count == 20)
        #expect(state.historyPaging.nextRevision == "r1")

        // Down to 9 rows before the end: the next page is asked for, once.
        var asked: [PaneTask] = []
        for _ in 0..<11 { asked += Self.tasks(send(&state, [.down])) }
        #expect(state.lists[.transactions]?.selected == 11)
        #expect(asked.count == 1)
        let second = try #require(asked.first)
        #expect(second.name.contains("page 2"))
        #expect(state.historyPaging.pageRequest == second.request)

        // Further scrolling while it is out asks for nothing more.
        #expect(Self.tasks(send(&state, [.down, .down, .pageDown, .end])).isEmpty)

        _ = ConsoleReducer.reduce(&state, .nextPage(request: second.request, Self.page(20..<40, next: nil)))
        #expect(ids(state) == (0..<40).map { String(2_000_000_400_000_100 + $0) }, "pages keep Apple's order, each after the last")
        #expect(state.historyPaging.hasMore == false)
        #expect(state.historyPaging.pageRequest == nil)
        // The last page is in: scrolling asks for nothing.
        #expect(Self.tasks(send(&state, [.end, .up, .down])).isEmpty)
        #expect(state.partialNote[.transactions] == nil)
    }

    @Test func aFailedPageIsShownAndTheRowsStay() throws {
        var (state, first) = try filtered()
        _ = ConsoleReducer.reduce(&state, .nextPage(request: first.request, Self.page(0..<20, next: "r1")))
        let second = try #require(Self.tasks(send(&state, [.end])).first)
        let failure = DisplayError(summary: "Apple's server failed (HTTP 500, error 5000000).", hint: "Try again in a moment.")
        _ = ConsoleReducer.reduce(&state, .nextPage(request: second.request, .failure(failure)))
        #expect(ids(state).count == 20, "the rows that arrived stay")
        #expect(state.historyPaging.error == failure)
        #expect(state.lastError == failure)
        #expect(state.partialNote[.transactions] == "page 2 failed: scroll to try again")
        let screen = screen(state)
        #expect(screen.contains("page 2 failed"), "the pane says a page failed:\n\(screen)")
        // Scrolling again tries that page again.
        let retry = try #require(Self.tasks(send(&state, [.up, .down])).first)
        #expect(retry.name.contains("page 2"))
        #expect(state.historyPaging.error == nil)
    }

    @Test func aFailedFirstPageFailsThePane() throws {
        var (state, first) = try filtered()
        let failure = DisplayError(summary: "Apple's server failed (HTTP 500, error 5000000).")
        _ = ConsoleReducer.reduce(&state, .nextPage(request: first.request, .failure(failure)))
        #expect(state.transactionsPane.error == failure)
        let screen = screen(state)
        #expect(screen.contains("HTTP 500"), "\(screen)")
    }

    @Test func aPageCutOffByEscapeIsAskedForAgain() throws {
        var (state, first) = try filtered()
        _ = ConsoleReducer.reduce(&state, .nextPage(request: first.request, Self.page(0..<20, next: "r1")))
        let second = try #require(Self.tasks(send(&state, [.end])).first)
        _ = send(&state, [.escape])
        #expect(state.historyPaging.pageRequest == nil)
        // Its late answer is dropped; the next scroll asks again.
        _ = ConsoleReducer.reduce(&state, .nextPage(request: second.request, Self.page(20..<40, next: nil)))
        #expect(ids(state).count == 20)
        #expect(Self.tasks(send(&state, [.up, .down])).count == 1)
    }

    @Test func theUnfilteredHistoryIsTheSummarysAndAsksForNoPages() throws {
        var state = ConsoleState(profileName: "p", environment: .production, isDemo: false, bundleId: "com.example", readOnly: false, themeName: "default")
        _ = send(&state, Self.anchor.map { .character($0) } + [.enter])
        _ = send(&state, [.escape, .character("5")])
        let effects = send(&state, [.character("r")])
        #expect(effects.contains { if case .task(let task) = $0 { task.name.hasPrefix("transaction history") } else { false } }, "r reloads the complete history: \(effects)")
        #expect(!Self.tasks(effects).contains { $0.name.hasPrefix("history page") }, "no page of a filtered history is asked for")
    }
}
