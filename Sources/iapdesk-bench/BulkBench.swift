import AppStoreServerAPI
import DemoServer
import Foundation
import Synchronization

/// `iapdesk status --from FILE` against the demo enforcing Apple's per-endpoint limits (429 with
/// Retry-After past the limit in any second), with Apple's round trip added to every answer: IDs
/// answered per second beside the endpoint's limit, and the 429s the server gave (target none).
enum BulkBench {
    /// Share of the limit a bulk run must sustain.
    static let targetShare = 0.9

    static func run(ids count: Int, latencyMs: Int) async throws {
        var configuration = DemoServer.Configuration()
        configuration.faults.rateLimits = true
        configuration.faults.latency = Double(latencyMs) / 1000
        let server = try await DemoServer.start(configuration)
        defer { Task { await server.stop() } }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("iapdesk-bulk-bench-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let key = folder.appendingPathComponent("key.p8").path
        _ = FileManager.default.createFile(atPath: key, contents: Data(server.signingKey.pemRepresentation.utf8), attributes: [.posixPermissions: 0o600])
        let root = folder.appendingPathComponent("root.der")
        try server.rootCertificateDER.write(to: root)
        let input = folder.appendingPathComponent("ids.txt")
        // Distinct IDs the demo does not know: each is one request answered 404, as most of a
        // real list's are answered once.
        try (1...count).map { String(3_100_000_000_000_000 + $0) }.joined(separator: "\n").write(to: input, atomically: true, encoding: .utf8)
        let output = folder.appendingPathComponent("out.jsonl")

        let refused = Mutex(0)
        let stream = server.activity()
        let watcher = Task {
            for await event in stream {
                if case .answered(_, _, 429) = event { refused.withLock { $0 += 1 } }
            }
        }
        defer { watcher.cancel() }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("iapdesk")
        process.arguments = [
            "status", "--from", input.path, "--output", output.path, "--base-url", server.baseURL.absoluteString,
            "--environment", "Production", "--issuer-id", DemoServer.issuerId, "--key-id", DemoServer.keyId, "--key-file", key,
            "--bundle-id", DemoServer.bundleId, "--app-apple-id", String(DemoServer.appAppleId), "--root-cert", root.path,
        ]
        var environment = ProcessInfo.processInfo.environment
        environment["XDG_STATE_HOME"] = folder.appendingPathComponent("state").path
        environment["XDG_CONFIG_HOME"] = folder.appendingPathComponent("config").path
        environment["XDG_DATA_HOME"] = folder.appendingPathComponent("data").path
        process.environment = environment
        process.standardError = FileHandle.nullDevice
        let started = ContinuousClock.now
        let ended = AsyncStream<Void>.makeStream()
        process.terminationHandler = { _ in ended.continuation.yield() }
        try process.run()
        for await _ in ended.stream { break }
        let seconds = (ContinuousClock.now - started).seconds
        let written = (try? String(contentsOf: output, encoding: .utf8))?.split(separator: "\n").count ?? 0
        let limit = Double(RequestRateLimiter().limit(for: "Get All Subscription Statuses", in: .production))
        let rate = Double(written) / seconds
        print("bulk_status_ids_per_second: \(String(format: "%.1f", rate)) per s (limit \(Int(limit)) per s, Get All Subscription Statuses in Production: \(String(format: "%.2f", rate / limit)) of it, target \(targetShare); \(written) of \(count) IDs in \(String(format: "%.1f", seconds)) s with the process's start, \(latencyMs) ms per answer)")
        print("bulk_status_429_answers: \(refused.withLock { $0 }) (target 0; the demo answers 429 past the limit in any one second)")
        if process.terminationStatus != 2 { print("bulk_status_exit: \(process.terminationStatus) (expected 2: every ID unknown)") }
    }
}
