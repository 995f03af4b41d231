@testable import Console
import Foundation
import TerminalUI
import Testing

/// Under a locale that is not UTF-8 the console draws with ASCII alone: boxes of + - |, marks
/// and arrows as single ASCII characters, with every line as wide as under UTF-8.
@Suite(.serialized) struct ASCIIScreenTests {
    @Test func everyPaneOfALookedUpCustomerIsPlainASCII() async throws {
        let harness = try await ConsoleHarness.start()
        harness.send(.control("u"))
        harness.type("MK5TTTVWJH")
        harness.send(.enter)
        try await harness.settle()
        // The Inspector last: its paste field takes the digits that follow.
        for key in ["1", "2", "3", "4", "5", "6", "9", "7"] {
            harness.send(.character(Character(key)))
            try await harness.settle()
            for (width, height) in [(80, 24), (120, 36)] {
                let ascii = harness.screen(width: width, height: height, glyphs: .ascii)
                let unicode = harness.screen(width: width, height: height)
                #expect(ascii.utf8.allSatisfy { $0 < 0x80 }, "pane \(key) at \(width)x\(height):\n\(ascii)")
                // The same layout: each line keeps its width, only characters change.
                #expect(ascii.split(separator: "\n").map(\.count) == unicode.split(separator: "\n").map { TextWidth.of($0) }, "pane \(key)")
            }
        }
        harness.send(.escape)
        harness.send(.character("1"))
        let customer = harness.screen(width: 120, height: 36, glyphs: .ascii)
        #expect(customer.contains("+- Customer ---"))
        #expect(customer.contains("+ all 12 signatures verified"))
        #expect(customer.contains("DEMO - PRODUCTION"))
        harness.send(.character("?"))
        #expect(harness.screen(width: 80, height: 24, glyphs: .ascii).utf8.allSatisfy { $0 < 0x80 }, "the help overlay")
        await harness.stop()
    }
}
