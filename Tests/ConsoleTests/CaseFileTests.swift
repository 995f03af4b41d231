import AppStoreServerAPI
@testable import Console
@testable import DeskCore
import Foundation
import Testing

/// `x` on the customer summary: one document for the ticket, copied and saved.
@Suite(.serialized) struct CaseFileTests {
    @Test func theCaseFileHoldsTheWholeCustomerAndTheirWritesAndIsCopiedAndSaved() async throws {
        let ledgerFolder = NSTemporaryDirectory() + "iapdesk-case-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: ledgerFolder, withIntermediateDirectories: true)
        let harness = try await ConsoleHarness.start(ledgerPath: ledgerFolder + "/audit.jsonl")
        defer { Task { await harness.stop() } }
        harness.send(.escape)
        harness.send(.character("x"))
        #expect(harness.state.toasts.last?.text == "Look up a customer first.")

        harness.send(.character("i"))
        harness.type("MK5TTTVWJH")
        harness.send(.enter)
        try await harness.settle()
        // An extension made for this customer is in the file.
        harness.send(.character("4"))
        harness.send(.character("e"))
        try await harness.settle()
        harness.send(.enter)
        try await harness.settle()
        harness.send(.enter)
        try await harness.settle()
        #expect(harness.state.overlay == nil)
        harness.send(.character("1"))
        harness.send(.escape)
        let before = harness.effects.count
        harness.send(.character("x"))
        try await harness.settle()
        let copied = harness.effects[before...].compactMap { effect -> String? in
            if case .copy(let text) = effect { return text }
            return nil
        }
        let markdown = try #require(copied.first, "\(harness.state.toasts.map(\.text)) focus \(harness.state.focus) pane \(harness.state.pane) overlay \(String(describing: harness.state.overlay))")
        #expect(markdown.hasPrefix("# Case file: MK5TTTVWJH"))
        #expect(markdown.contains("- Original transaction IDs: 2000000400000044, 2000000400000285"))
        #expect(markdown.contains("signed payloads verified"))
        #expect(markdown.contains("## Subscriptions") && markdown.contains("**Active**: com.iapdesk.demo.pro.monthly"))
        #expect(markdown.contains("| 2000000400000044 | 2000000400000044 | yes |"))
        // The write with what it asked for (the form's default 7 days and its reason).
        #expect(markdown.range(of: #"extend 7 days, [a-z ]+ for original transaction 2000000400000044 \(order MK5TTTVWJH\): applied"#, options: .regularExpression) != nil)
        #expect(!markdown.contains("eyJ"))
        let toast = try #require(harness.state.toasts.last?.text)
        #expect(toast.contains("saved to \(ledgerFolder)/cases/MK5TTTVWJH-"))
        let saved = try FileManager.default.contentsOfDirectory(atPath: ledgerFolder + "/cases")
        #expect(saved.count == 1)
        #expect(try String(contentsOfFile: ledgerFolder + "/cases/" + saved[0], encoding: .utf8) == markdown)
    }

    @Test func writesForTheSameIDsInAnotherEnvironmentOrAppAreLeftOut() throws {
        var customer = CustomerState(query: "2000000400000044", lookup: 1)
        customer.environment = .production
        customer.subscriptions = .loaded([SubscriptionRow(groupIdentifier: "1", originalTransactionId: "2000000400000044", status: .active, transaction: nil, renewal: nil)])
        func record(_ environment: AppStoreEnvironment, _ bundle: String, _ path: String) -> WriteRecord {
            let account = WriteAccount(profile: "p", environment: environment, baseURL: "https://x", bundleId: bundle, keyId: "K")
            let intent = AuditLedger.Entry(
                time: Date(), event: .intent, requestIdentifier: UUID().uuidString, write: "extend", method: "PUT", path: path, body: nil,
                account: account, subject: nil, source: .console, agent: "test")
            return WriteRecord(intent: intent, lines: [intent])
        }
        let records = [
            record(.production, "com.a", "/inApps/v1/subscriptions/extend/2000000400000044"),
            record(.sandbox, "com.a", "/inApps/v1/subscriptions/extend/2000000400000044"),
            record(.production, "com.b", "/inApps/v1/subscriptions/extend/2000000400000044"),
            record(.production, "com.a", "/inApps/v1/subscriptions/extend/2000000400000999"),
        ]
        let kept = CaseFile.writes(for: customer, in: records, environment: .production, bundleId: "com.a")
        #expect(kept.map(\.intent.requestIdentifier) == [records[0].intent.requestIdentifier])
    }
}
