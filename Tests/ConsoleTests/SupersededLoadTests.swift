import AppStoreServerAPI
@testable import Console
@testable import DeskCore
import Foundation
import TerminalUI
import Testing

/// A pane asked again (another range, filter or sort, or `r`) shows only the answer to what it
/// asked last, whatever order the answers of earlier requests arrive in.
@Suite struct SupersededLoadTests {
    static let anchor = "2000000400000044"

    func fresh() -> ConsoleState {
        ConsoleState(profileName: "p", environment: .production, isDemo: false, bundleId: "com.example", readOnly: false, themeName: "default")
    }

    func send(_ state: inout ConsoleState, _ keys: [Key]) -> [ConsoleEffect] {
        keys.flatMap { ConsoleReducer.reduce(&state, .key($0)) }
    }

    func command(_ state: inout ConsoleState, _ text: String) -> [ConsoleEffect] {
        send(&state, [.character(":")] + text.map { .character($0) } + [.enter])
    }

    func cancelled(_ effects: [ConsoleEffect]) -> [Int] {
        effects.compactMap { if case .cancel(let request) = $0 { request } else { nil } }
    }

    // MARK: Notifications

    /// One distinct row a range, so the rows tell which answer they came from.
    func notificationRows(since: TimeInterval) -> [NotificationRow] {
        var payload = NotificationPayload()
        payload.notificationType = .didRenew
        payload.notificationUUID = "since-\(Int(since))"
        let notification = VerifiedPayload(payload: payload, rawPayload: nil, header: nil, status: .verified, chainSubjects: [])
        let row = NotificationRow(
            decoded: DecodedNotification(notification: notification, transaction: nil, renewalInfo: nil, appTransaction: nil), signedPayload: "", attempts: [])
        return Array(repeating: row, count: Int(since / 86_400) % 50 + 1)
    }

    /// The notification history loads `effects` start, with the span the pane asked for (one load
    /// an action at most, so the pane's latest spec is its).
    func loads(_ effects: [ConsoleEffect], _ state: ConsoleState) -> [(request: Int, since: TimeInterval)] {
        effects.compactMap { effect in
            guard case .task(let task) = effect, task.name.hasPrefix("notification history"),
                  let spec = state.models[NotificationsModel.self].spec else { return nil }
            return (task.request, spec.since)
        }
    }

    @Test func quickRangeChangesShowTheRowsOfTheRangeShown() throws {
        var state = fresh()
        var asked = loads(send(&state, [.escape, .character("6")]), state)
        // d pressed three times before any answer: 30 days, the retention, 1 day.
        var effects: [ConsoleEffect] = []
        for _ in 0..<3 {
            let pressed = send(&state, [.character("d")])
            effects += pressed
            asked += loads(pressed, state)
        }
        #expect(asked.count == 4)
        let last = try #require(asked.last)
        #expect(state.notificationFilters.since == last.since)
        #expect(Set(cancelled(effects)) == Set(asked.dropLast().map(\.request)), "the earlier loads are stopped")

        // The last answer comes first, the earlier ones after it, pages and all.
        for load in asked.reversed() {
            _ = ConsoleReducer.reduce(&state, .notificationsPage(request: load.request, notificationRows(since: load.since), pages: 1))
            _ = ConsoleReducer.reduce(&state, .paneNotifications(request: load.request, .success(notificationRows(since: load.since))))
        }
        let uuids = Set((state.notificationsPane.value ?? []).map { $0.payload?.notificationUUID })
        #expect(uuids == ["since-\(Int(last.since))"])
        #expect(state.notificationsPane.value?.count == notificationRows(since: last.since).count)
        #expect(state.notificationFilters.since == last.since)
        #expect(state.partialNote[.notifications] == nil)
    }

    @Test func aLateAnswerOfAnEarlierFilterDoesNotReplaceTheRows() throws {
        var state = fresh()
        let first = try #require(loads(send(&state, [.escape, .character("6")]), state).first)
        let second = try #require(loads(send(&state, [.character("f")]), state).first)
        _ = ConsoleReducer.reduce(&state, .paneNotifications(request: second.request, .success([])))
        #expect(state.notificationsPane.value?.isEmpty == true)
        // The unfiltered history arrives last: it is not what the pane asks for now.
        _ = ConsoleReducer.reduce(&state, .notificationsPage(request: first.request, notificationRows(since: first.since), pages: 1))
        _ = ConsoleReducer.reduce(&state, .paneNotifications(request: first.request, .success(notificationRows(since: first.since))))
        #expect(state.notificationsPane.value?.isEmpty == true)
        #expect(state.notificationFilters.onlyFailures)
    }

    // MARK: Transactions

    static func transactions(_ range: Range<Int>) -> [VerifiedTransaction] {
        range.map { index in
            var payload = TransactionPayload()
            payload.transactionId = String(2_000_000_400_000_100 + index)
            return VerifiedPayload(payload: payload, rawPayload: nil, header: nil, status: .verified, chainSubjects: [])
        }
    }

    func ids(_ state: ConsoleState) -> [String] {
        (state.transactionsPane.value ?? []).compactMap { $0.payload?.transactionId }
    }

    /// A customer looked up, on the Transactions pane; the customer's load request.
    func customerOnTransactions() throws -> (ConsoleState, Int) {
        var state = fresh()
        let effects = send(&state, Self.anchor.map { .character($0) } + [.enter, .character("5")])
        let load = try #require(effects.task(named: "customer")?.request)
        return (state, load)
    }

    func firstTask(_ effects: [ConsoleEffect]) throws -> Int {
        try #require(effects.compactMap { if case .task(let task) = $0 { task.request } else { nil } }.first, "\(effects)")
    }

    func historyLoad(_ effects: [ConsoleEffect]) throws -> Int {
        try #require(effects.task(named: "transaction history")?.request, "\(effects)")
    }

    @Test func theCustomersHistoryArrivingAfterAFilterDoesNotReplaceTheFilteredRows() throws {
        var (state, customer) = try customerOnTransactions()
        let page = try firstTask(command(&state, "sort asc"))
        // The summary's complete history comes in after the filter was asked for.
        _ = ConsoleReducer.reduce(&state, .historyPage(request: customer, Self.transactions(0..<20), pages: 1))
        _ = ConsoleReducer.reduce(&state, .customer(request: customer, .history(.success(Self.transactions(0..<30)))))
        #expect(state.customer?.history.value?.count == 30, "the summary still gets its history")
        #expect(state.transactionsPane.isLoading, "the pane waits for the filtered page")
        _ = ConsoleReducer.reduce(&state, .nextPage(request: page, .success(
            HistoryPageAnswer(rows: Self.transactions(100..<105), nextRevision: nil))))
        #expect(ids(state) == Self.transactions(100..<105).compactMap { $0.payload?.transactionId })
    }

    @Test func anEarlierUnfilteredLoadArrivingLateIsDropped() throws {
        var (state, customer) = try customerOnTransactions()
        _ = ConsoleReducer.reduce(&state, .customer(request: customer, .history(.success(Self.transactions(0..<30)))))
        // :sort asc, then :clear, then :sort asc again, before any answer.
        let firstPage = try firstTask(command(&state, "sort asc"))
        let clearEffects = command(&state, "clear")
        let unfiltered = try historyLoad(clearEffects)
        #expect(cancelled(clearEffects) == [firstPage])
        let againEffects = command(&state, "sort asc")
        let secondPage = try firstTask(againEffects)
        #expect(cancelled(againEffects) == [unfiltered])

        _ = ConsoleReducer.reduce(&state, .nextPage(request: secondPage, .success(
            HistoryPageAnswer(rows: Self.transactions(200..<210), nextRevision: nil))))
        _ = ConsoleReducer.reduce(&state, .historyPage(request: unfiltered, Self.transactions(0..<20), pages: 1))
        _ = ConsoleReducer.reduce(&state, .paneHistory(request: unfiltered, .success(Self.transactions(0..<30))))
        _ = ConsoleReducer.reduce(&state, .nextPage(request: firstPage, .success(
            HistoryPageAnswer(rows: Self.transactions(100..<110), nextRevision: "more"))))
        #expect(ids(state) == Self.transactions(200..<210).compactMap { $0.payload?.transactionId })
        #expect(state.historyPaging.hasMore == false)
        #expect(state.partialNote[.transactions] == nil)
    }

    @Test func refreshTwiceShowsTheSecondAnswer() throws {
        var (state, customer) = try customerOnTransactions()
        _ = ConsoleReducer.reduce(&state, .customer(request: customer, .history(.success(Self.transactions(0..<30)))))
        let first = try historyLoad(send(&state, [.character("r")]))
        let secondEffects = send(&state, [.character("r")])
        let second = try historyLoad(secondEffects)
        #expect(cancelled(secondEffects) == [first])
        _ = ConsoleReducer.reduce(&state, .paneHistory(request: second, .success(Self.transactions(0..<31))))
        _ = ConsoleReducer.reduce(&state, .paneHistory(request: first, .success(Self.transactions(0..<29))))
        #expect(ids(state).count == 31)
    }

    // MARK: Inspector

    @Test func theInspectorShowsTheReportOfTheLastPaste() throws {
        var state = fresh()
        _ = send(&state, [.escape, .character("7")])
        let first = try firstTask(send(&state, [.paste("eyJhbGciOiJFUzI1NiJ9.e30.Zmlyc3Q")]))
        let secondEffects = send(&state, [.paste("eyJhbGciOiJFUzI1NiJ9.e30.c2Vjb25k")])
        let second = try firstTask(secondEffects)
        #expect(cancelled(secondEffects) == [first])
        _ = ConsoleReducer.reduce(&state, .answer(request: second, InspectorAnswer.report(InspectionReport(items: [], problem: "second"))))
        _ = ConsoleReducer.reduce(&state, .answer(request: first, InspectorAnswer.report(InspectionReport(items: [], problem: "first"))))
        #expect(state.inspected.value?.report?.problem == "second")
    }
}
