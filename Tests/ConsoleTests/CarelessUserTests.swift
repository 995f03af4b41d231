import AppStoreServerAPI
@testable import Console
@testable import DeskCore
import Foundation
import TerminalUI
import Testing

/// What a hurried user does: keys on a terminal too small to read, a second write before the
/// first is answered, Enter before the count, quitting mid-write, a receipt's label pasted along.
@Suite struct CarelessUserTests {
    func subscriptionState() -> ConsoleState { ReducerTests().stateWithSubscription() }

    /// Opens the form, lets the count arrive, reviews: the confirmation is on screen.
    func confirming(_ state: inout ConsoleState) throws {
        _ = ConsoleReducer.reduce(&state, .key(.character("e")))
        let count = try #require(state.extendForm?.countRequest)
        _ = ConsoleReducer.reduce(&state, .extensionsCounted(request: count, .success(ExtensionCount(notified: [], fromLedger: [], windowDays: 180))))
        try ReducerTests.answerReview(&state, ConsoleReducer.reduce(&state, .key(.enter)), identifier: "id-1")
        #expect(state.extendForm?.confirming == true)
    }

    @Test func onATerminalTooSmallToReadNothingButQActs() throws {
        var state = subscriptionState()
        try confirming(&state)
        _ = ConsoleReducer.reduce(&state, .screenSize(width: 30, height: 8))
        #expect(ConsoleReducer.reduce(&state, .key(.character("y"))).isEmpty, "y on an unreadable screen sends nothing")
        #expect(ConsoleReducer.reduce(&state, .key(.enter)).isEmpty)
        #expect(state.extendForm?.confirming == true)
        #expect(ConsoleReducer.reduce(&state, .key(.character("q"))) == [.quit])
    }

    @Test func aConfirmationThatDoesNotFitIsNotSent() throws {
        var state = subscriptionState()
        try confirming(&state)
        _ = ConsoleReducer.reduce(&state, .screenSize(width: 40, height: 12))
        #expect(ConsoleReducer.reduce(&state, .key(.character("y"))).isEmpty)
        #expect(state.toasts.last?.text.hasPrefix("Not sent: the confirmation does not fit this 40x12 terminal") == true)
        _ = ConsoleReducer.reduce(&state, .screenSize(width: 80, height: 24))
        guard case .extend? = ConsoleReducer.reduce(&state, .key(.character("y"))).first else {
            Issue.record("at 80x24 the confirmation fits and is sent")
            return
        }
    }

    @Test func aSecondExtensionWaitsForTheFirstAnswerAndQWaitsToo() throws {
        var state = subscriptionState()
        try confirming(&state)
        guard case .extend? = ConsoleReducer.reduce(&state, .key(.character("y"))).first else { Issue.record("expected the extension"); return }
        #expect(ConsoleReducer.reduce(&state, .key(.character("e"))).isEmpty)
        #expect(state.overlay == nil)
        #expect(state.toasts.last?.text == "An extension of this subscription is waiting for Apple's answer; its result shows here first.")
        #expect(ConsoleReducer.reduce(&state, .key(.character("q"))).isEmpty, "q does not walk away from a write in flight")
        #expect(!state.shouldQuit)
        #expect(ConsoleReducer.reduce(&state, .key(.control("c"))) == [.quit], "Ctrl-C always quits")
    }

    @Test func anOrderWithNoPurchasesLeavesNoEmptyCustomerBehind() {
        var state = ConsoleState(profileName: "p", environment: .production, isDemo: false, bundleId: "com.example", readOnly: false, themeName: "default")
        for key in "ABCDEFGHIJ" { _ = ConsoleReducer.reduce(&state, .key(.character(key))) }
        let effects = ConsoleReducer.reduce(&state, .key(.enter))
        guard let request = effects.task(named: "look up order")?.request else {
            Issue.record("expected an order lookup, got \(effects)")
            return
        }
        _ = ConsoleReducer.reduce(&state, .customer(request: request, .order(.success(OrderResult(orderId: "ABCDEFGHIJ", status: .invalid, transactions: [])))))
        let customer = state.customer
        #expect(customer?.subscriptions.error?.summary == "Apple has no purchases under order ID ABCDEFGHIJ.")
        #expect(customer?.refunds.error != nil && customer?.history.error != nil && customer?.transaction.error != nil)
        #expect(state.lastError?.summary == "Apple has no purchases under order ID ABCDEFGHIJ.", "! shows the whole message")
        let screen = render(state)
        #expect(!screen.contains("Looking up"))
        #expect(screen.contains("Apple has no purchases under order ID ABCDEFGHIJ."))
    }

    @Test func wrongFilterWordsAreRefusedNotIgnored() {
        var state = subscriptionState()
        for (command, error) in [("sort up", ":sort takes asc (oldest first) or desc (newest first)."),
                                 ("revoked maybe", ":revoked takes yes, no or all."),
                                 ("ownership nobody", ":ownership takes family, purchased or all.")] {
            #expect(CommandLine.execute(&state, command).isEmpty)
            #expect(state.lastError?.summary == error)
        }
        #expect(state.historyFilters.query == TransactionHistoryQuery(sort: .descending), "nothing was changed")
    }

    @Test func aReceiptsLabelPastedWithTheIDIsLeftOut() {
        #expect(IDKind.classify("Order ID: mk5tttvwjh") == .orderId("MK5TTTVWJH"))
        #expect(IDKind.classify("Transaction ID #2000000400000044") == .transactionId("2000000400000044"))
        #expect(IDKind.classify("ORDER1234") == .orderId("ORDER1234"), "an ID that starts like a label keeps its letters")
    }

    @Test func aRebindingThatAPaneWouldShadowIsRefused() {
        #expect(throws: KeymapError.self) { try Keymap.standard.rebinding(["app.lookup": ["e"]]) }
        #expect(throws: KeymapError.self) { try Keymap.standard.rebinding(["list.down": ["g"]]) }
        #expect((try? Keymap.standard.rebinding(["extend.send": ["q"]])) != nil, "a dialog's keys are its own")
    }

    func render(_ state: ConsoleState) -> String {
        var buffer = Buffer(width: 100, height: 30)
        ConsoleView.render(state, theme: .fallback, area: Rect(x: 0, y: 0, width: 100, height: 30), buffer: &buffer)
        return buffer.text
    }
}
