import AppStoreServerAPI
import DemoServer
import Foundation
import Testing

/// `--demo` keeps its state in the XDG state folder between runs: what one process wrote, the next
/// one sees, until `iapdesk demo --reset`. Every test has a state folder of its own in the
/// temporary folder, never the real home's.
@Suite(.serialized) struct DemoStateTests {
    /// The active monthly subscription of order MK5TTTVWJH.
    static let subscription = "2000000400000044"

    /// One state folder shared by the runs of a test.
    struct Runs {
        let stateHome = FileManager.default.temporaryDirectory.appendingPathComponent("iapdesk-demo-state-\(UUID().uuidString)").path
        var folder: String { stateHome + "/iapdesk/demo" }
        var journal: String { folder + "/journal.jsonl" }

        func run(_ arguments: [String]) async throws -> CommandLineTests.Run {
            let (process, out, err) = CommandLineTests.process(arguments, environment: ["XDG_STATE_HOME": stateHome])
            return try await CommandLineTests.launch(process, out, err)
        }

        func json(_ arguments: [String]) async throws -> [String: Any] {
            let result = try await run(arguments + ["--json"])
            #expect(result.status == 0, "\(arguments): \(result.stderr)")
            return try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any], "\(result.stdout.prefix(300))")
        }

        /// The subscription's expiry as `status --demo` shows it.
        func expiry() async throws -> Int {
            let document = try await json(["status", DemoStateTests.subscription, "--demo"])
            let group = try #require((document["groups"] as? [[String: Any]])?.first)
            let item = try #require((group["lastTransactions"] as? [[String: Any]])?.first)
            return try #require((item["transaction"] as? [String: Any])?["expiresDateMs"] as? Int)
        }

        func remove() { try? FileManager.default.removeItem(atPath: stateHome) }
    }

    @Test func aTestNotificationRequestedInOneRunIsKnownInTheNext() async throws {
        let runs = Runs()
        defer { runs.remove() }
        let requested = try await runs.json(["test-notification", "--demo"])
        let token = try #require(requested["testNotificationToken"] as? String)
        let status = try await runs.json(["test-notification-status", token, "--demo"])
        #expect(status["delivered"] as? Bool == true)
        #expect(((status["sendAttempts"] as? [[String: Any]])?.first?["result"] as? String) == "SUCCESS")
        // A fresh state does not know it: the state is what carried it.
        let elsewhere = try await Runs().run(["test-notification-status", token, "--demo"])
        #expect(elsewhere.status != 0)
    }

    @Test func aMassExtensionAcceptedInOneRunCompletesAndIsFollowedInTheNext() async throws {
        let runs = Runs()
        defer { runs.remove() }
        let product = "com.iapdesk.demo.news.weekly"
        let accepted = try await runs.json(["mass-extend", "--product-id", product, "--days", "2", "--reason", "other", "--demo", "--yes"])
        let identifier = try #require(accepted["requestIdentifier"] as? String)
        // The demo completes a mass extension two seconds after accepting it, and a run that starts
        // later completes it before it answers: the runs below only wait for that time to pass. The
        // bound is for a hang; the sleep only paces the runs.
        var status: [String: Any] = [:]
        let bound = Date().addingTimeInterval(120)
        while Date() < bound {
            status = try await runs.json(["mass-extend-status", "--product-id", product, "--request-id", identifier, "--demo"])
            if status["complete"] as? Bool == true { break }
            try await Task.sleep(nanoseconds: 500_000_000)
        }
        #expect(status["complete"] as? Bool == true, "\(status)")
        #expect((status["succeededCount"] as? Int ?? 0) >= 1)
        // Completed once, however many runs saw it through: the same counts again.
        let again = try await runs.json(["mass-extend-status", "--product-id", product, "--request-id", identifier, "--demo"])
        #expect(again["succeededCount"] as? Int == status["succeededCount"] as? Int)
        #expect(again["completeDateMs"] as? Int == status["completeDateMs"] as? Int)
    }

    @Test func anExtensionLastsUntilResetWhichSaysWhatItRemoved() async throws {
        let runs = Runs()
        defer { runs.remove() }
        let before = try await runs.expiry()
        let extended = try await runs.json(["extend", Self.subscription, "--days", "3", "--reason", "service-issue", "--demo", "--yes"])
        #expect(extended["success"] as? Bool == true)
        #expect(try await runs.expiry() == before + 3 * 86_400_000)
        // The notification it added is in the next run's history too.
        let history = try await runs.json(["notifications", "--since", "1h", "--type", "RENEWAL_EXTENDED", "--demo"])
        #expect((history["notifications"] as? [[String: Any]])?.count == 1)

        let reset = try await runs.run(["demo", "--reset"])
        #expect(reset.status == 0, "\(reset.stderr)")
        #expect(reset.stdout.hasPrefix("Removed the demo's kept state in \(runs.folder): the dataset built around "), "\(reset.stdout)")
        #expect(reset.stdout.contains("1 journaled write (1 extension)"))
        #expect(!FileManager.default.fileExists(atPath: runs.folder))
        #expect(try await runs.expiry() != before + 3 * 86_400_000)
        let nothing = try await runs.run(["demo", "--reset"])
        #expect(nothing.stdout.contains("Nothing to remove") == false, "a run since made a fresh state: \(nothing.stdout)")
        #expect(nothing.stdout.contains("no writes"))
    }

    @Test func aLineCutShortIsSkippedAndSaidAndTheOthersStay() async throws {
        let runs = Runs()
        defer { runs.remove() }
        let before = try await runs.expiry()
        _ = try await runs.json(["extend", Self.subscription, "--days", "5", "--reason", "other", "--demo", "--yes"])
        // A crash in the middle of a line.
        let handle = try #require(FileHandle(forWritingAtPath: runs.journal))
        handle.seekToEndOfFile()
        handle.write(Data(#"{"kind":"extension","environment":"Produ"#.utf8))
        try handle.close()
        let lines = try String(contentsOfFile: runs.journal, encoding: .utf8).split(separator: "\n").count
        let result = try await runs.run(["status", Self.subscription, "--demo"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.contains("note: demo state: skipped line \(lines) of \(runs.journal): not a whole JSON line"), "\(result.stderr)")
        #expect(try await runs.expiry() == before + 5 * 86_400_000)
        // The next write starts on a line of its own: it is kept, not glued to the broken one.
        _ = try await runs.json(["app-account-token", Self.subscription, "7389a31a-fb6d-4569-a2a6-db7d85d84813", "--demo", "--yes"])
        let info = try await runs.json(["transaction", Self.subscription, "--demo"])
        #expect(info["appAccountToken"] as? String == "7389a31a-fb6d-4569-a2a6-db7d85d84813")
    }

    @Test func writesOfProcessesRunningAtOnceAreAllKeptWhole() async throws {
        let runs = Runs()
        defer { runs.remove() }
        // The state exists first, so the processes below share one dataset.
        _ = try await runs.expiry()
        let ids = ["2000000400000044", "2000000400000285", "2000000400000087", "2000000400000106", "2000000400000339", "2000000400002107"]
        let results = try await withThrowingTaskGroup(of: CommandLineTests.Run.self) { group in
            for id in ids { group.addTask { try await runs.run(["finish-transaction", id, "--demo", "--yes"]) } }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(results.allSatisfy { $0.status == 0 }, "\(results.map(\.stderr))")
        let lines = try String(contentsOfFile: runs.journal, encoding: .utf8).split(separator: "\n")
        let objects = lines.compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
        #expect(objects.count == lines.count, "every line whole")
        #expect(Set(objects.filter { $0["kind"] as? String == "finish-transaction" }.compactMap { $0["id"] as? String }) == Set(ids))
        let check = try await runs.run(["status", Self.subscription, "--demo"])
        #expect(!check.stderr.contains("skipped"))
    }

    @Test func resetIsRefusedWhileADemoRunsOnTheState() async throws {
        let runs = Runs()
        defer { runs.remove() }
        var configuration = DemoServer.Configuration()
        configuration.stateFolder = runs.folder
        let server = try await DemoServer.start(configuration)
        let refused = try await runs.run(["demo", "--reset"])
        await server.stop()
        #expect(refused.status == 3)
        #expect(refused.stderr.contains("A demo is running on the state at \(runs.folder)"), "\(refused.stderr)")
        #expect(FileManager.default.fileExists(atPath: runs.folder + "/dataset.json"))
        let removed = try await runs.run(["demo", "--reset"])
        #expect(removed.status == 0)
        #expect(removed.stdout.contains("no writes"))
    }
}
