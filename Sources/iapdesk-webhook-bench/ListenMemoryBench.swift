import AppStoreServerAPI
import DemoServer
import Foundation

/// What `iapdesk listen` holds in memory under load, and whether it grows: the built binary on a
/// SQLite file, 16 senders posting demo-signed notifications (new ones first, then the same again
/// as Apple's retries are) for `seconds`, its resident memory read from /proc every 5 seconds.
extension WebhookBench {
    static let listenMemoryLimitMB = 96.0

    func measureListenMemory(_ folder: String, seconds: Double) async throws {
        let binary = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("iapdesk").path
        guard FileManager.default.isExecutableFile(atPath: binary) else {
            print("# listen memory figures: build iapdesk beside this bench first (swift build --product iapdesk).")
            return
        }
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let demo = try await DemoServer.start()
        let root = folder + "/root.der"
        try demo.rootCertificateDER.write(to: URL(fileURLWithPath: root))
        let bodies = try Self.bodies(count, demo: demo)
        await demo.stop()

        let process = Process()
        process.executableURL = URL(fileURLWithPath: binary)
        process.arguments = [
            "listen", "--address", "127.0.0.1:0", "--store", folder + "/listen.sqlite", "--quiet", "--environment", "Production",
            "--bundle-id", DemoServer.bundleId, "--app-apple-id", String(DemoServer.appAppleId), "--root-cert", root,
        ]
        var environment = ProcessInfo.processInfo.environment
        environment["XDG_STATE_HOME"] = folder + "/state"
        environment["XDG_CONFIG_HOME"] = folder + "/config"
        process.environment = environment
        // A file, not a pipe: nobody reads a pipe during the run, and a full one would stall listen.
        let log = folder + "/listen.log"
        _ = FileManager.default.createFile(atPath: log, contents: nil)
        guard let output = FileHandle(forWritingAtPath: log), let reader = FileHandle(forReadingAtPath: log) else { return }
        process.standardOutput = output
        process.standardError = output
        try process.run()
        defer { if process.isRunning { process.terminate() } }
        guard let url = await Self.listeningURL(reader) else {
            print("# listen did not say where it listens: no memory figures")
            return
        }
        let pid = process.processIdentifier
        let transport = AsyncHTTPClientTransport(connectionsPerHost: concurrency)
        let clock = ContinuousClock()
        let end = clock.now + .seconds(seconds)
        let sender = Task {
            var sent = 0
            while clock.now < end {
                let (_, _, failures) = try await Self.send(bodies, to: url, transport: transport, concurrency: concurrency)
                sent += bodies.count
                if failures > 0 { print("# \(failures) deliveries were not answered 200") }
            }
            return sent
        }
        var samples: [(seconds: Double, mb: Double)] = []
        let started = clock.now
        while clock.now < end {
            try await Task.sleep(for: .seconds(5))
            if let rss = Self.procStatus(pid, "VmRSS") { samples.append((Self.seconds(clock.now - started), rss)) }
        }
        let sent = try await sender.value
        let peak = Self.procStatus(pid, "VmHWM") ?? samples.map(\.mb).max() ?? 0
        process.terminate()
        process.waitUntilExit()
        // Steady state: the first minute (or first fifth of a shorter run) is warm-up.
        let warm = min(60, seconds / 5)
        let steady = samples.filter { $0.seconds >= warm }
        let first = steady.first?.mb ?? 0
        let last = steady.last?.mb ?? 0
        // Half-way too: growth that levels off (caches filling) shows apart from growth that goes on.
        let middle = steady.isEmpty ? 0 : steady[steady.count / 2].mb
        Self.figure(
            "listen_peak_rss", peak,
            "MB (limit \(Int(Self.listenMemoryLimitMB)) MB, ratio \(String(format: "%.2f", peak / Self.listenMemoryLimitMB)); \(sent) deliveries from \(concurrency) senders in \(Int(seconds)) s, \(count) distinct)")
        Self.figure(
            "listen_steady_rss_growth", last - first,
            "MB (\(String(format: "%.1f", first)) MB after \(Int(warm)) s, \(String(format: "%.1f", middle)) MB half-way, \(String(format: "%.1f", last)) MB at the end; flat means within a few MB)")
    }

    /// The receiver's URL from its first lines ("... http://127.0.0.1:PORT/..."), read from its log
    /// as it is written (for at most a minute).
    static func listeningURL(_ handle: FileHandle) async -> URL? {
        var text = ""
        let end = ContinuousClock.now + .seconds(60)
        while text.count < 16_384, ContinuousClock.now < end {
            let chunk = handle.availableData
            if chunk.isEmpty {
                try? await Task.sleep(for: .milliseconds(50))
                continue
            }
            text += String(decoding: chunk, as: UTF8.self)
            if let range = text.range(of: #"http://127\.0\.0\.1:[0-9]+[^\s]*"#, options: .regularExpression) {
                return URL(string: String(text[range]))
            }
        }
        return nil
    }

    /// A "kB" line of /proc/PID/status, in MB; nil unless PID is a process of the binary this bench
    /// runs (`iapdesk`), not this bench: a child between posix_spawn's vfork and its exec still
    /// shows this process's memory.
    static func procStatus(_ pid: Int32, _ key: String) -> Double? {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else { return nil }
        var fields: [Substring: Substring] = [:]
        for line in text.split(separator: "\n") {
            guard let colon = line.firstIndex(of: ":") else { continue }
            fields[line[..<colon]] = line[line.index(after: colon)...].split(whereSeparator: { $0 == " " || $0 == "\t" }).first
        }
        guard fields["Name"] == "iapdesk", fields["Tgid"].flatMap({ Int32($0) }) == pid else { return nil }
        return fields[Substring(key)].flatMap { Double($0) }.map { $0 / 1024 }
    }
}
