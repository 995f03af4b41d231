import AppStoreServerAPI
@testable import Console
import DemoServer
@testable import DeskCore
import Foundation
import TerminalUI
import Testing

/// The refund-request queue (pane 0) against the demo server, and the answer form from the queue
/// and from a customer's transaction: Apple's rules refuse locally, a confirmed answer goes
/// through the audit ledger once.
@Suite(.serialized) struct RefundRequestsPaneTests {
    /// Opens the queue without a customer and waits for it; the clock is set from the requests so
    /// the time left reads the same on every run.
    func openQueue(_ harness: ConsoleHarness) async throws -> [RefundRequest] {
        harness.send(.escape)
        harness.send(.character("0"))
        #expect(harness.state.pane == .refundRequests)
        try await harness.settle()
        let queue = try #require(harness.state.refundRequests.queue)
        let soonest = try #require(queue.requests.filter { $0.state(now: harness.state.now) == .pending }.min { $0.deadline < $1.deadline })
        harness.state.now = soonest.deadline.addingTimeInterval(-(19 * 60 + 30))
        harness.state.refundRequests.queue?.readAt = harness.state.now
        return queue.requests
    }

    func answers(_ harness: ConsoleHarness) -> [ConsumptionTarget] {
        harness.effects.compactMap { effect -> ConsumptionTarget? in
            if case .answerConsumption(_, let target) = effect { return target } else { return nil }
        }
    }

    @Test func withAPolicyThePaneSaysWhatItDoesBeforeItActs() async throws {
        let harness = try await ConsoleHarness.start()
        defer { Task { await harness.stop() } }
        harness.state.refundPolicy = try RefundPolicy.parse(
            """
            consent = "app-terms"
            refund_preference = "grant-prorated"
            [[rule]]
            product = "*.coins.1000"
            refund_preference = "decline"
            """, name: "team.toml")
        let requests = try await openQueue(harness)
        let now = harness.state.now
        let queue = try #require(harness.state.refundRequests.queue)
        let pending = requests.filter { $0.state(now: now) == .pending }
        #expect(!pending.isEmpty)
        for request in pending {
            let decision = try #require(queue.policyDecisions[request.notificationUUID])
            let expected = request.productId?.hasSuffix(".coins.1000") == true ? "prefer to decline" : "prorated"
            #expect(decision.summary.contains(expected), "\(request.productId ?? "-"): \(decision.summary)")
        }
        // The selected pending request says it in the line under the table, before any receiver acts.
        let screen = harness.screen(width: 120, height: 36)
        #expect(screen.contains("team.toml: answer:"), "\(screen)")
        // Without a policy nothing is said.
        harness.state.refundPolicy = nil
        #expect(!harness.screen(width: 120, height: 36).contains("policy team.toml"))
    }

    /// The customer summary says Apple asked about a refund, and once the queue was read whether
    /// it is waiting for an answer, answered or decided.
    @Test func theSummarySaysWhenAppleAskedAboutARefund() async throws {
        let harness = try await ConsoleHarness.start()
        defer { Task { await harness.stop() } }
        harness.send(.character("i"))
        harness.type("8SAVFG75PQ")
        harness.send(.enter)
        try await harness.settle()
        var screen = harness.screen(width: 120, height: 60)
        #expect(screen.contains("refund asked"), "\(screen)")
        #expect(screen.contains("declined by Apple"))
        // The queue is read with the customer: each request is then said in pane 0's words.
        try await harness.pump(until: { $0.refundRequests.queue != nil })
        screen = harness.screen(width: 120, height: 60)
        #expect(!screen.contains("answered?"), "\(screen)")
        // The summary shows the newest three.
        let sightings = harness.state.customer?.notifications.value?.compactMap(RefundRequests.Sighting.init) ?? []
        let asked = Set(RefundRequests.merge(sightings, writes: []).prefix(3).map(\.notificationUUID))
        let known = harness.state.refundRequests.queue?.requests.filter { asked.contains($0.notificationUUID) } ?? []
        #expect(!known.isEmpty)
        for request in known where request.state(now: harness.state.now) != .pending {
            #expect(screen.contains(RefundRequestsView.stateText(request, now: harness.state.now)), "\(screen)")
        }
        _ = try await openQueue(harness)
        harness.send(.character("1"))
        screen = harness.screen(width: 120, height: 60)
        #expect(screen.contains("waiting for an answer"), "\(screen)")
        #expect(!screen.contains("answered? pane 0"))
        // i in the field that still holds the ID looked up starts a new lookup: no i in front of the next ID.
        harness.send(.character("i"))
        harness.send(.character("i"))
        harness.type("MK5TTTVWJH")
        #expect(harness.state.lookupInput.text == "MK5TTTVWJH")
    }

    /// Pane 0 opened while the summary's read of the queue runs waits for that read, said as in flight.
    @Test func pane0OpenedDuringTheSummarysReadWaitsForIt() async throws {
        let harness = try await ConsoleHarness.start()
        defer { Task { await harness.stop() } }
        harness.send(.character("i"))
        harness.type("8SAVFG75PQ")
        harness.send(.enter)
        try await harness.pump(until: { $0.refundRequests.request != nil })
        let running = try #require(harness.state.refundRequests.request)
        #expect(harness.state.inFlight[running] == nil, "read in the background while the summary shows")
        harness.send(.escape)
        harness.send(.character("0"))
        #expect(harness.state.inFlight[running] == "Refund requests")
        #expect(harness.state.refundRequests.request == running, "no second read")
        try await harness.settle()
        #expect(harness.state.refundRequests.queue?.requests.isEmpty == false)
    }

    @Test func theQueueLoadsWithoutACustomerAndTellsEveryState() async throws {
        let harness = try await ConsoleHarness.start()
        defer { Task { await harness.stop() } }
        let requests = try await openQueue(harness)
        let now = harness.state.now
        #expect(harness.state.customer == nil)
        #expect(Set(requests.map { $0.state(now: now) }).isSuperset(of: [.pending, .refunded, .declined]))
        // Pending first, the least time left on top, coloured as urgent (under 1 h) or not (11 h).
        let rows = RefundRequestsPane.rows(harness.state)
        #expect(rows.prefix(2).allSatisfy { $0.state(now: now) == .pending })
        #expect(RefundRequestsView.urgency(rows[0], now: now) == .error)
        #expect(RefundRequestsView.timeLeft(rows[0], now: now) == "19 min")
        #expect(RefundRequestsView.urgency(rows[1], now: now) == nil)
        let screen = harness.screen(width: 80, height: 24)
        #expect(screen.contains("0 Asks"), "the tab says its key")
        #expect(screen.contains("3 waiting for an answer"), "\(screen)")
        #expect(screen.contains("declined by A"), "\(screen)")
        #expect(screen.contains("Unsatisfied with purchase"), "the selected request is told in full: \(screen)")
        ScreenSnapshotTests().check(harness, "refund-requests")
        // f: pending only.
        harness.send(.character("f"))
        #expect(RefundRequestsPane.rows(harness.state).allSatisfy { $0.state(now: now) == .pending })
        // Enter opens the customer Apple asked about.
        harness.send(.enter)
        try await harness.settle()
        #expect(harness.state.customer?.query == rows[0].transactionId)
        #expect(harness.state.pane == .customer)
        // Tiny terminals draw without crashing.
        harness.send(.character("0"))
        for (width, height) in [(40, 12), (20, 6), (1, 1)] { _ = harness.screen(width: width, height: height) }
    }

    @Test func anAnswerFromTheQueueIsConfirmedAsSentAndLedgeredOnce() async throws {
        let harness = try await ConsoleHarness.start()
        defer { Task { await harness.stop() } }
        _ = try await openQueue(harness)
        let request = try #require(RefundRequestsPane.rows(harness.state).first)
        harness.send(.character("a"))
        #expect(harness.state.overlay == .consumption)
        ScreenSnapshotTests().check(harness, "refund-answer-form", sizes: [(80, 24)])
        // Without consent Enter refuses with Apple's code, and nothing is sent.
        harness.send(.enter)
        #expect(harness.state.consumptionForm?.refusals.map(\.rule) == [.noConsent])
        #expect(harness.screen(width: 80, height: 24).contains("4000035"))
        #expect(answers(harness).isEmpty)
        // The consent line, then the share typed: 30 %.
        for _ in 0..<4 { harness.send(.down) }
        harness.send(.character(" "))
        #expect(harness.state.consumptionForm?.answer.customerConsented == true)
        for _ in 0..<3 { harness.send(.up) }
        harness.type("30")
        harness.send(.enter)
        let form = try #require(harness.state.consumptionForm)
        #expect(form.confirming, "\(form.refusals)")
        let screen = harness.screen(width: 80, height: 24)
        #expect(screen.contains("PUT /inApps/v2/transactions/consumption/\(request.transactionId ?? "")"), "\(screen)")
        #expect(screen.contains(#""consumptionPercentage":30000"#), "the body as it is sent: \(screen)")
        ScreenSnapshotTests().check(harness, "refund-answer-confirm", sizes: [(80, 24)])
        harness.send(.enter)
        try await harness.settle()
        #expect(answers(harness).count == 1)
        let lines = try await harness.writes.ledger.entries().filter { $0.write == WriteKind.consumption.rawValue }
        #expect(lines.map(\.event) == [.intent, .outcome])
        #expect(lines.last?.outcome == .applied)
        #expect(lines.first?.body?.contains(#""customerConsented":true"#) == true)
        // The queue was read again: answered, by this agent, and not answerable twice.
        let answered = try #require(harness.state.refundRequests.queue?.requests.first { $0.notificationUUID == request.notificationUUID })
        #expect(answered.state(now: harness.state.now) == .answered)
        #expect(answered.answer?.agent == "test")
        guard case .refused(let refusal) = ConsumptionRules.requestState(
            request.transactionId ?? "", requests: harness.state.refundRequests.queue?.requests ?? [], now: harness.state.now)
        else {
            Issue.record("an answered request is answerable again")
            return
        }
        #expect(refusal.rule == .alreadyAnswered)
        #expect(PaneRows.selected(RefundRequestsPane.rows(harness.state), harness.state, .refundRequests)?.notificationUUID != request.notificationUUID
            || ActionRegistry.all.first { $0.id == .refundRequestsAnswer }?.unavailableReason(harness.state) != nil)
    }

    @Test func aTransactionAppleDidNotAskAboutIsRefusedFromTheTransactionsPane() async throws {
        let harness = try await ConsoleHarness.start()
        defer { Task { await harness.stop() } }
        harness.type("MK5TTTVWJH")
        harness.send(.enter)
        try await harness.settle()
        harness.send(.character("5"))
        harness.send(.character("c"))
        #expect(harness.state.overlay == .consumption)
        #expect(harness.state.consumptionForm?.readingQueue == true, "the requests are read first, for the deadline")
        try await harness.settle()
        let form = try #require(harness.state.consumptionForm)
        #expect(form.request == nil)
        #expect(form.refusals.map(\.rule) == [.notRequested])
        for _ in 0..<4 { harness.send(.down) }
        harness.send(.character(" "))
        harness.send(.enter)
        #expect(harness.state.consumptionForm?.confirming == false)
        #expect(harness.state.consumptionForm?.refusals.map(\.rule) == [.notRequested])
        #expect(harness.screen(width: 80, height: 24).contains("Apple has not asked"))
        #expect(answers(harness).isEmpty)
        #expect(try await harness.writes.ledger.entries().isEmpty, "nothing reached the ledger, so nothing reached Apple")
    }

    @Test func aReadOnlyProfileAnswersNothing() async throws {
        let harness = try await ConsoleHarness.start(readOnly: true)
        defer { Task { await harness.stop() } }
        _ = try await openQueue(harness)
        harness.send(.character("a"))
        #expect(harness.state.overlay == nil)
        #expect(harness.state.consumptionForm == nil)
    }
}
