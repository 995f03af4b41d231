import AppStoreServerAPI
import Crypto
import DemoServer
import Foundation
import Synchronization
import Testing

/// Runs the built `iapdesk` binary and checks what a user or script sees: tables, JSON, exit codes.
/// Serialized: `run` blocks its thread while the binary runs, and several at once would leave the
/// concurrency pool no thread for the other tests' servers and timers.
@Suite(.serialized) struct CommandLineTests {
    struct Run {
        let status: Int32
        let stdout: String
        let stderr: String
    }

    static var binary: URL {
        // The test bundle sits in the build folder beside the executable.
        var folder = Bundle.main.bundleURL
        while !FileManager.default.fileExists(atPath: folder.appendingPathComponent("iapdesk").path), folder.path != "/" {
            folder.deleteLastPathComponent()
        }
        return folder.appendingPathComponent("iapdesk")
    }

    /// The binary ready to run with `arguments`, config and state folders of its own unless
    /// `environment` names them, and pipes for its output; stdin is empty.
    static func process(_ arguments: [String], environment: [String: String] = [:]) -> (process: Process, out: Pipe, err: Pipe) {
        let process = Process()
        process.executableURL = Self.binary
        process.arguments = arguments
        var env = ["HOME": FileManager.default.temporaryDirectory.path, "COLUMNS": "160", "PATH": "/usr/bin:/bin"]
        env["XDG_CONFIG_HOME"] = FileManager.default.temporaryDirectory.appendingPathComponent("iapdesk-cli-\(UUID().uuidString)").path
        // A state folder of its own too (audit ledger, the demo's kept state): runs never share one
        // unless a test passes the same XDG_STATE_HOME to each.
        env["XDG_STATE_HOME"] = FileManager.default.temporaryDirectory.appendingPathComponent("iapdesk-cli-state-\(UUID().uuidString)").path
        // And a store of its own (notifications, and the ledger of writes made with a profile).
        env["XDG_DATA_HOME"] = FileManager.default.temporaryDirectory.appendingPathComponent("iapdesk-cli-data-\(UUID().uuidString)").path
        for (key, value) in environment { env[key] = value }
        process.environment = env
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = FileHandle.nullDevice
        return (process, out, err)
    }

    func run(_ arguments: [String], environment: [String: String] = [:], stdin: String? = nil) async throws -> Run {
        let (process, out, err) = Self.process(arguments, environment: environment)
        return try await Self.launch(process, out, err, stdin: stdin)
    }

    /// Runs the binary without holding a thread of the concurrency pool while it runs: a blocked
    /// pool (one thread per core) starves the demo servers and timers of the tests running beside.
    /// Ctrl-C after `interruptAfter` seconds, or once `interruptWhen` holds (looked at every 50 ms).
    static func launch(
        _ process: Process, _ out: Pipe, _ err: Pipe, stdin: String? = nil, interruptAfter: TimeInterval? = nil,
        interruptWhen: (@Sendable () -> Bool)? = nil
    ) async throws -> Run {
        let input = Pipe()
        if stdin != nil { process.standardInput = input }
        let output = Mutex<(out: Data, err: Data)>((Data(), Data()))
        let group = DispatchGroup()
        group.enter()
        group.enter()
        group.enter()
        process.terminationHandler = { _ in group.leave() }
        try process.run()
        if let stdin {
            input.fileHandleForWriting.write(Data(stdin.utf8))
            try input.fileHandleForWriting.close()
        }
        DispatchQueue.global().async {
            let data = out.fileHandleForReading.readDataToEndOfFile()
            output.withLock { $0.out = data }
            group.leave()
        }
        DispatchQueue.global().async {
            let data = err.fileHandleForReading.readDataToEndOfFile()
            output.withLock { $0.err = data }
            group.leave()
        }
        if let interruptAfter {
            DispatchQueue.global().asyncAfter(deadline: .now() + interruptAfter) { process.interrupt() }
        }
        if let interruptWhen {
            DispatchQueue.global().async {
                while process.isRunning && !interruptWhen() { usleep(50_000) }
                if process.isRunning { process.interrupt() }
            }
        }
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            group.notify(queue: .global()) { continuation.resume() }
        }
        let (stdout, stderr) = output.withLock { ($0.out, $0.err) }
        return Run(status: process.terminationStatus, stdout: String(decoding: stdout, as: UTF8.self), stderr: String(decoding: stderr, as: UTF8.self))
    }

    @Test func lookupPrintsATable() async throws {
        let result = try await run(["lookup", "MK5TTTVWJH", "--demo"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("Order MK5TTTVWJH in Demo (Production): 2 transactions"))
        #expect(result.stdout.contains("TRANSACTION"))
        #expect(result.stdout.contains("com.iapdesk.demo.pro.monthly"))
        #expect(result.stdout.contains("9.99 USD"))
        let rows = result.stdout.split(separator: "\n").filter { $0.hasPrefix("2000000") }
        #expect(rows.count == 2)
        #expect(rows.allSatisfy { $0.hasSuffix("ok") })
    }

    @Test func notificationHistoryAsFarBackAsAppleKeepsItIsListedNotRefused() async throws {
        // Apple's window is counted from its own clock: "180d" here must not fall just outside it there.
        let whole = try await run(["notifications", "--since", "180d", "--demo"])
        #expect(whole.status == 0, "\(whole.stderr)")
        #expect(whole.stdout.contains("37 notifications in Demo (Production)"))
        #expect(!whole.stderr.contains("keeps"))
        let further = try await run(["notifications", "--since", "400d", "--demo"])
        #expect(further.status == 0, "\(further.stderr)")
        #expect(further.stderr.contains("Production keeps 180 days of notification history"))
    }

    @Test func reconcileWithTheDemoAloneShowsEveryKindOfGapWithoutTouchingTheRealStore() async throws {
        let data = FileManager.default.temporaryDirectory.appendingPathComponent("iapdesk-data-\(UUID().uuidString)").path
        let result = try await run(["reconcile", "--since", "179d", "--demo", "--json"], environment: ["XDG_DATA_HOME": data])
        #expect(result.status == 10, "\(result.stderr)")
        let document = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any]
        let counts = try #require(document?["counts"] as? [String: Int], "\(result.stdout.prefix(400))")
        // Every verdict but "unknown to Apple" (the demo's TEST notification is not a gap) and "recovered" (nothing was re-posted yet).
        // Nor "arrived, but the forward failed": the demo's store is written by no forwarding receiver.
        for verdict in counts.keys.sorted() where !["unknown-to-apple", "recovered", "arrived-but-forward-failed"].contains(verdict) {
            #expect(counts[verdict, default: 0] > 0, "\(verdict): \(counts)")
        }
        #expect(counts["unknown-to-apple"] == 0)
        #expect(counts["recovered"] == 0)
        #expect(counts.count == 9)
        #expect(!FileManager.default.fileExists(atPath: data + "/iapdesk/notifications.sqlite"))
    }

    @Test func jsonIsStableForScripts() async throws {
        let result = try await run(["lookup", "mk5tttvwjh", "--demo", "--json"])
        #expect(result.status == 0)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        #expect(object["orderId"] as? String == "MK5TTTVWJH")
        #expect(object["valid"] as? Bool == true)
        let transactions = try #require(object["transactions"] as? [[String: Any]])
        #expect(transactions.count == 2)
        let first = transactions[0]
        #expect((first["verification"] as? [String: Any])?["status"] as? String == "verified")
        #expect((first["purchaseDate"] as? String)?.hasSuffix("Z") == true)
        #expect(first["purchaseDateMs"] is Int)
        #expect(first["price"] as? Int == 9990 || first["price"] as? Int == 990)
    }

    @Test func exitCodesAreStable() async throws {
        #expect(try await run(["lookup", "ZZZZZZZZZZ", "--demo"]).status == 2)
        let malformed = try await run(["transaction", "12ab", "--demo"])
        // Refused here, naming the rule, before anything reaches the server.
        #expect(malformed.status == 64)
        #expect(malformed.stderr.contains("a transaction ID digits only"))
        #expect(try await run(["lookup", String(repeating: "A", count: 40), "--demo"]).status == 64)
        let emoji = try await run(["lookup", "🙂", "--demo"])
        #expect(emoji.status == 64)
        #expect(emoji.stderr.contains("characters no ID has"))
        let letters = try await run(["transaction", "abc", "--demo"])
        #expect(letters.status == 64)
        #expect(letters.stderr.contains("an order ID has 6 to 20"))
        let unknown = try await run(["bogus"])
        #expect(unknown.status == 64)
        #expect(unknown.stderr.contains("iapdesk has no command \"bogus\""))
        // A typo is named, with the command it is near, and not the console's usage.
        let typo = try await run(["reconcil", "--demo"])
        #expect(typo.status == 64)
        #expect(typo.stderr.contains("Did you mean \"reconcile\"?"), "\(typo.stderr)")
        #expect(!typo.stderr.contains("Usage: iapdesk console"))
        #expect(try await run(["lookup", "MK5TTTVWJH", "--demo", "--environment", "Sandbox"]).status == 64)
        #expect(try await run(["transaction", "2000000499999999", "--demo"]).status == 2)
        #expect(try await run(["history", "1", "--limit", "0", "--demo"]).status == 64)
        let unconfigured = try await run(["lookup", "MK5TTTVWJH"])
        #expect(unconfigured.status == 3)
        #expect(unconfigured.stderr.contains("issuer_id"))
        let unconfirmed = try await run(["extend", "2000000400000044", "--days", "3", "--reason", "goodwill", "--demo"])
        #expect(unconfirmed.status == 9)
        #expect(unconfirmed.stderr.contains("--yes"))
        #expect(try await run(["extend", "1", "--days", "91", "--reason", "goodwill", "--demo"]).status == 64)
        #expect(try await run(["extend", "1", "--days", "9", "--reason", "because", "--demo", "--yes"]).status == 64)
        // An ID Apple does not know is "not found" (2), as for every read, not an unexpected failure.
        let unknownToApple = try await run(["extend", "2000000499999999", "--days", "7", "--reason", "goodwill", "--demo", "--yes"])
        #expect(unknownToApple.status == 2)
        #expect(unknownToApple.stderr.contains("Not sent"))
    }

    @Test func writesWithYesAndTheirRefusals() async throws {
        let seeds = try await run(["status", "2000000400000044", "--demo", "--json"])
        #expect(seeds.status == 0)
        let extended = try await run(["extend", "2000000400000044", "--days", "3", "--reason", "service-issue", "--demo", "--yes", "--json"])
        #expect(extended.status == 0, "\(extended.stderr)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(extended.stdout.utf8)) as? [String: Any])
        #expect(object["success"] as? Bool == true)
        #expect(object["effectiveDateMs"] is Int)
    }

    @Test func notesAreKeptWithTheirAgentAndListed() async throws {
        let state = FileManager.default.temporaryDirectory.appendingPathComponent("iapdesk-notes-\(UUID().uuidString)").path
        let environment = ["XDG_STATE_HOME": state, "IAPDESK_AGENT": "sam"]
        let added = try await run(["note", "MK5TTTVWJH", "Outage on the 3rd; extended 7 days", "--demo"], environment: environment)
        #expect(added.status == 0, "\(added.stderr)")
        #expect(added.stdout.contains("Noted for MK5TTTVWJH by sam"))
        let listed = try await run(["note", "MK5TTTVWJH", "--demo", "--json"], environment: environment)
        let notes = try #require((try JSONSerialization.jsonObject(with: Data(listed.stdout.utf8)) as? [String: Any])?["notes"] as? [[String: Any]])
        #expect(notes.map { $0["text"] as? String } == ["Outage on the 3rd; extended 7 days"])
        #expect(notes.map { $0["agent"] as? String } == ["sam"])
        let empty = try await run(["note", "MK5TTTVWJH", "   ", "--demo"], environment: environment)
        #expect(empty.status == 64)
        #expect(empty.stderr.contains("The note is empty."))
        let long = try await run(["note", "MK5TTTVWJH", String(repeating: "é", count: 501), "--demo"], environment: environment)
        #expect(long.status == 64)
        #expect(long.stderr.contains("at most 500"))
    }

    @Test func finishTransactionIsAConfirmedWriteInTheLedger() async throws {
        let state = FileManager.default.temporaryDirectory.appendingPathComponent("iapdesk-state-\(UUID().uuidString)").path
        let environment = ["XDG_STATE_HOME": state]
        let unconfirmed = try await run(["finish-transaction", "2000000400000044", "--demo"], environment: environment)
        #expect(unconfirmed.status == 9)
        #expect(unconfirmed.stderr.contains("--yes"))
        let finished = try await run(["finish-transaction", "2000000400000044", "--demo", "--yes", "--json"], environment: environment)
        #expect(finished.status == 0, "\(finished.stderr)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(finished.stdout.utf8)) as? [String: Any])
        #expect(object["finished"] as? Bool == true)
        let unknown = try await run(["finish-transaction", "2000000999999999", "--demo", "--yes"], environment: environment)
        #expect(unknown.status == 2)
        #expect(unknown.stderr.contains("4040010"))
        // The demo's writes are kept with its state, apart from the real ledger.
        #expect(try await run(["audit", "--json"], environment: environment).stdout.contains("2000000400000044") == false)
        let audit = try await run(["audit", "--demo", "--json"], environment: environment)
        let writes = try #require((try JSONSerialization.jsonObject(with: Data(audit.stdout.utf8)) as? [String: Any])?["writes"] as? [[String: Any]])
        let finishes = writes.filter { $0["write"] as? String == "finish-transaction" }
        #expect(finishes.map { $0["subject"] as? String } == ["transaction 2000000400000044", "transaction 2000000999999999"])
        #expect(finishes.map { $0["source"] as? String } == ["command-line", "command-line"])
        #expect((finishes.first?["state"] as? String) == "applied")
        #expect((finishes.last?["state"] as? String)?.contains("4040010") == true)
    }

    @Test func caseFilesAreWholeInMarkdownAndJSONAndAnUnknownCustomerIsSaidSo() async throws {
        let markdown = try await run(["case", "MK5TTTVWJH", "--demo"])
        #expect(markdown.status == 0, "\(markdown.stderr)")
        for heading in ["# Case file: MK5TTTVWJH", "## Subscriptions", "## Purchases", "## Refunds", "## Notifications", "## Writes from iapdesk"] {
            #expect(markdown.stdout.contains(heading), "\(heading)")
        }
        #expect(markdown.stdout.contains("Original transaction IDs: 2000000400000044, 2000000400000285"))
        #expect(!markdown.stdout.contains("eyJ") && !markdown.stdout.contains("PRIVATE"))
        let output = FileManager.default.temporaryDirectory.appendingPathComponent("case-\(UUID().uuidString).json").path
        let json = try await run(["case", "2000000400000044", "--demo", "--format", "json", "--output", output])
        #expect(json.status == 0, "\(json.stderr)")
        #expect(json.stderr.contains("written to \(output)"))
        let document = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: output))) as? [String: Any])
        #expect(document["originalTransactionIds"] as? [String] == ["2000000400000044", "2000000400000285"])
        #expect((document["purchases"] as? [Any])?.count == 8)
        #expect((document["subscriptions"] as? [[String: Any]])?.first?["status"] as? String == "Active")
        let unknown = try await run(["case", "2000000999999999", "--demo"])
        #expect(unknown.status == 2)
        let bad = try await run(["case", "café", "--demo"])
        #expect(bad.status == 64)
    }

    /// A config folder (for XDG_CONFIG_HOME) holding one profile, "support", with a key of its own
    /// and a base URL nothing listens on (a request that left ends in a transport failure, exit 5),
    /// plus the `extra` lines; and the key's path.
    static func profileFolder(extra: String) throws -> (folder: URL, keyPath: String) {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("iapdesk-profile-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder.appendingPathComponent("iapdesk"), withIntermediateDirectories: true)
        let keyPath = folder.appendingPathComponent("key.p8").path
        _ = FileManager.default.createFile(atPath: keyPath, contents: Data(P256.Signing.PrivateKey().pemRepresentation.utf8), attributes: [.posixPermissions: 0o600])
        let config = """
            [profiles.support]
            issuer_id = "57246542-96fe-1a63-e053-0824d011072a"
            key_id = "2X9R4HXF34"
            key_file = "\(keyPath)"
            bundle_id = "com.example"
            app_apple_id = 1
            environment = "Production"
            base_url = "http://127.0.0.1:9"
            \(extra)
            """
        try config.write(to: folder.appendingPathComponent("iapdesk/config.toml"), atomically: true, encoding: .utf8)
        return (folder, keyPath)
    }

    @Test func readOnlyProfileRefusesWrites() async throws {
        let (folder, keyPath) = try Self.profileFolder(extra: "read_only = true")
        let refused = try await run(["extend", "1", "--days", "3", "--reason", "goodwill", "--yes"], environment: ["XDG_CONFIG_HOME": folder.path])
        #expect(refused.status == 9)
        #expect(refused.stderr.contains("read-only"))
        let notFinished = try await run(["finish-transaction", "1", "--yes"], environment: ["XDG_CONFIG_HOME": folder.path])
        #expect(notFinished.status == 9)
        #expect(notFinished.stderr.contains("read-only"))
        // A key readable by others is refused with the fix.
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: keyPath)
        let open = try await run(["transaction", "1"], environment: ["XDG_CONFIG_HOME": folder.path])
        #expect(open.status == 3)
        #expect(open.stderr.contains("chmod 600 \(keyPath)"))
        #expect(!open.stderr.contains("PRIVATE KEY"))
        // Nothing listens on port 9: a transport failure.
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: keyPath)
        let offline = try await run(["transaction", "1"], environment: ["XDG_CONFIG_HOME": folder.path])
        #expect(offline.status == 5)
    }

    @Test func decodeVerifiesAndRejectsTampering() async throws {
        let server = try await DemoServer.start()
        let info = try await server.makeClient().getTransactionInfo(transactionId: server.seedIDs().originalTransactionIds[0])
        let jws = try #require(info.signedTransactionInfo)
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("demo-root-\(UUID().uuidString).der")
        try server.rootCertificateDER.write(to: root)
        await server.stop()
        let ok = try await run(["decode", jws, "--root-cert", root.path, "--bundle-id", DemoServer.bundleId, "--environment", "Production", "--app-apple-id", String(DemoServer.appAppleId)])
        #expect(ok.status == 0, "\(ok.stderr)")
        #expect(ok.stdout.contains("== transaction at $"))
        #expect(ok.stdout.contains("Verified"))
        let parts = jws.split(separator: ".")
        let payload = String(decoding: Base64URL.decode(parts[1])!, as: UTF8.self).replacingOccurrences(of: "\"price\":", with: "\"price\":1")
        let tampered = [String(parts[0]), Base64URL.encode(Data(payload.utf8)), String(parts[2])].joined(separator: ".")
        let bad = try await run(["decode", tampered, "--root-cert", root.path, "--bundle-id", DemoServer.bundleId, "--environment", "Production", "--app-apple-id", String(DemoServer.appAppleId), "--json"])
        #expect(bad.status == 8)
        let untrusted = try await run(["decode", jws])
        #expect(untrusted.status == 8)
        #expect(untrusted.stdout.contains("NOT VERIFIED"))
        let garbage = try await run(["decode", "hello"])
        #expect(garbage.status == 64)
        #expect(garbage.stderr.contains("Not App Store signed data"))
    }

    @Test func decodeTakesAWebhookBodyOrAnAPIAnswerFromStandardInput() async throws {
        let server = try await DemoServer.start()
        let client = try server.makeClient()
        let history = try await client.getNotificationHistory(
            request: NotificationHistoryRequest(startDate: Date().addingTimeInterval(-7 * 86_400), endDate: Date()))
        let notification = try #require(history.notificationHistory?.first?.signedPayload)
        let statuses = try await client.getAllSubscriptionStatuses(anyTransactionId: server.seedIDs().originalTransactionIds[0])
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("demo-root-\(UUID().uuidString).der")
        try server.rootCertificateDER.write(to: root)
        await server.stop()
        let profile = ["--root-cert", root.path, "--bundle-id", DemoServer.bundleId, "--environment", "Production", "--app-apple-id", String(DemoServer.appAppleId)]
        let webhook = try await run(["decode", "-"] + profile, stdin: #"{"signedPayload":"\#(notification)"}"# + "\n")
        #expect(webhook.status == 0, "\(webhook.stdout)\(webhook.stderr)")
        #expect(webhook.stdout.contains("== notification at $.signedPayload\nVerified: "))
        #expect(!webhook.stdout.contains("INVALID_JWT_FORMAT"))
        let body = String(decoding: try AppStoreJSON.encoder().encode(statuses), as: UTF8.self)
        let answer = try await run(["decode"] + profile + ["--json"], stdin: body)
        #expect(answer.status == 0, "\(answer.stderr)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(answer.stdout.utf8)) as? [String: Any])
        let parts = try #require(object["parts"] as? [[String: Any]])
        #expect(!parts.isEmpty)
        #expect(parts.allSatisfy { ($0["part"] as? String)?.hasPrefix("$.data[") == true })
        #expect(parts.allSatisfy { ($0["verification"] as? [String: Any])?["status"] as? String == "verified" })
        let nothing = try await run(["decode"] + profile, stdin: #"{"hasMore":false}"#)
        #expect(nothing.status == 64)
        #expect(nothing.stderr.contains("no signed data"))
    }

    @Test func decodeChecksWhatIsGivenAndSaysWhatIsNot() async throws {
        let server = try await DemoServer.start()
        let id = server.seedIDs().originalTransactionIds[0]
        let info = try await server.makeClient().getTransactionInfo(transactionId: id)
        var renewals: [String] = []
        for subscription in server.seedIDs().originalTransactionIds where renewals.isEmpty {
            let statuses = try? await server.makeClient().getAllSubscriptionStatuses(anyTransactionId: subscription)
            renewals = (statuses?.data ?? []).flatMap { $0.lastTransactions ?? [] }.compactMap(\.signedRenewalInfo)
        }
        let jws = try #require(info.signedTransactionInfo)
        let renewal = try #require(renewals.first)
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("demo-root-\(UUID().uuidString).der")
        try server.rootCertificateDER.write(to: root)
        await server.stop()
        // A bundle ID alone is checked; the environment is said not to be.
        let bundleOnly = try await run(["decode", jws, "--root-cert", root.path, "--bundle-id", DemoServer.bundleId])
        #expect(bundleOnly.status == 0, "\(bundleOnly.stderr)")
        #expect(bundleOnly.stdout.contains("bundle ID: checked (\(DemoServer.bundleId))"))
        #expect(bundleOnly.stdout.contains("environment: not given"))
        let wrongBundle = try await run(["decode", jws, "--root-cert", root.path, "--bundle-id", "com.someone.else"])
        #expect(wrongBundle.status == 8)
        #expect(wrongBundle.stdout.contains("bundle ID: FAILED"))
        // Renewal info carries no bundle ID: never reported as matching the app.
        let renewalRun = try await run(["decode", renewal, "--root-cert", root.path, "--bundle-id", DemoServer.bundleId, "--environment", "Production", "--app-apple-id", String(DemoServer.appAppleId), "--json"])
        #expect(renewalRun.status == 0, "\(renewalRun.stderr)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(renewalRun.stdout.utf8)) as? [String: Any])
        let part = try #require((object["parts"] as? [[String: Any]])?.first)
        let checks = try #require((part["verification"] as? [String: Any])?["checks"] as? [[String: Any]])
        #expect(checks.contains { $0["check"] as? String == "bundle ID" && $0["outcome"] as? String == "not_carried" })
        #expect(checks.contains { $0["check"] as? String == "environment" && $0["outcome"] as? String == "passed" })
    }
}
