import AppStoreServerAPI
@testable import Console
import DemoServer
@testable import DeskCore
import Foundation
import TerminalUI
import Testing

/// Answers that arrive after the agent has moved on to another customer must not land on screen,
/// and a write can only go to the customer the screen shows.
@Suite(.serialized) struct StaleAnswerTests {
    /// Order MK5TTTVWJH: active subscription 2000000400000044. Order 8SAVFG75PQ: consumables and refunds,
    /// original transaction 2000000400002107.
    static let first = (order: "MK5TTTVWJH", original: "2000000400000044")
    static let second = (order: "8SAVFG75PQ", original: "2000000400002107")

    func lookUp(_ harness: ConsoleHarness, _ id: String) {
        // The lookup field has focus at start; later, i brings it back with its text selected.
        if harness.state.focus != .paneInput { harness.send(.character("i")) }
        harness.type(id)
        harness.send(.enter)
    }

    /// Original transaction IDs of everything the panes show.
    func shownOriginals(_ state: ConsoleState) -> Set<String> {
        var ids = Set<String>()
        for transaction in state.customer?.order.value?.transactions ?? [] { ids.insert(transaction.payload?.originalTransactionId ?? "?") }
        for transaction in state.customer?.refunds.value ?? [] { ids.insert(transaction.payload?.originalTransactionId ?? "?") }
        for transaction in state.customer?.history.value ?? [] { ids.insert(transaction.payload?.originalTransactionId ?? "?") }
        for transaction in state.transactionsPane.value ?? [] { ids.insert(transaction.payload?.originalTransactionId ?? "?") }
        return ids
    }

    @Test func lateOrderAnswerOfAnEarlierLookupIsDropped() async throws {
        let harness = try await ConsoleHarness.start()
        defer { Task { await harness.stop() } }
        lookUp(harness, Self.first.order)
        let firstRequests = try #require(harness.state.customer?.requests)
        // The first order's answer is on its way while the agent types the second one.
        let late = try await harness.holdAnswers(of: firstRequests)
        #expect(late.contains { if case .order? = $0.customerPart?.part { return true } else { return false } })

        lookUp(harness, Self.second.order)
        try await harness.settle()
        let settled = harness.state.customer
        for action in late { harness.receive(action) }
        try await harness.settle()

        let state = harness.state
        #expect(state.customer?.query == Self.second.order)
        #expect(state.customer?.lookup == settled?.lookup)
        #expect(state.customer?.order.value?.orderId == Self.second.order)
        #expect(state.customer?.anchorId == Self.second.original)
        #expect(!shownOriginals(state).contains(Self.first.original), "the first customer's purchases must not appear")
        #expect(harness.effects.filter {
            if case .task(let task) = $0 { return task.name == "customer \(Self.first.original)" } else { return false }
        }.isEmpty, "the late order answer must not start loading the first customer")
        let screen = harness.screen(width: 120, height: 36)
        #expect(!screen.contains(Self.first.order))
        #expect(!screen.contains(Self.first.original))
    }

    @Test func lateCustomerAnswersAreDroppedAndTheExtensionTargetsTheShownCustomer() async throws {
        let harness = try await ConsoleHarness.start()
        defer { Task { await harness.stop() } }
        lookUp(harness, Self.first.order)
        // The order answer lands; the customer's subscriptions, refunds and history are still on their way.
        let orderRequests = try #require(harness.state.customer?.requests)
        for action in try await harness.holdAnswers(of: orderRequests) { harness.receive(action) }
        let customerRequests = try #require(harness.state.customer?.requests).subtracting(orderRequests)
        #expect(!customerRequests.isEmpty)
        let late = try await harness.holdAnswers(of: customerRequests)
        #expect(late.contains { if case .subscriptions(.success(let rows))? = $0.customerPart?.part { return !rows.isEmpty } else { return false } })

        // The second customer (by transaction ID) is looked up and answered before the first's answers arrive.
        lookUp(harness, "2000000400000301")
        try await harness.settle()
        for action in late { harness.receive(action) }

        let state = harness.state
        #expect(state.customer?.query == "2000000400000301")
        let subscriptions = try #require(state.customer?.subscriptions.value)
        #expect(subscriptions.map(\.originalTransactionId) == ["2000000400000301"])
        #expect(!shownOriginals(state).contains(Self.first.original))

        // e opens the form for the subscription on screen, and the confirmation names it.
        harness.send(.character("4"))
        harness.send(.character("e"))
        try await harness.settle()
        let form = try #require(harness.state.extendForm)
        #expect(form.originalTransactionId == "2000000400000301")
        #expect(form.subject == "original transaction 2000000400000301")
        #expect(form.customerLookup == state.customer?.lookup)
    }

    @Test func failedRequestsSayTheyFailedNeverNone() async throws {
        let harness = try await ConsoleHarness.start()
        defer { Task { await harness.stop() } }
        lookUp(harness, Self.second.original)
        let requests = try #require(harness.state.customer?.requests)
        // Every answer for this customer failed (a 500 from Apple, say).
        let failure = DisplayError(summary: "Apple's server failed (HTTP 500, error 5000000).", hint: "Try again in a moment.")
        for action in try await harness.holdAnswers(of: requests) {
            switch action.customerPart {
            case (let request, .refunds)?: harness.receive(.customer(request: request, .refunds(.failure(failure))))
            case (let request, .subscriptions)?: harness.receive(.customer(request: request, .subscriptions(.failure(failure))))
            case (let request, .history)?: harness.receive(.customer(request: request, .history(.failure(failure))))
            default: harness.receive(action)
            }
        }
        let state = harness.state
        #expect(state.customer?.refunds.error == failure)
        #expect(state.customer?.subscriptions.error == failure)
        #expect(state.transactionsPane.error == failure)
        for (key, pane) in [("2", "Order"), ("3", "Refunds"), ("4", "Subscriptions"), ("5", "Transactions")] where pane != "Order" {
            harness.send(.character(Character(key)))
            let screen = harness.screen(width: 120, height: 36)
            #expect(screen.contains("HTTP 500"), "\(pane) must say its request failed:\n\(screen)")
            #expect(!screen.contains("No refunds"), "\(pane) must not claim there are none")
            #expect(!screen.lowercased().contains("no auto-renewable"), "\(pane) must not claim there are none")
        }
        // The customer summary says the same.
        harness.send(.character("1"))
        let summary = harness.screen(width: 120, height: 36)
        #expect(summary.contains("HTTP 500"))
        #expect(!summary.contains("No refunds"))
    }
}

/// Long pagings fill their pane as pages arrive, say how far they are, and Esc keeps what arrived.
@Suite(.serialized) struct PagingProgressTests {
    @Test func escapeKeepsThePagesThatArrived() async throws {
        var faults = DemoFaults()
        faults.latency = 0.1
        let harness = try await ConsoleHarness.start(faults: faults)
        defer { Task { await harness.stop() } }
        // LAHP48FCVE: 517 transactions, 26 pages.
        harness.type("2000000400003628")
        harness.send(.enter)
        try await harness.pump(until: { ($0.transactionsPane.value?.count ?? 0) >= 40 })
        #expect(harness.state.partialNote[.transactions]?.hasPrefix("first ") == true)
        harness.send(.character("5"))
        let loading = harness.screen(width: 120, height: 36)
        #expect(loading.contains("Transactions · first "), "\(loading)")
        #expect(loading.contains("transactions so far"), "the status line counts pages and records:\n\(loading)")

        harness.send(.escape)
        try await harness.settle()
        let kept = try #require(harness.state.transactionsPane.value)
        #expect(kept.count >= 40 && kept.count < 517)
        #expect(harness.state.partialNote[.transactions] == "stopped after \(kept.count): incomplete, r loads all")
        #expect(harness.screen(width: 120, height: 36).contains("incomplete, r loads all"))

        // r loads it all again; the note goes once the last page is in.
        harness.send(.character("r"))
        try await harness.settle()
        #expect(harness.state.transactionsPane.value?.count == 517)
        #expect(harness.state.partialNote[.transactions] == nil)
    }
}
