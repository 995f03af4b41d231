import AppStoreServerAPI
import DemoServer
import Foundation
import Synchronization
import Testing

/// The command line against a demo server with faults, run with the real binary: the deadline
/// (--timeout, IAPDESK_TIMEOUT, timeout in a profile), Ctrl-C, bad signatures.
@Suite struct FaultCommandTests {
    let cli = CommandLineTests()

    func run(_ arguments: [String], environment: [String: String] = [:], interruptAfter: TimeInterval? = nil) async throws -> CommandLineTests.Run {
        let (process, out, err) = CommandLineTests.process(arguments, environment: environment)
        return try await CommandLineTests.launch(process, out, err, interruptAfter: interruptAfter)
    }

    /// A demo server with `faults`, and the flags that reach it as a configured profile would.
    func server(_ faults: DemoFaults, recordingServed: Bool = false) async throws -> (DemoServer, [String]) {
        var configuration = DemoServer.Configuration()
        configuration.faults = faults
        configuration.recordsServedSignatures = recordingServed
        let server = try await DemoServer.start(configuration)
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("iapdesk-deadline-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let key = folder.appendingPathComponent("key.p8").path
        _ = FileManager.default.createFile(atPath: key, contents: Data(server.signingKey.pemRepresentation.utf8), attributes: [.posixPermissions: 0o600])
        let root = folder.appendingPathComponent("root.der")
        try server.rootCertificateDER.write(to: root)
        return (server, [
            "--base-url", server.baseURL.absoluteString, "--environment", "Production", "--issuer-id", DemoServer.issuerId,
            "--key-id", DemoServer.keyId, "--key-file", key, "--bundle-id", DemoServer.bundleId,
            "--app-apple-id", String(DemoServer.appAppleId), "--root-cert", root.path,
        ])
    }

    @Test func aSilentServerEndsAtTheTimeout() async throws {
        var faults = DemoFaults()
        faults.hang = true
        let (server, flags) = try await server(faults)
        let started = Date()
        let result = try await run(["history", "2000000400000044", "--timeout", "2"] + flags)
        let elapsed = Date().timeIntervalSince(started)
        #expect(result.status == 5)
        // The message below proves the 2 s deadline ended it (the 30 s attempt timeout says other
        // words); the wall clock is only a bound, since a test pool busy with CPU-heavy suites can
        // be late to see the process end.
        #expect(elapsed < 60, "took \(elapsed) s")
        #expect(result.stderr.contains("No complete answer within the 2 s deadline"))
        #expect(result.stderr.contains("hint:") && result.stderr.contains("--timeout"))
        #expect(result.stdout.isEmpty)
        // The same from the environment.
        let fromVariable = try await run(["lookup", "MK5TTTVWJH"] + flags, environment: ["IAPDESK_TIMEOUT": "1.5"])
        #expect(fromVariable.status == 5)
        #expect(fromVariable.stderr.contains("1.5 s deadline"))
        await server.stop()
    }

    @Test func theProfileSetsTheTimeoutAndFlagsWin() async throws {
        var faults = DemoFaults()
        faults.hang = true
        let (server, flags) = try await server(faults)
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("iapdesk-timeout-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder.appendingPathComponent("iapdesk"), withIntermediateDirectories: true)
        try "[profiles.slow]\ntimeout = 1\n".write(to: folder.appendingPathComponent("iapdesk/config.toml"), atomically: true, encoding: .utf8)
        let fromProfile = try await run(["transaction", "2000000400000044"] + flags, environment: ["XDG_CONFIG_HOME": folder.path])
        #expect(fromProfile.status == 5)
        #expect(fromProfile.stderr.contains("1 s deadline"))
        let flagWins = try await run(["transaction", "2000000400000044", "--timeout", "2"] + flags, environment: ["XDG_CONFIG_HOME": folder.path, "IAPDESK_TIMEOUT": "3"])
        #expect(flagWins.stderr.contains("2 s deadline"))
        await server.stop()
    }

    @Test func badTimeoutsAreRefused() async throws {
        // A wrong flag is a usage error, whether it is not a number or out of range.
        let zero = try await run(["lookup", "MK5TTTVWJH", "--demo", "--timeout", "0"])
        #expect(zero.status == 64)
        #expect(try await run(["lookup", "MK5TTTVWJH", "--demo", "--timeout", "abc"]).status == 64)
        #expect(zero.stderr.contains("--timeout"))
        let word = try await run(["lookup", "MK5TTTVWJH", "--demo"], environment: ["IAPDESK_TIMEOUT": "soon"])
        #expect(word.status == 3)
        #expect(word.stderr.contains("IAPDESK_TIMEOUT"))
        #expect(try await run(["--help"]).stdout.contains("before the --timeout deadline"))
        #expect(try await run(["history", "--help"]).stdout.contains("--timeout"))
        let help = try await run(["test-notification", "--help"]).stdout
        #expect(help.contains("--wait-timeout"))
    }

    @Test func testNotificationWaitHasItsOwnTimeout() async throws {
        let result = try await run(["test-notification", "--demo", "--wait", "--wait-timeout", "20", "--timeout", "5"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("SUCCESS"))
    }

    @Test func unverifiedDataExitsWithAHint() async throws {
        var faults = DemoFaults()
        faults.badSignatures = true
        let (server, flags) = try await server(faults)
        let result = try await run(["transaction", "2000000400000044"] + flags)
        #expect(result.status == 8)
        #expect(result.stderr.contains("error: Signed data did not verify"))
        #expect(result.stderr.contains("hint: The data was not signed by a trusted App Store chain"))
        let notifications = try await run(["notifications", "--type", "DID_RENEW", "--since", "29d"] + flags)
        #expect(notifications.status == 8)
        #expect(notifications.stderr.contains("hint:"))
        await server.stop()
    }

    @Test func ctrlCPrintsWhatArrivedAndSaysItIsPartial() async throws {
        var faults = DemoFaults()
        faults.latency = 2
        let (server, flags) = try await server(faults, recordingServed: true)
        // Pages arrive 2 s apart (26 in all, one after another as --limit fetches them); Ctrl-C
        // once the server has served three of them: some arrived, never all, however busy the machine.
        let (process, out, err) = CommandLineTests.process(["history", "2000000400003628", "--limit", "1000"] + flags)
        let result = try await CommandLineTests.launch(process, out, err, interruptWhen: { server.servedSignatures().count >= 60 })
        let (stdout, stderr) = (result.stdout, result.stderr)
        #expect(result.status == 130, "\(stderr)")
        #expect(stdout.contains("partial"), "\(stdout)")
        let rows = stdout.split(separator: "\n").filter { $0.hasPrefix("2000000") }
        #expect(rows.count >= 20 && rows.count < 517)
        #expect(stderr.contains("Partial list: interrupted; the \(rows.count) transactions shown arrived in"))
        await server.stop()
    }

    @Test func ctrlCDuringAWindowedFetchPrintsWhatArrived() async throws {
        var faults = DemoFaults()
        // Every fifth request waits 60 s: the first look (requests 1 and 2) and most windows answer
        // (the stalled ones hold only some of the client's 6 connections), but the history cannot be
        // complete before Ctrl-C.
        faults.latency = 60
        faults.latencyEvery = 5
        let (server, flags) = try await server(faults, recordingServed: true)
        // Ctrl-C once the windows that answer have served a page's worth: the stalled ones cannot have.
        let (process, out, err) = CommandLineTests.process(["history", "2000000400003628"] + flags)
        let result = try await CommandLineTests.launch(process, out, err, interruptWhen: { server.servedSignatures().count >= 60 })
        let (stdout, stderr) = (result.stdout, result.stderr)
        #expect(result.status == 130, "\(stderr)")
        #expect(stdout.contains("partial"), "\(stdout)")
        let rows = stdout.split(separator: "\n").filter { $0.hasPrefix("2000000") }
        #expect(rows.count >= 20 && rows.count < 517)
        // In order, each once.
        let ids = rows.map { $0.split(separator: " ")[0] }
        #expect(Set(ids).count == ids.count)
        #expect(stderr.contains("Partial list: interrupted; the \(rows.count) transactions shown arrived in"))
        await server.stop()
    }
}
