import AppStoreServerAPI
@testable import Console
import DemoServer
@testable import DeskCore
import Foundation
import TerminalUI
import Testing

/// Extensions from the console against the demo server: sent to the customer's environment,
/// counted from Apple's history, never cut off by Esc, always followed by what is true.
@Suite(.serialized) struct ExtensionWriteTests {
    func lookUp(_ harness: ConsoleHarness, _ id: String) async throws {
        // The lookup field has focus at start; later, i brings it back with its text selected.
        if harness.state.focus != .paneInput { harness.send(.character("i")) }
        harness.type(id)
        harness.send(.enter)
        try await harness.settle()
    }

    /// Opens the form on the Subscriptions pane, waits for the count, and confirms with the default 7 days.
    func extend(_ harness: ConsoleHarness) async throws {
        harness.send(.character("4"))
        harness.send(.character("e"))
        try await harness.settle()
        harness.send(.enter)
        try await harness.settle()
        #expect(harness.state.extendForm?.confirming == true, "\(String(describing: harness.state.extendForm?.error))")
        harness.send(.enter)
    }

    @Test func aSandboxCustomerFoundByFallbackIsVerifiedAsSandboxAndExtendedThere() async throws {
        let harness = try await ConsoleHarness.start()
        defer { Task { await harness.stop() } }
        let id = "2000000800000055"
        try await lookUp(harness, id)
        let customer = try #require(harness.state.customer)
        #expect(customer.environment == .sandbox)
        #expect(customer.transaction.value?.status == .verified)
        #expect(customer.subscriptions.value?.first?.transaction?.status == .verified)
        let screen = harness.screen(width: 120, height: 36)
        #expect(!screen.contains("NOT VERIFIED"), "\(screen)")
        #expect(screen.contains("Customer › 2000000800000055 (Sandbox)"), "the breadcrumb names the customer's environment")

        try await extend(harness)
        try await harness.settle()
        let sent = harness.effects.compactMap { effect -> ExtendTarget? in
            if case .extend(_, let target) = effect { return target } else { return nil }
        }
        #expect(sent.map(\.environment) == [.sandbox])
        #expect(harness.state.toasts.contains { $0.text.hasPrefix("Extended to ") && $0.text.contains(": original transaction \(id)") }, "\(harness.state.toasts)")
        let line = try #require((try await harness.writes.ledger.entries()).last)
        #expect(line.outcome == .applied)
        #expect(line.account?.environment == AppStoreEnvironment.sandbox.rawValue)
    }

    @Test func earlierExtensionsAreCountedOverApplesWholeWindowAndALimitIsAnAnswer() async throws {
        let harness = try await ConsoleHarness.start()
        defer { Task { await harness.stop() } }
        // ZX9A9DTL5X: extended 200 and 20 days ago; Apple's history reaches back 180 days.
        let id = "2000000400003144"
        try await lookUp(harness, id)
        harness.send(.character("4"))
        harness.send(.character("e"))
        try await harness.settle()
        let count = try #require(harness.state.extendForm?.earlier.value)
        #expect(count.total == 1)
        #expect(count.windowDays == 180)
        #expect(count.summary == "1 found in the last 180 days; older ones by other tools unknown")
        #expect(harness.screen(width: 120, height: 36).contains("1 found in the last 180 days"))
        // Apple knows of the older one and refuses: an answer with its meaning, not a failure.
        harness.send(.enter)
        try await harness.settle()
        harness.send(.enter)
        try await harness.settle()
        #expect(harness.state.toasts.contains {
            $0.text.contains("Apple says the two yearly extensions are used (4030005)") && !$0.isError
        }, "\(harness.state.toasts)")
        #expect(harness.state.lastError == nil)
        #expect((try await harness.writes.ledger.entries()).last?.outcome == .refused)
    }

    @Test func escapeDoesNotCutOffAnExtensionAndTheScreenShowsWhatIsTrue() async throws {
        var faults = DemoFaults()
        faults.latency = 0.4
        let harness = try await ConsoleHarness.start(faults: faults)
        defer { Task { await harness.stop() } }
        let id = "2000000400000044"
        try await lookUp(harness, id)
        let before = try #require(harness.state.customer?.subscriptions.value?.first?.renewal?.payload?.renewalDate)
        try await extend(harness)
        // Esc at once, while the extension is on its way.
        harness.send(.escape)
        #expect(harness.state.toasts.last?.text.contains("An extension already sent cannot be stopped") == true)
        #expect(harness.state.toasts.last?.text.contains("Cancelled 0") == false)
        let extendRequest = try #require(harness.effects.compactMap { effect -> Int? in
            if case .extend(let request, _) = effect { return request } else { return nil }
        }.first)
        #expect(!harness.effects.contains(.cancel(request: extendRequest)))
        try await harness.settle()
        #expect(harness.state.toasts.contains { $0.text.hasPrefix("Extended to ") && $0.text.contains(": original transaction \(id)") }, "\(harness.state.toasts)")
        // The subscription was loaded again: the renewal date on screen is the new one.
        let after = try #require(harness.state.customer?.subscriptions.value?.first?.renewal?.payload?.renewalDate)
        #expect(after.timeIntervalSince(before) == 7 * 86_400)
        #expect((try await harness.writes.ledger.unresolved()).isEmpty)
        #expect((try await harness.writes.ledger.entries()).last?.outcome == .applied)
    }

    @Test func offersShowAndIneligibleSubscriptionsSayWhyBeforeTheForm() async throws {
        let harness = try await ConsoleHarness.start()
        defer { Task { await harness.stop() } }
        // BCF262B24G: in an introductory free trial.
        try await lookUp(harness, "2000000400001757")
        let summary = harness.screen(width: 120, height: 36)
        #expect(summary.contains("Active · free trial until "), "\(summary)")
        harness.send(.character("4"))
        let pane = harness.screen(width: 120, height: 36)
        #expect(pane.contains("Active · trial"))
        #expect(pane.contains("Current period: Free trial until "))
        harness.send(.character("e"))
        #expect(harness.state.overlay == nil)
        #expect(harness.state.lastError?.summary.contains("free trial (4030004)") == true)
        #expect(!harness.effects.contains { if case .countExtensions = $0 { return true } else { return false } })

        // HBPWSYX4NB: expired.
        try await lookUp(harness, "2000000400000339")
        harness.send(.character("4"))
        harness.send(.character("e"))
        #expect(harness.state.overlay == nil)
        #expect(harness.state.lastError?.summary.contains("Apple extends only active subscriptions; this one is expired") == true)
    }

    @Test func iInTheFormClosesItSoTheNextIDNeverBecomesDays() async throws {
        let harness = try await ConsoleHarness.start()
        defer { Task { await harness.stop() } }
        try await lookUp(harness, "F5TU47ETML")
        harness.send(.character("4"))
        harness.send(.character("e"))
        try await harness.settle()
        #expect(harness.state.extendForm != nil)
        harness.send(.character("x"))
        #expect(harness.state.extendForm?.error?.contains("Days takes digits only") == true)
        #expect(harness.state.extendForm?.days.text == "7")
        harness.send(.character("i"))
        harness.type("2000000400000044")
        #expect(harness.state.overlay == nil)
        #expect(harness.state.focus == .paneInput)
        #expect(harness.state.lookupInput.text == "2000000400000044")
        #expect(harness.state.toasts.contains { $0.text == "Extension form closed: nothing was sent." })
        harness.send(.enter)
        try await harness.settle()
        #expect(harness.state.customer?.query == "2000000400000044")
        #expect(harness.effects.allSatisfy { if case .extend = $0 { false } else { true } })
    }
}
