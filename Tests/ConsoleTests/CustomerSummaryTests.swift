@testable import Console
@testable import DeskCore
import Foundation
import TerminalUI
import Testing

/// The customer summary at 80x24: taller than the pane, so it scrolls and says so.
@Suite(.serialized) struct CustomerSummaryTests {
    @Test func theSummaryScrollsOnSmallTerminals() async throws {
        let harness = try await ConsoleHarness.start()
        defer { Task { await harness.stop() } }
        harness.receive(.screenSize(width: 80, height: 24))
        harness.type("MK5TTTVWJH")
        harness.send(.enter)
        try await harness.settle()
        let top = harness.screen(width: 80, height: 24)
        #expect(top.contains("↓ more (j/PgDn)"))
        #expect(!top.contains("704000000000171"))
        harness.send(.character("G"))
        let bottom = harness.screen(width: 80, height: 24)
        #expect(bottom.contains("704000000000171"))
        #expect(bottom.contains("↑ top (g)"))
        harness.send(.character("g"))
        #expect(harness.state.list(.customer).offset == 0)
        // A new lookup starts at the top again.
        harness.send(.character("G"))
        harness.send(.character("i"))
        harness.type("8SAVFG75PQ")
        harness.send(.enter)
        #expect(harness.state.list(.customer).offset == 0)
    }
}
