import Foundation
import Testing

/// `refund-policy` in separate processes on one demo state: an override set, changed, listed with
/// who and when, removed; a policy file checked in words, or refused with its line and key.
@Suite(.serialized) struct RefundPolicyCommandTests {
    let environment = [
        "XDG_STATE_HOME": FileManager.default.temporaryDirectory.appendingPathComponent("iapdesk-refund-policy-\(UUID().uuidString)").path,
        "IAPDESK_AGENT": "kim",
    ]

    /// `watch --consumption-policy` answers what the store holds as listen would, once, and a second
    /// run (a restart) answers nothing again.
    @Test func aWatchWithAPolicyAnswersThePendingRequestsOnce() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("iapdesk-watch-policy-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let policy = folder.appendingPathComponent("team.toml")
        try Data("consent = \"app-terms\"\nrefund_preference = \"decline\"\n".utf8).write(to: policy)
        let list = try await CommandLineTests().run(["refund-requests", "--demo", "--pending", "--json"], environment: environment)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(list.stdout.utf8)) as? [String: Any], "\(list.stderr)")
        let pending = try #require(object["requests"] as? [[String: Any]]).compactMap { $0["transactionId"] as? String }
        #expect(!pending.isEmpty)
        let watch = ["watch", "--demo", "--once", "--window", "30d", "--consumption-policy", policy.path, "--json"]
        let first = try await CommandLineTests().run(watch, environment: environment)
        #expect(first.status == 0 || first.status == 10, "\(first.stderr)")
        let answered = first.stderr.split(separator: "\n").filter { $0.contains("\"answered\"") }
        #expect(answered.count == pending.count, "\(first.stderr)")
        let again = try await CommandLineTests().run(watch, environment: environment)
        #expect(!again.stderr.contains("\"answered\""), "\(again.stderr)")
        let after = try await CommandLineTests().run(["refund-requests", "--demo", "--pending", "--json"], environment: environment)
        let left = try #require(try JSONSerialization.jsonObject(with: Data(after.stdout.utf8)) as? [String: Any])
        #expect((left["requests"] as? [[String: Any]])?.isEmpty == true, "\(after.stdout)")
    }

    @Test func anOverrideIsSetChangedListedAndRemovedWithItsAgent() async throws {
        let customer = ["--original-transaction-id", "2000000400002107"]
        let set = try await CommandLineTests().run(
            ["refund-policy", "set"] + customer + ["--refund-preference", "grant-full", "--note", "outage on the 3rd", "--demo"], environment: environment)
        #expect(set.status == 0, "\(set.stderr)")
        #expect(set.stdout.contains("Set by kim"))
        let changed = try await CommandLineTests().run(["refund-policy", "set"] + customer + ["--refund-preference", "decline", "--demo"], environment: environment)
        #expect(changed.stdout.contains("was: prefer a full refund, set by kim"))
        let list = try await CommandLineTests().run(["refund-policy", "list", "--demo", "--json"], environment: environment)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(list.stdout.utf8)) as? [String: Any], "\(list.stdout)")
        let overrides = try #require(object["overrides"] as? [[String: Any]])
        #expect(overrides.count == 1)
        #expect(overrides.first?["refundPreference"] as? String == "decline")
        #expect(overrides.first?["agent"] as? String == "kim")
        let removed = try await CommandLineTests().run(["refund-policy", "remove"] + customer + ["--demo"], environment: environment)
        #expect(removed.status == 0, "\(removed.stderr)")
        let history = try await CommandLineTests().run(["refund-policy", "list", "--history", "--demo"], environment: environment)
        #expect(history.stdout.components(separatedBy: "original transaction 2000000400002107").count - 1 == 3)
        #expect(history.stdout.contains("(removed)"))
        // Nothing left to remove: said, exit 2.
        let again = try await CommandLineTests().run(["refund-policy", "remove"] + customer + ["--demo"], environment: environment)
        #expect(again.status == 2)
        #expect(again.stderr.contains("No override"))
        let neither = try await CommandLineTests().run(["refund-policy", "set", "--refund-preference", "decline", "--demo"], environment: environment)
        #expect(neither.status == 64)
    }

    @Test func aPolicyFileIsSaidInWordsOrRefusedWithItsLineAndKey() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("iapdesk-policy-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let good = folder.appendingPathComponent("refunds.toml").path
        try "consent = \"app-terms\"\nrefund_preference = \"decline\"\n[[rule]]\nreason = \"legal\"\nanswer = false\n".write(toFile: good, atomically: true, encoding: .utf8)
        let checked = try await CommandLineTests().run(["refund-policy", "check", good], environment: environment)
        #expect(checked.status == 0, "\(checked.stderr)")
        #expect(checked.stdout.contains("the app's terms give it"))
        #expect(checked.stdout.contains("Rule 1 (line 3), any product, reason legal: not answered."))
        let bad = folder.appendingPathComponent("bad.toml").path
        try "consent = \"app-terms\"\nrefund_preference = \"decline\"\n[[rule]]\nproduct = \"com.example.*\"\nrefund = \"yes\"\n".write(toFile: bad, atomically: true, encoding: .utf8)
        let refused = try await CommandLineTests().run(["refund-policy", "check", bad], environment: environment)
        #expect(refused.status == 3)
        #expect(refused.stderr.contains("bad.toml line 5, rule[1].refund: unknown key in rule[1]"))
        // A receiver given it refuses to start, saying the same, before it listens.
        let listen = try await CommandLineTests().run(["listen", "--demo", "--address", "127.0.0.1:0", "--consumption-policy", bad], environment: environment)
        #expect(listen.status == 3)
        #expect(listen.stderr.contains("The consumption policy cannot be used: bad.toml line 5, rule[1].refund"))
        #expect(!listen.stdout.contains("Listening"))
    }
}
