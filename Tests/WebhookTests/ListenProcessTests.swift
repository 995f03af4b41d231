import AppStoreServerAPI
import DemoServer
import DeskStore
import Foundation
import Synchronization
import Testing

/// A value behind a lock, shareable between tasks and threads.
final class Locked<Value: Sendable>: Sendable {
    private let mutex: Mutex<Value>

    init(_ value: Value) { mutex = Mutex(value) }

    func withLock<T>(_ body: (inout Value) -> T) -> T { mutex.withLock { body(&$0) } }
}

/// The built `iapdesk` binary: `listen` killed with SIGKILL mid-burst and restarted, `received`
/// reading what it stored. Serialized: each test runs subprocesses and a burst of requests.
@Suite(.serialized) struct ListenProcessTests {
    static var binary: URL {
        // The test bundle sits in the build folder beside the executable.
        var folder = Bundle.main.bundleURL
        while !FileManager.default.fileExists(atPath: folder.appendingPathComponent("iapdesk").path), folder.path != "/" {
            folder.deleteLastPathComponent()
        }
        return folder.appendingPathComponent("iapdesk")
    }

    /// A running `iapdesk` (or, for the harness's own tests, another program) whose output is collected as it comes.
    final class Running: Sendable {
        let process: Process
        private let out: PipeReader
        private let err: PipeReader

        init(
            _ arguments: [String], folder: TemporaryFolder, environment: [String: String] = [:], executable: URL = ListenProcessTests.binary
        ) throws {
            let process = Process()
            process.executableURL = executable
            process.arguments = arguments
            process.environment = [
                "HOME": folder.url.path, "XDG_CONFIG_HOME": folder.url.appendingPathComponent("config").path, "PATH": "/usr/bin:/bin",
                "COLUMNS": "200",
            ].merging(environment) { _, given in given }
            let outPipe = Pipe()
            let errPipe = Pipe()
            process.standardOutput = outPipe
            process.standardError = errPipe
            process.standardInput = FileHandle.nullDevice
            let out = PipeReader(outPipe)
            let err = PipeReader(errPipe)
            process.terminationHandler = { _ in
                out.childHasExited()
                err.childHasExited()
            }
            self.process = process
            self.out = out
            self.err = err
            try process.run()
            out.start()
            err.start()
        }

        var stdout: String { String(decoding: out.data, as: UTF8.self) }
        var stderr: String { String(decoding: err.data, as: UTF8.self) }

        /// The process has ended and everything it wrote has been read.
        private var ended: Bool { !process.isRunning && out.isFinished && err.isFinished }

        /// Polls the output until `found` returns a value, for at most `seconds`.
        // A bound, not a speed: a process starting on a loaded 2-core machine may take tens of seconds.
        func waitFor<T>(seconds: Double = 60, _ found: (String) -> T?) async throws -> T? {
            let deadline = ContinuousClock.now + .milliseconds(Int64(seconds * 1000))
            while ContinuousClock.now < deadline {
                if let value = found(stdout) { return value }
                if ended { return found(stdout) }
                try await Task.sleep(for: .milliseconds(10))
            }
            return nil
        }

        /// The exit status once the process ended and all its output was read, waiting at most
        /// `seconds`: nil if it did not end, or if its output was not all read by then (a status
        /// beside a cut-off output would have a test judge half of what was printed).
        func exitStatus(seconds: Double = 120) async throws -> Int32? {
            let deadline = ContinuousClock.now + .milliseconds(Int64(seconds * 1000))
            while !ended, ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(10))
            }
            return ended ? process.terminationStatus : nil
        }

        /// Signals this process only (never pid 0, which would be the whole process group, the tests included).
        func signal(_ number: Int32) {
            let pid = process.processIdentifier
            guard pid > 0 else { return }
            kill(pid, number)
        }
    }

    /// `listen` on a free port trusting the demo's chain, through the profile flags any command takes;
    /// its store deadline is a loaded machine's unless the test gives one.
    func listen(folder: TemporaryFolder, demo: DemoServer, store: String? = nil, extra: [String] = []) async throws -> (Running, URL) {
        let root = folder.url.appendingPathComponent("demo-root.der")
        if !FileManager.default.fileExists(atPath: root.path) { try demo.rootCertificateDER.write(to: root) }
        let running = try Running(
            [
                "listen", "--address", "127.0.0.1:0", "--store", store ?? folder.storePath, "--bundle-id", DemoServer.bundleId,
                "--environment", "Production", "--app-apple-id", String(DemoServer.appAppleId), "--root-cert", root.path, "--json",
            ] + (extra.contains("--store-deadline") ? [] : ["--store-deadline", "60"]) + extra, folder: folder)
        let url = try await running.waitFor { output -> URL? in
            for line in output.split(separator: "\n") {
                if let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                   let text = object["listening"] as? String {
                    return URL(string: text)
                }
            }
            return nil
        }
        return (running, try #require(url, "listen did not start: \(running.stderr)"))
    }

    @Test func killedMidBurstEveryAnswered200IsStoredExactlyOnce() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let demo = try await DemoServer.start()
        let notifications = Notifications(demo: demo)
        let uuids = (0..<300).map { _ in UUID().uuidString.lowercased() }
        var bodies: [String: Data] = [:]
        for uuid in uuids { bodies[uuid] = Notifications.body(try notifications.payload(uuid: uuid)) }
        let payloads = bodies

        let (first, url) = try await listen(folder: folder, demo: demo, extra: ["--quiet"])
        let answered = Locked<Set<String>>([])
        let next = Locked(0)
        // 8 senders share the list; each send is tried once (after the kill they fail at once).
        let burst = Task {
            await withTaskGroup(of: Void.self) { group in
                for _ in 0..<8 {
                    group.addTask {
                        while true {
                            let index = next.withLock { value -> Int in
                                defer { value += 1 }
                                return value
                            }
                            guard index < uuids.count else { return }
                            let uuid = uuids[index]
                            if let answer = try? await Poster.post(payloads[uuid]!, to: url), answer.status == 200 {
                                let count = answered.withLock { set -> Int in
                                    set.insert(uuid)
                                    return set.count
                                }
                                // Killed the moment the 100th answer arrives, with the other senders' requests in flight.
                                if count == 100 { first.signal(SIGKILL) }
                            }
                        }
                    }
                }
            }
        }
        await burst.value
        let killedStatus = try await first.exitStatus()
        #expect(killedStatus == SIGKILL)
        #expect(first.process.terminationReason == .uncaughtSignal)
        let answeredBeforeKill = answered.withLock { $0 }
        #expect(answeredBeforeKill.count >= 100)
        #expect(answeredBeforeKill.count < uuids.count, "the kill came after the burst: nothing was tested")

        // Restarted on the same store, as Apple retries what was not answered 200 (and once more one that was).
        let (second, secondURL) = try await listen(folder: folder, demo: demo)
        let retries = uuids.filter { !answeredBeforeKill.contains($0) } + [try #require(answeredBeforeKill.first)]
        for uuid in retries {
            let answer = try await Poster.post(payloads[uuid]!, to: secondURL)
            #expect(answer.status == 200)
        }
        second.signal(SIGTERM)
        #expect(try await second.exitStatus() == 0)
        #expect(second.stderr.contains("Stopped."))

        let store = try await SQLiteNotificationStore.open(path: folder.storePath, create: false)
        let rows = try await store.notifications(NotificationFilter())
        try await store.close()
        let stored = Dictionary(grouping: rows, by: \.notificationUUID)
        // Every notification once, none twice; one answered before the kill and sent again counts two deliveries.
        #expect(rows.count == uuids.count)
        #expect(stored.values.allSatisfy { $0.count == 1 })
        #expect(Set(stored.keys) == Set(uuids))
        for uuid in answeredBeforeKill {
            #expect(stored[uuid]?.count == 1, "answered 200 but not stored: \(uuid)")
        }
        #expect(stored[retries.last!]?.first?.deliveryCount == 2)
        await demo.stop()
    }

    @Test func listenPrintsOneLinePerArrivalAndStopsCleanly() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let demo = try await DemoServer.start()
        let (running, url) = try await listen(folder: folder, demo: demo)
        let uuid = UUID().uuidString.lowercased()
        #expect(try await Poster.post(Notifications.body(try Notifications(demo: demo).payload(uuid: uuid)), to: url).status == 200)
        #expect(try await Poster.post(Data("nope".utf8), to: url).status == 400)
        let lines = try await running.waitFor { output -> [[String: Any]]? in
            let objects = output.split(separator: "\n").compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
            return objects.count >= 3 ? objects : nil
        }
        let arrivals = try #require(lines).dropFirst()
        #expect(arrivals.first?["notificationUUID"] as? String == uuid)
        #expect(arrivals.first?["outcome"] as? String == "stored")
        #expect(arrivals.first?["status"] as? Int == 200)
        #expect(arrivals.last?["outcome"] as? String == "quarantined")
        #expect(arrivals.last?["verdict"] as? String == "not-json")
        running.signal(SIGINT)
        #expect(try await running.exitStatus() == 0)
        #expect(running.stderr.contains("Stopped. Stored 1, duplicates 0, quarantined 1, not stored 0."))
        await demo.stop()
    }

    @Test func listenServesItsMetricsOnTheMetricsAddress() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let demo = try await DemoServer.start()
        let (running, url) = try await listen(folder: folder, demo: demo, extra: ["--metrics-address", "127.0.0.1:0"])
        let metrics = try await running.waitFor { output -> URL? in
            output.split(separator: "\n").lazy.compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
                .compactMap { ($0["metrics"] as? String).flatMap(URL.init(string:)) }.first
        }
        let metricsURL = try #require(metrics, "no metrics URL: \(running.stdout)")
        #expect(try await Poster.post(Notifications.body(try Notifications(demo: demo).payload()), to: url).status == 200)
        let scrape = try await Exposition.scrape(metricsURL)
        #expect(scrape.sum("iapdesk_receiver_notifications_stored_total") == 1)
        #expect(try await Poster.post(Data(), to: URL(string: "/metrics", relativeTo: url)!.absoluteURL, method: "GET").status == 404)
        running.signal(SIGINT)
        #expect(try await running.exitStatus() == 0)
        await demo.stop()
    }

    /// Runs a tool of the system to its end.
    static func tool(_ path: String, _ arguments: [String], stdin: Data? = nil) async throws -> (status: Int32, stdout: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = arguments
        let out = Pipe()
        let input = Pipe()
        process.standardOutput = out
        process.standardError = FileHandle.nullDevice
        process.standardInput = stdin == nil ? FileHandle.nullDevice : input
        return try await offThePool {
            try process.run()
            if let stdin {
                input.fileHandleForWriting.write(stdin)
                try input.fileHandleForWriting.close()
            }
            let data = out.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            return (process.terminationStatus, String(decoding: data, as: UTF8.self))
        }
    }

    /// openssl makes the certificate and curl is the HTTPS client (both in .ci/run's and the README's system packages).
    @Test(.enabled(if: ["/usr/bin/openssl", "/usr/bin/curl"].allSatisfy { FileManager.default.isExecutableFile(atPath: $0) }))
    func listenServesHTTPSWithTheGivenCertificate() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let cert = folder.url.appendingPathComponent("cert.pem").path
        let key = folder.url.appendingPathComponent("key.pem").path
        let made = try await Self.tool("/usr/bin/openssl", [
            "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-keyout", key, "-out", cert,
            "-days", "2", "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1",
        ])
        try #require(made.status == 0, "openssl could not make a test certificate")
        let demo = try await DemoServer.start()
        let (running, url) = try await listen(folder: folder, demo: demo, extra: ["--tls-cert", cert, "--tls-key", key])
        #expect(url.scheme == "https")
        let body = Notifications.body(try Notifications(demo: demo).payload())
        let answer = try await Self.tool("/usr/bin/curl", [
            "-sS", "--cacert", cert, "-o", "/dev/null", "-w", "%{http_code}", "-H", "Content-Type: application/json",
            "--data-binary", "@-", url.absoluteString,
        ], stdin: body)
        #expect(answer.stdout == "200")
        // Plain HTTP to the HTTPS port is not answered as a notification.
        let plain = URL(string: url.absoluteString.replacingOccurrences(of: "https://", with: "http://"))!
        #expect((try? await Poster.post(body, to: plain))?.status != 200)
        running.signal(SIGTERM)
        #expect(try await running.exitStatus() == 0)
        let store = try await SQLiteNotificationStore.open(path: folder.storePath, create: false)
        #expect(try await store.notifications(NotificationFilter()).count == 1)
        try await store.close()

        let wrong = try Running(
            ["listen", "--address", "127.0.0.1:0", "--store", folder.storePath, "--tls-cert", key + ".missing", "--tls-key", key,
             "--bundle-id", DemoServer.bundleId, "--environment", "Sandbox"], folder: folder)
        #expect(try await wrong.exitStatus() == 3)
        #expect(wrong.stderr.contains("Cannot serve HTTPS: the certificate \(key).missing cannot be read as PEM"))
        await demo.stop()
    }

    @Test func listenWithoutABundleIDSaysWhatItNeeds() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let running = try Running(["listen", "--address", "127.0.0.1:0", "--store", folder.storePath], folder: folder)
        #expect(try await running.exitStatus() == 3)
        #expect(running.stderr.contains("Receiving notifications needs the app's bundle ID and environment."))
    }

    /// `received --profile` reads that profile's store; without it, the default profile's; a
    /// profile that does not exist is refused with the known ones.
    @Test func receivedReadsTheNamedProfilesStore() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let config = folder.url.appendingPathComponent("config/iapdesk")
        try FileManager.default.createDirectory(at: config, withIntermediateDirectories: true)
        let solo = folder.url.appendingPathComponent("solo.sqlite").path
        let team = folder.url.appendingPathComponent("team.sqlite").path
        try """
            default_profile = "solo"
            [profiles.solo]
            store = "\(solo)"
            [profiles.team]
            store = "\(team)"
            """.write(to: config.appendingPathComponent("config.toml"), atomically: true, encoding: .utf8)
        let store = try await SQLiteNotificationStore.open(path: team)
        _ = try await store.record(NotificationDelivery(notificationUUID: "team-1", rawBody: Data("{}".utf8), verdict: "verified", receivedAt: Date()))
        try await store.close()

        let byDefault = try Running(["received"], folder: folder)
        #expect(try await byDefault.exitStatus() == 2)
        #expect(byDefault.stderr.contains("No notifications stored yet at \(solo)"))
        let named = try Running(["received", "--profile", "team"], folder: folder)
        #expect(try await named.exitStatus() == 0)
        #expect(named.stdout.contains("team-1"))
        let unknown = try Running(["received", "--profile", "nobody"], folder: folder)
        #expect(try await unknown.exitStatus() == 3)
        #expect(unknown.stderr.contains("known profiles: solo, team"))
    }

    @Test func receivedListsFiltersAndFollows() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let missing = try Running(["received", "--store", folder.storePath], folder: folder)
        #expect(try await missing.exitStatus() == 2)
        #expect(missing.stderr.contains("No notifications stored yet at \(folder.storePath): start iapdesk listen."))

        let store = try await SQLiteNotificationStore.open(path: folder.storePath)
        for (uuid, type, transaction) in [("u-1", "DID_RENEW", "111"), ("u-2", "REFUND", "222")] {
            var delivery = NotificationDelivery(notificationUUID: uuid, rawBody: Data(#"{"signedPayload":"x.y.z"}"#.utf8), verdict: "verified", receivedAt: Date())
            delivery.notificationType = type
            delivery.transactionId = transaction
            _ = try await store.record(delivery)
        }
        try await store.quarantine(RefusedDelivery(reason: "not-json", detail: "The body is not JSON.", body: Data("nope".utf8), bodySize: 4, truncated: false, receivedAt: Date()))

        let table = try Running(["received", "--store", folder.storePath], folder: folder)
        #expect(try await table.exitStatus() == 0)
        #expect(table.stdout.contains("2 notifications in"))
        #expect(table.stdout.contains("DELIVERIES"))
        #expect(table.stdout.contains("u-1") && table.stdout.contains("u-2"))

        let json = try Running(["received", "--store", folder.storePath, "--type", "refund", "--json"], folder: folder)
        #expect(try await json.exitStatus() == 0)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        let rows = try #require(object["notifications"] as? [[String: Any]])
        #expect(rows.map { $0["notificationUUID"] as? String } == ["u-2"])
        #expect(rows.first?["signedPayload"] as? String == "x.y.z")
        #expect(rows.first?["deliveryCount"] as? Int == 1)

        let byTransaction = try Running(["received", "--store", folder.storePath, "--transaction", "111", "--json"], folder: folder)
        #expect(try await byTransaction.exitStatus() == 0)
        #expect(byTransaction.stdout.contains("\"u-1\"") && !byTransaction.stdout.contains("\"u-2\""))

        let quarantined = try Running(["received", "--store", folder.storePath, "--quarantined"], folder: folder)
        #expect(try await quarantined.exitStatus() == 0)
        #expect(quarantined.stdout.contains("not-json"))
        #expect(quarantined.stdout.contains("The body is not JSON."))

        let follow = try Running(["received", "--store", folder.storePath, "--follow", "--json"], folder: folder)
        #expect(try await follow.waitFor { $0.contains("\"u-2\"") ? true : nil } == true)
        var later = NotificationDelivery(notificationUUID: "u-3", rawBody: Data("{}".utf8), verdict: "verified", receivedAt: Date())
        later.notificationType = "TEST"
        _ = try await store.record(later)
        #expect(try await follow.waitFor { $0.contains("\"u-3\"") ? true : nil } == true)
        follow.signal(SIGINT)
        #expect(try await follow.exitStatus() == 0)
        #expect(follow.stdout.components(separatedBy: "\"u-3\"").count == 2)
        // Said once on standard error, so an empty store does not look like a hang; Ctrl-C says nothing of the store.
        #expect(follow.stderr.contains("following notifications as they are stored; Ctrl-C stops."), "\(follow.stderr)")
        #expect(!follow.stderr.contains("cannot be read"), "\(follow.stderr)")
        try await store.close()
    }

    /// The demo never writes into the store IAPDESK_STORE names (it may be a team's), and says so.
    @Test func listenDemoKeepsItsOwnStoreAndSaysIAPDESK_STOREIsNotUsed() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let other = folder.url.appendingPathComponent("team.sqlite").path
        let listen = try Running(["listen", "--demo", "--address", "127.0.0.1:0"], folder: folder, environment: ["IAPDESK_STORE": other])
        #expect(try await listen.waitFor { $0.contains("Listening on") ? true : nil } == true, "\(listen.stderr)")
        listen.signal(SIGINT)
        #expect(try await listen.exitStatus() == 0)
        #expect(listen.stderr.contains("note: --demo keeps its own store; IAPDESK_STORE is not used with it"), "\(listen.stderr)")
        #expect(!listen.stdout.contains(other))
        #expect(!FileManager.default.fileExists(atPath: other))
    }

}
