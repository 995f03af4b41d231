import DemoServer
import DeskStore
import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// What one `iapdesk watch` cycle costs: the built binary's `watch --once` against an in-process
/// demo App Store Server and a store holding `count` notifications of the window, each run timed
/// end to end (the process's start included) with its peak resident memory, and the requests it
/// made to Apple's history.
extension WebhookBench {
    /// The memory a watch may hold (docs/benchmarks.md, budgets).
    static let watchMemoryLimitMB = 32.0

    func measureWatchCycle(_ folder: String, runs: Int = 5) async throws {
        let binary = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("iapdesk").path
        guard FileManager.default.isExecutableFile(atPath: binary) else {
            print("# watch figures: build iapdesk beside this bench first (swift build --product iapdesk).")
            return
        }
        let demo = try await DemoServer.start()
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let key = folder + "/key.p8"
        _ = FileManager.default.createFile(atPath: key, contents: Data(demo.signingKey.pemRepresentation.utf8), attributes: [.posixPermissions: 0o600])
        try demo.rootCertificateDER.write(to: URL(fileURLWithPath: folder + "/root.der"))
        // The store: `count` notifications received in the last day, the receiver's usual load.
        let path = folder + "/watch.sqlite"
        let store = try await SQLiteNotificationStore.open(path: path)
        var batch: [NotificationDelivery] = []
        for index in 0..<count {
            var delivery = Self.delivery(UUID().uuidString.lowercased())
            delivery.receivedAt = Date().addingTimeInterval(-Double(index % 86_000))
            delivery.signedDate = delivery.receivedAt.addingTimeInterval(-2)
            batch.append(delivery)
        }
        for delivery in batch { _ = try await store.record(delivery) }
        try await store.close()
        let arguments = [
            "watch", "--once", "--window", "24h", "--store", path, "--json", "--base-url", demo.baseURL.absoluteString, "--environment", "Production",
            "--issuer-id", DemoServer.issuerId, "--key-id", DemoServer.keyId, "--key-file", key, "--bundle-id", DemoServer.bundleId,
            "--app-apple-id", String(DemoServer.appAppleId), "--root-cert", folder + "/root.der",
        ]
        var seconds: [Double] = []
        var peaks: [Double] = []
        var requests: [Int] = []
        for _ in 0..<runs {
            let counting = Task { () -> Int in
                var seen = 0
                for await activity in demo.activity() where activity.path.contains("notifications/history") {
                    if case .received = activity { seen += 1 }
                }
                return seen
            }
            // The feed is subscribed to before the run starts.
            await Task.yield()
            let run = try Self.spawn(binary, arguments)
            counting.cancel()
            requests.append(await counting.value)
            seconds.append(run.seconds)
            peaks.append(run.maxResidentMB)
            guard run.status == 0 || run.status == 10 else {
                print("# watch --once exited \(run.status): the figures below are not worth having")
                break
            }
        }
        await demo.stop()
        let peak = peaks.max() ?? 0
        Self.figure("watch_cycle", Self.percentile(seconds, 0.5) * 1000, "ms (median of \(runs) runs of watch --once, process start included; store of \(count) in the window)")
        Self.figure("watch_cycle_history_requests", Double(requests.max() ?? 0), "requests to Get Notification History per cycle (Apple allows 50 a second, 5 in Sandbox)")
        Self.figure(
            "watch_peak_rss", peak,
            "MB (largest of \(runs) runs; limit \(Int(Self.watchMemoryLimitMB)) MB, ratio \(String(format: "%.2f", peak / Self.watchMemoryLimitMB)))")
    }

    struct SpawnedRun {
        var status: Int32
        var seconds: Double
        var maxResidentMB: Double
    }

    /// Runs the binary to its end, its output discarded, with wait4's account of its peak memory.
    static func spawn(_ path: String, _ arguments: [String]) throws -> SpawnedRun {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        var pid: pid_t = 0
        let argv = ([path] + arguments).map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        let started = ContinuousClock.now
        let spawned = posix_spawn(&pid, path, &actions, nil, argv, environ)
        guard spawned == 0 else { throw CocoaError(.executableLoad) }
        // The child's own high-water mark, read from /proc while it runs: wait4's ru_maxrss of a
        // posix_spawn'd child starts from this process's size (the vfork before the exec).
        let peak = Mutex(0.0)
        let running = Mutex(true)
        let child = pid
        let watcher = Thread {
            while running.withLock({ $0 }) {
                if let mb = procStatus(child, "VmHWM") { peak.withLock { $0 = max($0, mb) } }
                usleep(2_000)
            }
        }
        watcher.start()
        var status: Int32 = 0
        while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
        running.withLock { $0 = false }
        let exit = (status & 0x7f) == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
        return SpawnedRun(status: exit, seconds: seconds(ContinuousClock.now - started), maxResidentMB: peak.withLock { $0 })
    }
}
