import AppStoreServerAPI
@testable import Console
import DemoServer
@testable import DeskCore
import DeskStore
import Foundation
import TerminalUI
import Testing

/// Two agents on one customer, each with a console on the same demo server and ledger: what one
/// confirms is what is true when it is confirmed, whatever the other did since the form opened.
@Suite(.serialized) struct TwoConsolesTests {
    static let order = "MK5TTTVWJH"
    static let subscription = "2000000400000044"

    /// Looks the customer up, opens the extension form on the subscription and waits for the count.
    func openForm(_ harness: ConsoleHarness) async throws {
        if harness.state.focus != .paneInput { harness.send(.character("i")) }
        harness.type(Self.order)
        harness.send(.enter)
        try await harness.settle()
        harness.send(.character("4"))
        harness.send(.character("e"))
        try await harness.settle()
        #expect(harness.state.extendForm?.originalTransactionId == Self.subscription)
        #expect(harness.state.extendForm?.earlier.isLoaded == true)
    }

    /// Enter on the form: the confirmation opens once the subscription was read again.
    func review(_ harness: ConsoleHarness) async throws {
        harness.send(.enter)
        try await harness.settle()
    }

    func sendConfirmed(_ harness: ConsoleHarness) async throws -> String? {
        harness.send(.enter)
        try await harness.settle()
        return harness.state.toasts.last?.text
    }

    @Test func aConfirmationShowsWhatIsTrueWhenDrawnAndTheSendRefusesWhatChangedSince() async throws {
        let t = try await ConsoleHarness.start()
        defer { Task { await t.stop() } }
        let u = try ConsoleHarness.beside(t, agent: "sam")
        defer { u.runner.cancelAll() }
        try await openForm(t)
        try await openForm(u)
        let before = try #require(u.state.extendForm?.currentRenewal)

        // T extends by 7 days while U's form is open.
        try await review(t)
        #expect(t.state.extendForm?.confirming == true)
        let toast = try #require(try await sendConfirmed(t))
        let extended = before.addingTimeInterval(7 * 86_400)
        #expect(toast.hasPrefix("Extended to \(DisplayFormat.date(extended)):"), "the success names Apple's date: \(toast)")

        // U's form still shows the old date; its confirmation is drawn from a fresh read.
        #expect(u.state.extendForm?.currentRenewal == before)
        try await review(u)
        let form = try #require(u.state.extendForm)
        #expect(form.confirming)
        #expect(form.currentRenewal == extended, "the confirmation shows the date T's extension made")
        #expect(form.renewalBeforeReview == before)
        #expect(form.earlier.value?.recorded.contains { $0.agent == "test" && $0.applied } == true, "T's extension is listed")
        let screen = u.screen(width: 120, height: 36)
        #expect(screen.contains("was \(DisplayFormat.date(before))"), "\(screen)")
        #expect(screen.contains(DisplayFormat.longDay(extended.addingTimeInterval(7 * 86_400))), "the new date counts from Apple's current one:\n\(screen)")

        // While U's confirmation is open, T extends a second time: U's send is refused, nothing sent.
        try await openForm(t)
        try await review(t)
        let second = try #require(try await sendConfirmed(t))
        #expect(second.hasPrefix("Extended"), "\(second)")
        let refused = try #require(try await sendConfirmed(u))
        #expect(refused.contains("changed meanwhile"), "\(refused)")
        #expect(u.state.extensionsInFlight.isEmpty)
        // The refusal reloads the subscription as a success does: pane 4 shows T's second date.
        let twice = extended.addingTimeInterval(7 * 86_400)
        #expect(u.state.customer?.subscriptions.value?.first.flatMap(ExtensionRules.renewalDate) == twice)
        // What to do is read whole at 80x24 without a key; who came first is the hint.
        let narrow = u.screen(width: 80, height: 24)
        #expect(narrow.contains("✗ Not sent: changed meanwhile. Reloaded; review it again (e).  ! shows all"), "\(narrow)")
        #expect(u.state.lastError?.hint?.hasPrefix("Test sent an extension of the same subscription") == true, "\(String(describing: u.state.lastError))")

        // Reviewed again, U's form counts both and refuses a third, as Apple would.
        try await openForm(u)
        try await review(u)
        #expect(u.state.extendForm?.confirming == false)
        #expect(u.state.extendForm?.error?.contains("4030005") == true, "\(u.state.extendForm?.error ?? "no error")")
    }

    @Test func aConsoleSaysWhenAnotherExtendsOrNotesTheCustomerOnScreenAndRReloads() async throws {
        let folder = NSTemporaryDirectory() + "iapdesk-watch-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let store = try await SQLiteNotificationStore.open(path: folder + "/store.sqlite")
        let t = try await ConsoleHarness.start(notes: store)
        defer { Task { await t.stop() } }
        let u = try ConsoleHarness.beside(t, agent: "sam")
        defer { u.runner.cancelAll() }
        try await openForm(u)
        u.send(.escape)
        u.send(.character("1"))
        let before = try #require(u.state.customer?.subscriptions.value?.first.flatMap(ExtensionRules.renewalDate))
        #expect(ConsoleView.breadcrumbs(u.state).last?.contains(" · read ") == true, "the panes say how old their data is")
        // Nobody has changed the customer since U read it.
        u.tick(CustomerWatch.interval + 1)
        try await u.tick(until: { $0.customerWatch.reading == nil })
        #expect(u.state.customerWatch.changes.isEmpty)

        // T, another console on the same ledger, extends the customer U shows.
        try await openForm(t)
        try await review(t)
        _ = try await sendConfirmed(t)
        try await u.tick(until: { !$0.customerWatch.changes.isEmpty })
        #expect(u.state.customerWatch.changes.first?.what == "extended")
        #expect(u.state.customerWatch.changes.first?.agent == "test")
        let screen = u.screen(width: 120, height: 36)
        #expect(screen.contains("⚠ extended by test"), "\(screen)")
        #expect(screen.contains("r reloads"))
        #expect(u.state.customer?.subscriptions.value?.first.flatMap(ExtensionRules.renewalDate) == before, "nothing reloads by itself")

        // r reads everything again: the new date, and no warning.
        u.send(.character("r"))
        try await u.settle()
        #expect(u.state.customer?.subscriptions.value?.first.flatMap(ExtensionRules.renewalDate) == before.addingTimeInterval(7 * 86_400))
        u.tick(CustomerWatch.interval + 1)
        try await u.tick(until: { $0.customerWatch.reading == nil })
        #expect(u.state.customerWatch.changes.isEmpty)

        // A note by T shows up in U's summary with who wrote it.
        _ = try await store.addNote("Refund asked; told to use reportaproblem", agent: "test", at: Date(), subjects: [Self.order])
        try await u.tick(until: { $0.customerWatch.changes.contains { $0.what == "noted" } })
        try await u.tick(until: { $0.caseNotes.notes?.contains { $0.agent == "test" } == true })
        #expect(u.screen(width: 120, height: 36).contains("noted by test"))
    }

    @Test func theSendRefusesWhenApplesDateMovedAfterTheConfirmation() async throws {
        let t = try await ConsoleHarness.start()
        defer { Task { await t.stop() } }
        try await openForm(t)
        try await review(t)
        #expect(t.state.extendForm?.confirming == true)
        // Another tool (not this ledger) extends the subscription while the confirmation is open.
        let client = try t.server.makeClient()
        _ = try await client.extendSubscriptionRenewalDate(
            originalTransactionId: Self.subscription,
            request: ExtendRenewalDateRequest(extendByDays: 3, extendReasonCode: .customerSatisfaction, requestIdentifier: UUID().uuidString))
        let toast = try #require(try await sendConfirmed(t))
        #expect(toast.contains("changed meanwhile"), "\(toast)")
        #expect(t.state.lastError?.hint?.hasPrefix("The subscription now renews") == true, "\(String(describing: t.state.lastError))")
        // Reloaded: the date the other tool made is on screen without r.
        let renews = try #require(t.state.customer?.subscriptions.value?.first.flatMap(ExtensionRules.renewalDate))
        #expect(t.state.lastError?.hint?.contains(DisplayFormat.date(renews)) == true, "\(String(describing: t.state.lastError))")
        let audit = try await t.writes.ledger.writes()
        #expect(audit.isEmpty, "nothing was recorded as sent")
    }

    @Test func aFormOpenedAfterAColleaguesExtensionSaysItsDatesAreOldAndEveryPaneSaysSo() async throws {
        let t = try await ConsoleHarness.start()
        defer { Task { await t.stop() } }
        let u = try ConsoleHarness.beside(t, agent: "sam")
        defer { u.runner.cancelAll() }
        // U reads the customer; then T extends.
        if u.state.focus != .paneInput { u.send(.character("i")) }
        u.type(Self.order)
        u.send(.enter)
        try await u.settle()
        try await openForm(t)
        try await review(t)
        _ = try await sendConfirmed(t)
        // U learns of it on the pane it is on, the Subscriptions pane.
        u.send(.character("4"))
        try await u.tick(until: { !$0.customerWatch.changes.isEmpty })
        try await u.settle()
        #expect(u.screen(width: 120, height: 36).contains("⚠ changed since: r reloads"))
        u.send(.character("e"))
        try await u.settle()
        #expect(u.state.extendForm?.earlier.isLoaded == true)
        let form = u.screen(width: 120, height: 36)
        #expect(form.contains("(read before the last extension)"))
        #expect(form.contains("read again from Apple when you press Enter"))
    }
}
