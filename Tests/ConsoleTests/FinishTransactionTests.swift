import AppStoreServerAPI
@testable import Console
import DemoServer
@testable import DeskCore
import Foundation
import TerminalUI
import Testing

/// Finish Transaction from the Transactions pane: `f`, a confirmation showing the exact request and
/// the account, then the write through the audit ledger; refused on read-only profiles and for
/// transactions the App Store cannot finish.
@Suite struct FinishTransactionTests {
    static let transactionId = "2000000400000171"

    func state(readOnly: Bool = false, rows: [VerifiedTransaction]? = nil) -> ConsoleState {
        var state = ConsoleState(profileName: "support", environment: .production, isDemo: false, bundleId: "com.example", readOnly: readOnly, themeName: "default")
        var customer = CustomerState(query: "MK5TTTVWJH", lookup: 3)
        customer.anchorId = "2000000400000044"
        customer.environment = .production
        state.customer = customer
        state.transactionsPane = .loaded(rows ?? [Self.row()])
        state.pane = .transactions
        state.focus = .content
        state.screenWidth = 100
        state.screenHeight = 30
        return state
    }

    static func row(_ status: VerificationStatus = .verified, environment: AppStoreEnvironment = .production) -> VerifiedTransaction {
        var t = TransactionPayload()
        t.transactionId = transactionId
        t.originalTransactionId = "2000000400000044"
        t.productId = "com.iapdesk.demo.coins.100"
        t.type = .consumable
        t.environment = environment
        t.purchaseDate = Date(timeIntervalSince1970: 1_790_000_000)
        return VerifiedPayload(payload: t, rawPayload: nil, header: nil, status: status, chainSubjects: [])
    }

    func press(_ state: inout ConsoleState, _ keys: Key...) -> [ConsoleEffect] {
        keys.flatMap { ConsoleReducer.reduce(&state, .key($0)) }
    }

    func screen(_ state: ConsoleState) -> String {
        let backend = HeadlessBackend(width: state.screenWidth, height: state.screenHeight)
        Terminal(backend: backend).draw { area, buffer in ConsoleView.render(state, theme: .fallback, area: area, buffer: &buffer) }
        return backend.text
    }

    @Test func finishNeedsConfirmationThatShowsTheRequestAndAccountThenSendsIt() throws {
        var state = state()
        #expect(press(&state, .character("f")).isEmpty, "nothing is sent before the confirmation")
        #expect(state.overlay == .finishTransaction)
        let shown = screen(state)
        #expect(shown.contains("Confirm Finish Transaction"))
        #expect(shown.contains("POST /inApps/v1/transactions/\(Self.transactionId)/finish"), "\(shown)")
        #expect(shown.contains("profile support · Production · com.example"))
        #expect(shown.contains("com.iapdesk.demo.coins.100 · Consumable"))
        #expect(shown.contains("(order MK5TTTVWJH)"))

        let effects = press(&state, .enter)
        guard case .finishTransaction(let request, let target)? = effects.first, effects.count == 1 else {
            Issue.record("expected the write, got \(effects)")
            return
        }
        #expect(target.transactionId == Self.transactionId)
        #expect(target.environment == .production)
        #expect(target.endpoint.method == "POST" && target.endpoint.path == "/inApps/v1/transactions/\(Self.transactionId)/finish")
        #expect(target.endpoint.body == nil)
        #expect(target.subject == "transaction \(Self.transactionId), original transaction 2000000400000044 (order MK5TTTVWJH)")
        #expect(state.overlay == nil)
        #expect(state.inFlight[request] != nil)

        // Esc does not cut off a write already sent, and q does not leave it unseen.
        #expect(!press(&state, .escape).contains(.cancel(request: request)))
        #expect(state.toasts.last?.text.contains("A Finish Transaction already sent cannot be stopped") == true)
        _ = press(&state, .character("q"))
        #expect(!state.shouldQuit)

        _ = ConsoleReducer.reduce(&state, .transactionFinished(request: request, .applied(NoContent())))
        #expect(state.finishesInFlight.isEmpty && state.inFlight[request] == nil)
        #expect(state.toasts.last?.text == "Finished: Apple now knows the content of transaction \(Self.transactionId) (com.iapdesk.demo.coins.100) was delivered.")
        #expect(state.lastError == nil)
    }

    @Test func escapeOrNClosesTheConfirmationWithoutSending() {
        var state = state()
        _ = press(&state, .character("f"))
        #expect(press(&state, .character("n")).isEmpty)
        #expect(state.overlay == nil && state.finishConfirmation == nil)
        _ = press(&state, .character("f"))
        #expect(press(&state, .escape).isEmpty)
        #expect(state.overlay == nil)
        #expect(state.finishesInFlight.isEmpty)
    }

    @Test func readOnlyProfilesRefuseWithTheReason() {
        var state = state(readOnly: true)
        #expect(press(&state, .character("f")).isEmpty)
        #expect(state.overlay == nil)
        #expect(state.toasts.last?.text == "Read-only profile support: finish transaction is disabled.")
    }

    @Test func transactionsTheAppStoreCannotFinishAreRefusedWithWhy() {
        var unverified = state(rows: [Self.row(.failed(.invalidSignature))])
        #expect(press(&unverified, .character("f")).isEmpty)
        #expect(unverified.overlay == nil)
        #expect(unverified.toasts.last?.text.hasPrefix("Not finishable: its signature did not verify") == true)

        var local = state(rows: [Self.row(environment: .xcode)])
        #expect(press(&local, .character("f")).isEmpty)
        #expect(local.toasts.last?.text.contains("the App Store has no such transaction to finish") == true)

        var empty = state(rows: [])
        #expect(press(&empty, .character("f")).isEmpty)
        #expect(empty.toasts.last?.text == "Select a transaction first.")
    }

    @Test func aRefusalOrAnUnknownOutcomeIsSaidAsItIs() {
        var state = state()
        _ = press(&state, .character("f"))
        guard case .finishTransaction(let request, _)? = press(&state, .enter).first else { Issue.record("expected the write"); return }
        let notFound = APIError.server(ServerFailure(status: 404, code: .transactionIdNotFound, message: "Transaction id not found."))
        _ = ConsoleReducer.reduce(&state, .transactionFinished(request: request, .refused(notFound)))
        #expect(state.lastError?.summary.hasPrefix("Not finished (transaction \(Self.transactionId)") == true)

        _ = press(&state, .character("f"))
        guard case .finishTransaction(let second, _)? = press(&state, .enter).first else { Issue.record("expected the write"); return }
        _ = ConsoleReducer.reduce(&state, .transactionFinished(request: second, .unknown(.cancelled)))
        #expect(state.lastError?.summary.contains("may have been applied") == true)
        #expect(state.lastError?.hint?.contains("safe to repeat") == true)
    }

    @Test func aConfirmationIsNotSentForACustomerNoLongerOnScreen() {
        var state = state()
        _ = press(&state, .character("f"))
        state.customer?.lookup = 99
        #expect(press(&state, .enter).isEmpty)
        #expect(state.lastError?.summary.hasPrefix("Not sent: the customer on screen changed") == true)
    }

    @Test func finishingInTheDemoIsRecordedBeforeAndAfterInTheLedger() async throws {
        let harness = try await ConsoleHarness.start()
        defer { Task { await harness.stop() } }
        harness.type("MK5TTTVWJH")
        harness.send(.enter)
        try await harness.settle()
        harness.send(.character("5"))
        try await harness.settle()
        #expect(harness.state.pane == .transactions)
        let selected = try #require(PaneRows.selectedID(harness.state, .transactions))
        harness.send(.character("f"))
        #expect(harness.state.overlay == .finishTransaction)
        #expect(harness.screen(width: 80, height: 24).contains("POST /inApps/v1/transactions/\(selected)/finish"))
        harness.send(.enter)
        try await harness.settle()
        #expect(harness.state.toasts.contains { $0.text.hasPrefix("Finished: Apple now knows the content of transaction \(selected)") }, "\(harness.state.toasts)")
        let lines = (try await harness.writes.ledger.entries()).filter { $0.write == WriteKind.finishTransaction.rawValue }
        #expect(lines.map(\.event) == [.intent, .outcome])
        #expect(lines.last?.outcome == .applied)
        #expect(lines.first?.path == "/inApps/v1/transactions/\(selected)/finish")
        #expect(lines.first?.source == .console)
        #expect(lines.first?.subject?.contains("(order MK5TTTVWJH)") == true)
    }
}
