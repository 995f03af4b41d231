import DemoServer
import Foundation
import Synchronization
import Testing

/// `--from FILE` on the read commands: one process for a file of IDs, records in input order,
/// each ID asked once, Apple's rate limit kept, Ctrl-C and `--resume`.
@Suite(.serialized) struct BulkReadCommandTests {
    static let known = "2000000400000044"

    /// The answers a demo server gives, as they are made (subscribed before the run starts).
    struct Answers {
        let stream: AsyncStream<DemoActivity>

        init(_ server: DemoServer) { stream = server.activity() }

        /// Reads the server's answers to paths containing `fragment` until `count` of them were
        /// not 429 (each ID's last answer, so every 429 came before), and gives them all.
        func waitFor(_ count: Int, to fragment: String) async -> [(path: String, status: Int)] {
            var matching: [(path: String, status: Int)] = []
            for await event in stream {
                guard case .answered(_, let path, let status) = event, path.contains(fragment) else { continue }
                matching.append((path, status))
                if matching.filter({ $0.status != 429 }).count >= count { break }
            }
            return matching
        }
    }

    func server(rateLimits: Bool = true) async throws -> (DemoServer, [String]) {
        var faults = DemoFaults()
        faults.rateLimits = rateLimits
        return try await FaultCommandTests().server(faults)
    }

    func file(_ text: String, _ name: String = "ids.txt") throws -> String {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("iapdesk-bulk-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let path = folder.appendingPathComponent(name).path
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    func records(_ text: String) throws -> [[String: Any]] {
        try text.split(separator: "\n").map { line in
            try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], "\(line.prefix(200))")
        }
    }

    func run(_ arguments: [String], interruptWhen: (@Sendable () -> Bool)? = nil) async throws -> CommandLineTests.Run {
        let (process, out, err) = CommandLineTests.process(arguments)
        return try await CommandLineTests.launch(process, out, err, interruptWhen: interruptWhen)
    }

    @Test func oneRecordPerLineInInputOrderAndEachIDAskedOnce() async throws {
        let (server, flags) = try await server()
        let answers = Answers(server)
        let input = try file("transactionId\n\(Self.known)\n# a comment\n3000000000000001\n\n\(Self.known)\nMK5TTTVWJH\n3000000000000002\n")
        let result = try await run(["status", "--from", input] + flags)
        let records = try records(result.stdout)
        #expect(records.map { $0["line"] as? Int } == [2, 4, 6, 7, 8])
        #expect(records.map { $0["id"] as? String } == [Self.known, "3000000000000001", Self.known, "MK5TTTVWJH", "3000000000000002"])
        #expect(records.map { $0["ok"] as? Bool } == [true, false, true, false, false])
        let result0 = try #require(records[0]["result"] as? [String: Any])
        #expect((result0["groups"] as? [Any])?.isEmpty == false)
        let errors = records.compactMap { $0["error"] as? [String: Any] }
        #expect(errors.map { $0["outcome"] as? String } == ["not-found", "invalid", "not-found"])
        #expect(errors[0]["appleCode"] as? Int == 4_040_010)
        #expect((errors[1]["message"] as? String)?.contains("looks like an order ID") == true)
        // An invalid ID fails the run (64) over IDs Apple does not know (2).
        #expect(result.status == 64, "\(result.stderr)")
        #expect(result.stderr.contains("5 lines from \(input) (3 skipped: blank, # comments or a header); 4 distinct IDs"))
        // Outcomes count lines: the ID on two lines is two ok lines.
        #expect(result.stderr.contains("Lines: 2 ok, 1 invalid, 2 not-found"))
        // The ID on two lines was asked once; the order ID never reached Apple.
        let made = await answers.waitFor(3, to: "/inApps/v1/subscriptions/")
        #expect(made.filter { $0.path.hasSuffix(Self.known) && $0.status == 200 }.count == 1)
        #expect(!made.contains { $0.path.contains("MK5TTTVWJH") })
        // Every 429 the server answered is in the summary (the pace keeps them at none).
        let refused = made.filter { $0.status == 429 }.count
        #expect(result.stderr.contains("\(refused) answered 429 (Get All Subscription Statuses: 50 per second, paced at 48 per second)"))
        await server.stop()
    }

    @Test func aCSVColumnInAndCSVRowsOut() async throws {
        let (server, flags) = try await server(rateLimits: false)
        let input = try file("name,transaction\n\"Doe, Jane\",\(Self.known)\n\"Roe \"\"R\"\"\",3000000000000003\n", "customers.csv")
        // A row without an ID, a short row and a comment line of an export.
        let gappy = try file("# exported after the outage\nname,transaction\nA,\(Self.known)\nB,\nShort row\n\nC,3000000000000004\n", "gappy.csv")
        let gaps = try await run(["status", "--from", gappy, "--column", "transaction", "--format", "csv"] + flags)
        let gapRows = gaps.stdout.split(separator: "\n").map(String.init)
        #expect(gapRows.contains { $0.hasPrefix("4,,invalid,The row has no ID in column transaction.") }, "\(gapRows)")
        #expect(gapRows.contains { $0.hasPrefix("5,,invalid,The row has 1 column; the IDs are in column transaction.") })
        #expect(gapRows.last?.hasPrefix("7,3000000000000004,not-found,") == true)
        #expect(gaps.stderr.contains("2 rows held no ID"))
        #expect(gaps.status == 64)
        let result = try await run(["history", "--from", input, "--column", "TRANSACTION", "--format", "csv"] + flags)
        #expect(result.status == 2, "\(result.stderr)")
        let rows = result.stdout.split(separator: "\n").map(String.init)
        #expect(rows.first?.hasPrefix("line,id,outcome,error,transactionId,originalTransactionId,productId,") == true)
        let known = rows.filter { $0.hasPrefix("2,\(Self.known),ok,,") }
        #expect(known.count > 1, "one row per transaction: \(rows.prefix(3))")
        #expect(known.allSatisfy { $0.contains(",com.iapdesk.demo.") })
        #expect(known.contains { $0.contains(",\(Self.known),com.iapdesk.demo.") })
        #expect(rows.last?.hasPrefix("3,3000000000000003,not-found,") == true)
        // The column by number, and a column that is not there.
        let byNumber = try await run(["history", "--from", input, "--column", "2", "--format", "csv"] + flags)
        #expect(byNumber.stdout == result.stdout)
        let missing = try await run(["history", "--from", input, "--column", "txn"] + flags)
        #expect(missing.status == 64)
        #expect(missing.stderr.contains("--column txn") && missing.stderr.contains("name, transaction"))
        let unnamed = try await run(["history", "--from", input] + flags)
        #expect(unnamed.status == 64)
        #expect(unnamed.stderr.contains("--column NAME"))
        await server.stop()
    }

    @Test func resumeAsksOnlyForTheLinesTheOutputLacks() async throws {
        let (server, flags) = try await server()
        let ids = (1...12).map { String(3_000_000_000_000_100 + $0) }
        let input = try file(ids.joined(separator: "\n") + "\n")
        let output = URL(fileURLWithPath: input).deletingLastPathComponent().appendingPathComponent("out.jsonl").path
        let first = try await run(["transaction", "--from", input, "--output", output] + flags)
        #expect(first.status == 2, "\(first.stderr)")
        #expect(first.stdout.isEmpty)
        let whole = try String(contentsOfFile: output, encoding: .utf8)
        let lines = whole.split(separator: "\n", omittingEmptySubsequences: false)
        // As if the run had been stopped while writing line 6.
        let cut = lines.prefix(5).joined(separator: "\n") + "\n" + lines[5].prefix(20)
        try cut.write(toFile: output, atomically: true, encoding: .utf8)
        let answers = Answers(server)
        let resumed = try await run(["transaction", "--from", input, "--output", output, "--resume"] + flags)
        #expect(resumed.status == 2, "\(resumed.stderr)")
        #expect(resumed.stderr.contains("5 already in \(output) from an earlier run; 7 distinct IDs"))
        let made = await answers.waitFor(7, to: "/inApps/v1/transactions/")
        #expect(Set(made.map { String($0.path.split(separator: "/").last ?? "") }) == Set(ids.suffix(7)))
        let records = try records(try String(contentsOfFile: output, encoding: .utf8))
        #expect(records.map { $0["line"] as? Int } == Array(1...12))
        #expect(records.map { $0["id"] as? String } == ids)
        // Resuming a finished run asks nothing and still fails as the file's records do.
        let finished = try await run(["transaction", "--from", input, "--output", output, "--resume"] + flags)
        #expect(finished.status == 2, "\(finished.stderr)")
        #expect(finished.stderr.contains("Lines in the whole file: 0 ok, 12 not-found"))
        // Nothing is overwritten, and a file from other input is not continued.
        let again = try await run(["transaction", "--from", input, "--output", output] + flags)
        #expect(again.status == 64)
        #expect(again.stderr.contains("already exists: add --resume"))
        let other = try file((ids.reversed()).joined(separator: "\n") + "\n")
        let mixed = try await run(["transaction", "--from", other, "--output", output, "--resume"] + flags)
        #expect(mixed.status == 64)
        #expect(mixed.stderr.contains("written from other input"))
        await server.stop()
    }

    @Test func ctrlCFinishesWhatWasAskedAndSaysHowToResume() async throws {
        let (server, flags) = try await server()
        // Sandbox allows 5 per second: 40 IDs take long enough to be stopped part-way.
        let sandbox = flags.map { $0 == "Production" ? "Sandbox" : $0 }.map { $0.hasPrefix("http") ? $0 + "/sandbox" : $0 }
        let input = try file((1...40).map { String(3_000_000_000_000_200 + $0) }.joined(separator: "\n") + "\n")
        let output = URL(fileURLWithPath: input).deletingLastPathComponent().appendingPathComponent("out.jsonl").path
        let result = try await run(["refunds", "--from", input, "--output", output] + sandbox) {
            ((try? String(contentsOfFile: output, encoding: .utf8))?.split(separator: "\n").count ?? 0) >= 3
        }
        #expect(result.status == 130, "\(result.stderr)")
        #expect(result.stderr.contains("Stopped by Ctrl-C after"))
        #expect(result.stderr.contains("run the same command with --resume"))
        let records = try records(try String(contentsOfFile: output, encoding: .utf8))
        #expect(records.count >= 3 && records.count < 40)
        #expect(records.map { $0["line"] as? Int } == Array(1...records.count))
        #expect(records.allSatisfy { ($0["error"] as? [String: Any])?["outcome"] as? String == "not-found" }, "no ID's own request was cut short")
        await server.stop()
    }

    @Test func aReaderThatGoesAwayStopsTheRunWithoutACrash() async throws {
        let (server, flags) = try await server()
        let sandbox = flags.map { $0 == "Production" ? "Sandbox" : $0 }.map { $0.hasPrefix("http") ? $0 + "/sandbox" : $0 }
        let input = try file((1...40).map { String(3_000_000_000_000_300 + $0) }.joined(separator: "\n") + "\n")
        let (process, out, err) = CommandLineTests.process(["status", "--from", input] + sandbox)
        try process.run()
        // As `| head -1` does: read the first record, then close the pipe.
        var first = Data()
        while !first.contains(UInt8(ascii: "\n")) {
            let chunk = out.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            first.append(chunk)
        }
        try out.fileHandleForReading.close()
        let stderr = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        #expect(String(decoding: first, as: UTF8.self).hasPrefix("{\"error\""))
        #expect(process.terminationReason == .exit)
        #expect(process.terminationStatus == 2)
        #expect(String(decoding: stderr, as: UTF8.self).contains("Standard output was closed after"))
        await server.stop()
    }

    @Test func anIDWithAStrayCommaIsStillOneID() async throws {
        let input = try file("# after the outage\n\(Self.known),\n3000000000000005\n")
        let result = try await run(["status", "--from", input, "--demo"])
        let records = try records(result.stdout)
        #expect(records.map { $0["id"] as? String } == [Self.known, "3000000000000005"])
        let two = try await run(["status", "--from", try file("# after the outage\nname,id\nA,\(Self.known)\n"), "--demo"])
        #expect(two.status == 64)
        #expect(two.stderr.contains("has 2 comma-separated values") && two.stderr.contains("the first row is: name, id"))
    }

    @Test func optionsThatDoNotGoTogetherAreRefused() async throws {
        let input = try file("\(Self.known)\n")
        let both = try await run(["status", Self.known, "--from", input, "--demo"])
        #expect(both.status == 64)
        #expect(both.stderr.contains("Give an ID or --from FILE, not both"))
        let resumeAlone = try await run(["status", "--from", input, "--resume", "--demo"])
        #expect(resumeAlone.stderr.contains("--resume needs --output FILE"))
        let stray = try await run(["status", Self.known, "--output", "x.jsonl", "--demo"])
        #expect(stray.stderr.contains("--output goes with --from FILE"))
        let none = try await run(["status", "--demo"])
        #expect(none.stderr.contains("Missing the ID"))
        let format = try await run(["status", "--from", input, "--format", "xml", "--demo"])
        #expect(format.stderr.contains("--format xml is not jsonl or csv"))
        let empty = try await run(["status", "--from", try file("# nothing yet\n\n"), "--demo"])
        #expect(empty.status == 64)
        #expect(empty.stderr.contains("holds no IDs (2 lines skipped"))
        let unreadable = try await run(["status", "--from", "/nonexistent/ids.txt", "--demo"])
        #expect(unreadable.status == 64)
        #expect(unreadable.stderr.contains("--from /nonexistent/ids.txt cannot be read"))
    }
}
