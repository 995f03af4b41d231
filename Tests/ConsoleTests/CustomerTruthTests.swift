import AppStoreServerAPI
@testable import Console
import DemoServer
@testable import DeskCore
import Foundation
import TerminalUI
import Testing

/// The screen shows one customer at a time, the one the field and the breadcrumb name: a lookup
/// that fails, answers that arrive late or fail, and pane switches never leave another customer's
/// purchases under that name.
@Suite(.serialized) struct CustomerTruthTests {
    /// Demo customers: two orders, a transaction, an order in its grace period.
    static let customers = ["MK5TTTVWJH", "8SAVFG75PQ", "2000000400000301", "RWPVUMZJWB"]
    /// IDs that name nobody: well-formed but unknown to Apple, and malformed.
    static let nobody = ["2000000499999999", "ZZZZ99ZZZZ", "café👍🏽", "MK5-TT", "12345"]
    /// Customer IDs as an agent may type them, with the receipt's label.
    static let labelled = ["Order ID: MK5TTTVWJH", "order 8SAVFG75PQ", "#2000000400000301"]

    static let networkFailure = DisplayError(summary: "Cannot reach Apple: connection refused.", hint: "Check the network, then r.")

    func lookUp(_ harness: ConsoleHarness, _ id: String) {
        if harness.state.focus != .paneInput { harness.send(.character("i")) }
        harness.send(.control("u"))
        harness.type(id)
        harness.send(.enter)
    }

    /// Every ID the customer's panes can show, from a settled lookup.
    static func ids(of customer: CustomerState) -> Set<String> {
        // Transaction IDs only: an order ID such as MK5TTTVWJH is also the example messages give.
        var ids: Set<String> = []
        if let anchor = customer.anchorId { ids.insert(anchor) }
        var transactions = customer.order.value?.transactions ?? []
        transactions += customer.history.value ?? []
        transactions += customer.refunds.value ?? []
        if let transaction = customer.transaction.value { transactions.append(transaction) }
        for row in customer.subscriptions.value ?? [] {
            ids.insert(row.originalTransactionId)
            if let transaction = row.transaction { transactions.append(transaction) }
        }
        for transaction in transactions {
            if let id = transaction.payload?.transactionId { ids.insert(id) }
            if let id = transaction.payload?.originalTransactionId { ids.insert(id) }
        }
        return ids
    }

    /// Each customer's IDs that no other test customer shares, by the ID it is looked up with.
    static func exclusiveIDs(_ harness: ConsoleHarness) async throws -> [String: Set<String>] {
        var all: [String: Set<String>] = [:]
        for id in customers {
            if harness.state.focus != .paneInput { harness.send(.character("i")) }
            harness.type(id)
            harness.send(.enter)
            try await harness.settle()
            let customer = try #require(harness.state.customer)
            #expect(customer.history.value?.isEmpty == false, "\(id) must have purchases to tell customers apart")
            all[id] = ids(of: customer)
        }
        var exclusive: [String: Set<String>] = [:]
        for (id, ids) in all {
            let others = all.filter { $0.key != id }.values.reduce(into: Set<String>()) { $0.formUnion($1) }
            exclusive[id] = ids.subtracting(others)
        }
        return exclusive
    }

    /// The test customer a query names, if any.
    static func named(by query: String, _ all: [String: Set<String>]) -> String? {
        let id: String
        switch IDKind.classify(query) {
        case .orderId(let order): id = order
        case .transactionId(let transaction): id = transaction
        case .appAccountToken(let token): id = token
        case .invalid: return nil
        }
        return all.first { $0.key == id || $0.value.contains(id) }?.key
    }

    /// The screen of every pane that shows the customer holds nothing of another one, and the field
    /// and the breadcrumb name the customer shown.
    func checkTruth(_ harness: ConsoleHarness, _ exclusive: [String: Set<String>], _ step: String) {
        let state = harness.state
        guard state.current.showsCustomer, state.overlay == nil else { return }
        let screen = harness.screen(width: 120, height: 36)
        let named = state.customer.flatMap { Self.named(by: $0.query, exclusive) }
        for (customer, ids) in exclusive where customer != named {
            for id in ids where screen.contains(id) {
                Issue.record("after \(step): \(customer)'s \(id) is on screen while \(state.customer?.query ?? "nobody") is named:\n\(screen)")
                return
            }
        }
        guard let customer = state.customer else { return }
        #expect(IDKind.classify(state.lookupInput.text) == IDKind.classify(customer.query), "after \(step): the field names another customer")
        let crumb = ConsoleView.breadcrumbs(state)
        #expect(crumb.count >= 2 && crumb[1].hasPrefix(customer.anchorId ?? customer.query), "after \(step): breadcrumb \(crumb)")
    }

    /// An answer as it would arrive had the network failed; nil for a page that never arrives.
    static func failed(_ action: ConsoleAction) -> ConsoleAction? {
        let error = networkFailure
        guard let (request, part) = action.customerPart else {
            if case .answer(_, let answer as TransactionsAnswer) = action, case .historySoFar = answer { return nil }
            return action
        }
        switch part {
        case .order: return .customer(request: request, .order(.failure(error)))
        case .transaction: return .customer(request: request, .transaction(.failure(error)))
        case .subscriptions: return .customer(request: request, .subscriptions(.failure(error)))
        case .refunds: return .customer(request: request, .refunds(.failure(error)))
        case .history: return .customer(request: request, .history(.failure(error)))
        case .notifications: return .customer(request: request, .notifications(.failure(error)))
        case .appTransaction: return .customer(request: request, .appTransaction(.failure(error)))
        case .historyPage: return nil
        case .accountLinks, .appTransactionFound: return action
        }
    }

    @Test(arguments: [11, 29, 47, 83, 131])
    func noStepShowsAnotherCustomersData(seed: UInt64) async throws {
        let harness = try await ConsoleHarness.start()
        defer { Task { await harness.stop() } }
        let exclusive = try await Self.exclusiveIDs(harness)
        #expect(exclusive.values.allSatisfy { !$0.isEmpty })
        var random = SeededGenerator(seed: seed)
        // Answers held back: slow, or for a lookup the agent has since left.
        var late: [ConsoleAction] = []
        // Requests whose answers were taken: they finish when those answers are delivered.
        var held = Set<Int>()
        func open() -> Set<Int> {
            (harness.state.customer?.requests ?? []).filter { harness.state.inFlight[$0] != nil && !held.contains($0) }
        }
        let lookups = Self.customers + Self.nobody + Self.labelled
        for index in 0..<30 {
            let step: String
            switch Int.random(in: 0..<10, using: &random) {
            case 0, 1:
                let id = lookups.randomElement(using: &random)!
                lookUp(harness, id)
                step = "looking up \(id)"
            case 2:
                try await harness.settle()
                step = "all answers"
            case 3:
                let requests = open()
                late += try await harness.holdAnswers(of: requests)
                held.formUnion(requests)
                step = "holding \(requests.count) answers"
            case 4:
                late.shuffle(using: &random)
                let count = Int.random(in: 0...late.count, using: &random)
                for action in late.prefix(count) { harness.receive(action) }
                late.removeFirst(count)
                step = "\(count) late answers"
            case 5:
                let requests = open()
                for action in try await harness.holdAnswers(of: requests) {
                    if let failed = Self.failed(action) { harness.receive(failed) }
                }
                step = "\(requests.count) requests failing"
            case 6:
                while harness.state.focus == .paneInput { harness.send(.escape) }
                let pane = Int.random(in: 1...5, using: &random)
                harness.send(.character(Character(String(pane))))
                step = "pane \(pane)"
            case 7:
                harness.send(.escape)
                step = "Esc"
            case 8:
                // An ID typed and left without Enter: the field must not name it over the customer shown.
                let id = lookups.randomElement(using: &random)!
                if harness.state.focus != .paneInput { harness.send(.character("i")) }
                harness.type(id)
                let leave: Key = Bool.random(using: &random) ? .tab : .escape
                harness.send(leave)
                while harness.state.focus == .paneInput { harness.send(.escape) }
                step = "typing \(id) and leaving with \(leave)"
            default:
                harness.tick()
                step = "a tick"
            }
            checkTruth(harness, exclusive, "step \(index), \(step) (seed \(seed))")
        }
        for action in late { harness.receive(action) }
        try await harness.settle()
        for pane in 1...5 {
            while harness.state.focus == .paneInput { harness.send(.escape) }
            harness.send(.character(Character(String(pane))))
            checkTruth(harness, exclusive, "the end, pane \(pane) (seed \(seed))")
        }
    }

    @Test func aFailedLookupClearsThePreviousCustomerAndSaysWhatFailed() async throws {
        let harness = try await ConsoleHarness.start()
        defer { Task { await harness.stop() } }
        let exclusive = try await Self.exclusiveIDs(harness)
        let shown = try #require(exclusive["MK5TTTVWJH"])
        for (id, says) in [("2000000499999999", "2000000499999999"), ("ZZZZ99ZZZZ", "ZZZZ99ZZZZ"), ("café👍🏽", "characters no ID has"), ("MK5TT", "6 to 20")] {
            lookUp(harness, "MK5TTTVWJH")
            try await harness.settle()
            lookUp(harness, id)
            try await harness.settle()
            for pane in 1...5 {
                while harness.state.focus == .paneInput { harness.send(.escape) }
                harness.send(.character(Character(String(pane))))
                let screen = harness.screen(width: 120, height: 36)
                #expect(!shown.contains { screen.contains($0) }, "\(id), pane \(pane): the previous customer is still on screen:\n\(screen)")
            }
            harness.send(.character("1"))
            let screen = harness.screen(width: 120, height: 36)
            #expect(screen.contains("✗"), "\(id): the summary says the lookup failed:\n\(screen)")
            #expect(screen.contains(says), "\(id): the summary says what failed:\n\(screen)")
            // What was typed, said as nothing read: not a customer whose data is "read just now".
            #expect(ConsoleView.breadcrumbs(harness.state).last == id.trimmingCharacters(in: .whitespaces) + " · nothing read")
        }
    }

    @Test func aNetworkFailureOfTheOrderLookupClearsThePreviousCustomer() async throws {
        let harness = try await ConsoleHarness.start()
        defer { Task { await harness.stop() } }
        lookUp(harness, "MK5TTTVWJH")
        try await harness.settle()
        lookUp(harness, "8SAVFG75PQ")
        let open = (harness.state.customer?.requests ?? []).filter { harness.state.inFlight[$0] != nil }
        for action in try await harness.holdAnswers(of: open) {
            if let failed = Self.failed(action) { harness.receive(failed) }
        }
        let screen = harness.screen(width: 120, height: 36)
        #expect(screen.contains("Cannot reach Apple"))
        #expect(!screen.contains("2000000400000044"))
        #expect(harness.state.customer?.subscriptions.error == Self.networkFailure)
    }

    @Test func aLookupThatFoundNothingGivesTheFieldBackSoTypingIsNeverACommand() async throws {
        let harness = try await ConsoleHarness.start()
        defer { Task { await harness.stop() } }
        lookUp(harness, "2000000499999999")
        try await harness.settle()
        #expect(harness.state.focus == .paneInput)
        #expect(harness.state.lookupInput.isSelected)
        // A hurried agent types the next ID at once: it replaces the old one, no key is a command.
        harness.type("abc")
        #expect(harness.state.focus == .paneInput)
        #expect(harness.state.lookupInput.text == "abc")
        #expect(harness.effects.allSatisfy { if case .task(let task) = $0 { return !task.name.hasPrefix("add a note") } else { return true } })
        // Esc leaves the field; a note about nobody is refused.
        harness.send(.control("u"))
        harness.send(.escape)
        harness.send(.character("a"))
        #expect(harness.state.focus == .content)
        #expect(harness.state.toasts.last?.text.contains("a note needs a customer") == true)
    }

    @Test func everyPrintableKeyIsTextInTheLookupField() async throws {
        let harness = try await ConsoleHarness.start()
        defer { Task { await harness.stop() } }
        harness.type("Order ID: MK5TTTVWJH")
        #expect(harness.state.focus == .paneInput)
        #expect(harness.state.lookupInput.text == "Order ID: MK5TTTVWJH")
        harness.send(.enter)
        try await harness.settle()
        #expect(harness.state.customer?.order.value?.orderId == "MK5TTTVWJH")
        #expect(harness.state.customer?.anchorId == "2000000400000044")

        harness.send(.character("i"))
        harness.type(":/?q!")
        #expect(harness.state.focus == .paneInput)
        #expect(harness.state.overlay == nil)
        #expect(!harness.state.shouldQuit)
        #expect(harness.state.lookupInput.text == ":/?q!")
        // The footer says the field's own keys; help is F1 from here.
        let footer = ConsoleView.footerHints(harness.state).map(\.key)
        #expect(footer.contains("Enter") && footer.contains("Esc") && footer.contains("Ctrl-U") && footer.contains("F1"))
        harness.send(.function(1))
        #expect(harness.state.overlay == .help)
    }
}
