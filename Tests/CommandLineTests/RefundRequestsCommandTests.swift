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

    /// Apple's rules refuse locally, exit 9, and nothing reaches the audit ledger (every write
    /// goes through it before it leaves) nor the demo server; a good answer says what it answered.
    @Test func consumptionRefusesWhatAppleWouldAndReportsWhatItAnswered() async throws {
        let environment = [
            "XDG_STATE_HOME": FileManager.default.temporaryDirectory.appendingPathComponent("iapdesk-consumption-\(UUID().uuidString)").path,
            "IAPDESK_AGENT": "kim",
        ]
        // The demo's ledger holds the seeded answer of its policy: what is sent here is counted beside it.
        func consumptionWrites() async throws -> Int {
            let audit = try await CommandLineTests().run(["audit", "--demo", "--json"], environment: environment)
            return audit.stdout.components(separatedBy: "/transactions/consumption/").count - 1
        }
        let list = try await CommandLineTests().run(["refund-requests", "--demo", "--json"], environment: environment)
        let writesBefore = try await consumptionWrites()
        let object = try #require(try JSONSerialization.jsonObject(with: Data(list.stdout.utf8)) as? [String: Any], "\(list.stderr)")
        let requests = try #require(object["requests"] as? [[String: Any]])
        let pending = try #require(requests.first { $0["state"] as? String == "pending" }?["transactionId"] as? String)
        // Past its 12 hours (Apple has since declined it) and one Apple never asked about.
        let decided = try #require(requests.first { $0["state"] as? String == "declined" }?["transactionId"] as? String)
        func consumption(_ id: String, _ extra: [String]) async throws -> CommandLineTests.Run {
            try await CommandLineTests().run(["consumption", id, "--delivery-status", "delivered", "--demo", "--yes"] + extra, environment: environment)
        }
        let noConsent = try await consumption(pending, [])
        #expect(noConsent.status == 9)
        #expect(noConsent.stderr.contains("4000035"), "\(noConsent.stderr)")
        let notAsked = try await consumption("2000000400000044", ["--customer-consented"])
        #expect(notAsked.status == 9)
        #expect(notAsked.stderr.contains("Apple has not asked about transaction 2000000400000044"), "\(notAsked.stderr)")
        let late = try await consumption(decided, ["--customer-consented"])
        #expect(late.status == 9)
        #expect(late.stderr.contains("decided this request already") || late.stderr.contains("12 hours"), "\(late.stderr)")
        let undelivered = try await CommandLineTests().run(
            ["consumption", pending, "--delivery-status", "undelivered-server-outage", "--consumed-percent", "40", "--customer-consented", "--demo", "--yes"],
            environment: environment)
        #expect(undelivered.status == 9)
        #expect(undelivered.stderr.contains("UndeliveredConsumptionPercentageNonZeroError"), "\(undelivered.stderr)")
        #expect(try await consumptionWrites() == writesBefore, "nothing was sent")

        let sent = try await consumption(pending, ["--customer-consented", "--consumed-percent", "25", "--refund-preference", "grant-prorated", "--json"])
        #expect(sent.status == 0, "\(sent.stderr)")
        let answer = try #require(try JSONSerialization.jsonObject(with: Data(sent.stdout.utf8)) as? [String: Any], "\(sent.stdout)")
        #expect(answer["transactionId"] as? String == pending)
        #expect(answer["accepted"] as? Bool == true)
        #expect(answer["notificationUUID"] as? String == requests.first { $0["transactionId"] as? String == pending }?["notificationUUID"] as? String)
        #expect((answer["deadline"] as? String)?.isEmpty == false)
        let body = try #require(answer["body"] as? [String: Any])
        #expect(body["consumptionPercentage"] as? Int == 25_000)
        #expect(body["refundPreference"] as? String == "GRANT_PRORATED")
        #expect(body["customerConsented"] as? Bool == true)
        // Once answered, a second answer is refused: one per request.
        let twice = try await consumption(pending, ["--customer-consented"])
        #expect(twice.status == 9)
        #expect(twice.stderr.contains("answered already"), "\(twice.stderr)")
    }
}
