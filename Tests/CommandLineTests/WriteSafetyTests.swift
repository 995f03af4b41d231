import AppStoreServerAPI
import DemoServer
import Foundation
import Testing

/// Command-line writes against a demo server started by the test, with the faults a user meets:
/// an answer that cannot be read, a process killed mid-request, a second run of the same command.
@Suite(.serialized) struct WriteSafetyTests {
    /// The active monthly subscription of order MK5TTTVWJH.
    static let subscription = "2000000400000044"

    /// A demo server plus the files and state folder a command line needs to reach it.
    struct Bench {
        let server: DemoServer
        let folder: URL
        var stateHome: String { folder.appendingPathComponent("state").path }

        /// `sharing` another bench: the same key, folder and state, another server.
        static func start(_ faults: DemoFaults, sharing other: Bench? = nil) async throws -> Bench {
            var configuration = DemoServer.Configuration()
            configuration.faults = faults
            configuration.signingKey = other?.server.signingKey
            let server = try await DemoServer.start(configuration)
            let folder = other?.folder ?? FileManager.default.temporaryDirectory.appendingPathComponent("iapdesk-writes-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            try? FileManager.default.removeItem(at: folder.appendingPathComponent("key.p8"))
            _ = FileManager.default.createFile(
                atPath: folder.appendingPathComponent("key.p8").path, contents: Data(server.signingKey.pemRepresentation.utf8),
                attributes: [.posixPermissions: 0o600])
            try server.rootCertificateDER.write(to: folder.appendingPathComponent("root.der"))
            return Bench(server: server, folder: folder)
        }

        var flags: [String] {
            [
                "--base-url", server.baseURL.absoluteString, "--environment", "Production", "--issuer-id", DemoServer.issuerId,
                "--key-id", DemoServer.keyId, "--key-file", folder.appendingPathComponent("key.p8").path, "--bundle-id", DemoServer.bundleId,
                "--app-apple-id", String(DemoServer.appAppleId), "--root-cert", folder.appendingPathComponent("root.der").path,
            ]
        }

        var environment: [String: String] {
            [
                "HOME": folder.path, "XDG_CONFIG_HOME": folder.appendingPathComponent("config").path, "XDG_STATE_HOME": stateHome,
                "XDG_DATA_HOME": folder.appendingPathComponent("data").path, "PATH": "/usr/bin:/bin", "COLUMNS": "160",
            ]
        }

        /// `withProfile`: the flags that reach this server (commands that talk to Apple take them).
        func process(_ arguments: [String], withProfile: Bool = true) -> (Process, Pipe, Pipe) {
            let (process, out, err) = CommandLineTests.process(arguments + (withProfile ? flags : []), environment: environment)
            return (process, out, err)
        }

        func run(_ arguments: [String], withProfile: Bool = true) async throws -> CommandLineTests.Run {
            let (process, out, err) = process(arguments, withProfile: withProfile)
            return try await CommandLineTests.launch(process, out, err)
        }

        /// The subscription's current expiry, read past the faults with a client of the test's own.
        func expiry() async throws -> Date {
            var clean = try server.makeClient()
            for attempt in 0..<5 {
                do {
                    clean = try server.makeClient()
                    let statuses = try await clean.getAllSubscriptionStatuses(anyTransactionId: WriteSafetyTests.subscription)
                    let jws = try #require(statuses.data?.first?.lastTransactions?.first?.signedTransactionInfo)
                    let payload = try #require(Base64URL.decode(jws.split(separator: ".")[1]))
                    let object = try #require(try JSONSerialization.jsonObject(with: payload) as? [String: Any])
                    let ms = try #require(object["expiresDate"] as? Double)
                    return Date(timeIntervalSince1970: ms / 1000)
                } catch where attempt < 4 {
                    continue
                }
            }
            throw WriteSafetyError.noReadableStatus
        }

        func stop() async {
            await server.stop()
            try? FileManager.default.removeItem(at: folder)
        }
    }

    static let extend = ["extend", subscription, "--days", "7", "--reason", "service-issue", "--yes", "--json"]

    func effectiveDate(_ run: CommandLineTests.Run) throws -> Date {
        let object = try #require(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any], "\(run.stdout)\n\(run.stderr)")
        let ms = try #require(object["effectiveDateMs"] as? Double)
        return Date(timeIntervalSince1970: ms / 1000)
    }

    /// The first event of `events` that matches; nil once `ended` finishes first (the process that
    /// was to send it exited), or after a bound only a hang reaches.
    static func first(
        _ events: AsyncStream<DemoActivity>, where matches: @escaping @Sendable (DemoActivity) -> Bool, unlessEnded ended: AsyncStream<Void>? = nil
    ) async -> DemoActivity? {
        await withTaskGroup(of: DemoActivity?.self) { group in
            group.addTask {
                for await event in events where matches(event) { return event }
                return nil
            }
            if let ended { group.addTask { for await _ in ended {}; return nil } }
            group.addTask {
                try? await Task.sleep(for: .seconds(120))
                return nil
            }
            let first = await group.next() ?? nil
            group.cancelAll()
            return first
        }
    }

    /// The extension's request arriving at the server, or (`answered`) its answer made.
    static func isExtension(_ event: DemoActivity, answered: Bool) -> Bool {
        guard event.method == "PUT", event.path.contains("/subscriptions/extend/") else { return false }
        if case .answered = event { return answered }
        return !answered
    }

    func requestIdentifier(in stderr: String) -> String? {
        stderr.split(separator: "\n").first { $0.hasPrefix("Request identifier: ") }.map { String($0.dropFirst("Request identifier: ".count)) }
    }

    @Test func killedMidRequestAndRunAgainExtendsOnce() async throws {
        // The server holds the extension until the test releases it: the run is killed while its
        // request is surely on the way, however slow the machine.
        var faults = DemoFaults()
        faults.holdUntilReleased = true
        faults.onlyWrites = true
        let bench = try await Bench.start(faults)
        defer { Task { await bench.stop() } }
        let before = try await bench.expiry()
        let arrivals = bench.server.activity()
        let answers = bench.server.activity()

        let (first, _, err) = bench.process(Self.extend)
        let (ended, exited) = AsyncStream<Void>.makeStream()
        first.terminationHandler = { _ in exited.finish() }
        try first.run()
        // Events, not times: the server has the request (the run reads the subscription and its history first).
        let arrived = await Self.first(arrivals, where: { Self.isExtension($0, answered: false) }, unlessEnded: ended)
        try #require(arrived != nil, "the extension reached the server")
        // Its intent was in the ledger before the request left.
        let unresolved = try await bench.run(["audit", "--unresolved", "--json"], withProfile: false)
        kill(first.processIdentifier, SIGKILL)
        first.waitUntilExit()
        let printed = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        let identifier = try #require(requestIdentifier(in: printed), "the identifier is printed before the request leaves: \(printed)")
        #expect(unresolved.stdout.contains(identifier), "the intent is recorded before the request leaves: \(unresolved.stdout)")
        // The server still applies what it received: its answer is made, for nobody.
        bench.server.releaseHeldRequests()
        let applied = await Self.first(answers, where: { Self.isExtension($0, answered: true) })
        #expect(applied == .answered(method: "PUT", path: arrived?.path ?? "", status: 200))

        let again = try await bench.run(Self.extend)
        #expect(again.status == 0, "\(again.stderr)")
        #expect(requestIdentifier(in: again.stderr) == identifier, "the second run re-sends the first run's identifier")
        #expect(again.stderr.contains("has no known outcome: re-sending it with the same request identifier"))
        let after = try await bench.expiry()
        #expect(after.timeIntervalSince(before) == 7 * 86_400, "extended once by 7 days, not twice")
        #expect(try effectiveDate(again) == after)

        // The ledger holds the intent, the re-send and one outcome, under the command line.
        let audit = try await bench.run(["audit", "--json"], withProfile: false)
        #expect(audit.status == 0, "\(audit.stderr)")
        let listing = try #require(try JSONSerialization.jsonObject(with: Data(audit.stdout.utf8)) as? [String: Any])
        let writes = try #require(listing["writes"] as? [[String: Any]])
        #expect(writes.count == 1)
        #expect(writes.first?["requestIdentifier"] as? String == identifier)
        #expect(writes.first?["source"] as? String == "command-line")
        #expect((writes.first?["state"] as? String)?.hasPrefix("applied") == true)
        #expect(try await bench.run(["audit", "--unresolved", "--json"], withProfile: false).stdout.contains(identifier) == false)
    }

    @Test func unreadableAnswerSaysItMayHaveBeenAppliedAndARerunAppliesOnce() async throws {
        // Only writes are counted: write 1 is the test's own, write 2, the extension, gets half a body.
        var faults = DemoFaults()
        faults.truncatedEvery = 2
        faults.onlyWrites = true
        let bench = try await Bench.start(faults)
        defer { Task { await bench.stop() } }
        let before = try await bench.expiry()
        _ = try? await bench.server.makeClient().requestTestNotification()

        let first = try await bench.run(Self.extend)
        #expect(first.status == 5)
        let identifier = try #require(requestIdentifier(in: first.stderr))
        #expect(first.stderr.contains("may have been applied"))
        #expect(first.stderr.contains(identifier))
        #expect(first.stderr.contains("iapdesk status"))
        #expect(!first.stderr.lowercased().contains("base url"), "an unreadable answer to a write is not blamed on the base URL")

        // A different write for the same subscription is refused while the first is open.
        let other = try await bench.run(["extend", Self.subscription, "--days", "30", "--reason", "service-issue", "--yes"])
        #expect(other.status == 9)
        #expect(other.stderr.contains(identifier))

        let again = try await bench.run(Self.extend)
        #expect(again.status == 0, "\(again.stderr)")
        #expect(requestIdentifier(in: again.stderr) == identifier)
        #expect(try effectiveDate(again).timeIntervalSince(before) == 7 * 86_400, "Apple's answer to the re-send is the first extension's")
    }

    @Test func writesOfAnotherServerAreNotReused() async throws {
        var faults = DemoFaults()
        faults.truncatedEvery = 1
        faults.onlyWrites = true
        let bench = try await Bench.start(faults)
        defer { Task { await bench.stop() } }
        let first = try await bench.run(Self.extend)
        #expect(first.status == 5)
        let identifier = try #require(requestIdentifier(in: first.stderr))

        // Same state folder and profile flags, another server: its ledger line belongs to another account.
        let moved = try await Bench.start(DemoFaults(), sharing: bench)
        defer { Task { await moved.server.stop() } }
        let run = try await moved.run(Self.extend)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(requestIdentifier(in: run.stderr) != identifier)
        #expect(!run.stderr.contains("re-sending"))
        // The first account's write stays open, listed with its own base URL.
        let open = try await moved.run(["audit", "--unresolved", "--json"], withProfile: false)
        #expect(open.stdout.contains(identifier))
        #expect(open.stdout.contains(bench.server.baseURL.absoluteString))
    }
}

enum WriteSafetyError: Error {
    case noReadableStatus
}
