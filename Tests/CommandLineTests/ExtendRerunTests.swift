import Foundation
import Testing

/// `extend` run twice gives once: a second extension within a day is refused as a likely re-run
/// unless `--again` says it is meant.
@Suite(.serialized) struct ExtendRerunTests {
    @Test func aSecondExtendWithinADayIsRefusedUnlessAgain() async throws {
        let environment = [
            "XDG_STATE_HOME": FileManager.default.temporaryDirectory.appendingPathComponent("iapdesk-rerun-\(UUID().uuidString)").path,
            "IAPDESK_AGENT": "sam",
        ]
        let command = ["extend", "2000000400001842", "--days", "5", "--reason", "service-issue", "--demo", "--yes"]
        let first = try await CommandLineTests().run(command, environment: environment)
        #expect(first.status == 0, "\(first.stderr)")
        let rerun = try await CommandLineTests().run(command, environment: environment)
        #expect(rerun.status == 9)
        #expect(rerun.stderr.contains("Not sent: 2000000400001842 was already extended"))
        #expect(rerun.stderr.contains("by sam: 5 days"))
        #expect(rerun.stderr.contains("--again"))
        let audit = try await CommandLineTests().run(["audit", "--customer", "2000000400001842", "--demo", "--json"], environment: environment)
        let writes = try #require((try JSONSerialization.jsonObject(with: Data(audit.stdout.utf8)) as? [String: Any])?["writes"] as? [[String: Any]])
        #expect(writes.count == 1)
        let again = try await CommandLineTests().run(command + ["--again"], environment: environment)
        #expect(again.status == 0, "\(again.stderr)")
        #expect(again.stdout.contains("Extended 2000000400001842 by 5 days"))
    }
}
