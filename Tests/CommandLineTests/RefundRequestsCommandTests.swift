import Foundation
import Testing

/// `refund-requests` in separate processes on one demo state: the pending requests, then one
/// answered with `consumption` and shown as answered, by whom.
@Suite(.serialized) struct RefundRequestsCommandTests {
    @Test func pendingRequestsAreListedAndAnAnswerIsShownWithItsAgent() async throws {
        let environment = [
            "XDG_STATE_HOME": FileManager.default.temporaryDirectory.appendingPathComponent("iapdesk-refunds-\(UUID().uuidString)").path,
            "IAPDESK_AGENT": "kim",
        ]
        func requests(_ extra: [String] = []) async throws -> [[String: Any]] {
            let run = try await CommandLineTests().run(["refund-requests", "--demo", "--json"] + extra, environment: environment)
            #expect(run.status == 0, "\(run.stderr)")
            let object = try #require(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any], "\(run.stdout)")
            return try #require(object["requests"] as? [[String: Any]])
        }
        let all = try await requests()
        #expect(Set(all.compactMap { $0["state"] as? String }).isSuperset(of: ["refunded", "declined"]))
        let pending = try await requests(["--pending"])
        #expect(!pending.isEmpty)
        #expect(pending.allSatisfy { $0["state"] as? String == "pending" && ($0["secondsLeft"] as? Int ?? 0) > 0 })
        // The newest request is answered: it leaves the pending list and shows who answered.
        let newest = try #require(pending.first?["transactionId"] as? String)
        let answered = try await CommandLineTests().run(
            ["consumption", newest, "--delivery-status", "delivered", "--customer-consented", "--refund-preference", "decline", "--demo", "--yes"],
            environment: environment)
        #expect(answered.status == 0, "\(answered.stderr)")
        let after = try await requests()
        let row = try #require(after.first { $0["transactionId"] as? String == newest })
        // The demo's Apple decides three seconds after an answer, and the command waits for it.
        #expect(row["state"] as? String == "declined")
        let answer = try #require(row["answer"] as? [String: Any])
        #expect(answer["agent"] as? String == "kim")
        #expect(answer["refundPreference"] as? String == "decline")
        #expect(try await requests(["--pending"]).allSatisfy { $0["transactionId"] as? String != newest })
        let table = try await CommandLineTests().run(["refund-requests", "--demo"], environment: environment)
        #expect(table.stdout.contains("declined by Apple"))
        #expect(table.stdout.contains("kim"))
    }
}
