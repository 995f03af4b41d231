import AppStoreServerAPI
import ArgumentParser
import DemoServer
import DeskStore
import Foundation
import Synchronization
import WebhookReceiver

/// Prints one figure per line as `name: value unit`: the notification store's writes and the
/// receiver's end-to-end rate over loopback (docs/webhooks.md, Figures).
@main
struct WebhookBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "iapdesk-webhook-bench",
        abstract: "Measures the notification store and the receiver behind iapdesk listen.",
        discussion: """
            Every write is durable (WAL, synchronous=FULL), so the store's figures are mostly the disk's fsync. \
            The receiver's figures include reading the body, verifying the notification and its nested transaction \
            (demo-signed), the durable write and the answer, with the senders on the same machine.
            """)

    @Option(name: .long, help: "Notifications per measurement.") var count: Int = 2000
    @Option(name: .long, help: "Requests in flight in the receiver measurement.") var concurrency: Int = 16
    @Option(name: .long, help: "Folder for the store files (default: a new temporary folder; its disk decides the figures).")
    var folder: String?
    @Option(name: .long, help: ArgumentHelp(
        "Only write --count signed notification bodies (bodies.txt, one a line) and the root that signed them (root.der) here, for an external load generator (scripts/webhook-loadgen.sh).",
        valueName: "folder"))
    var writeBodies: String?
    @Option(name: .long, help: ArgumentHelp(
        "Also measure a team's store on this PostgreSQL database (postgres://USER@HOST:PORT/DATABASE; the bench fills it).", valueName: "url"))
    var postgres: String?
    @Option(name: .long, help: "Slow clients connected while valid notifications are measured.") var slowClients: Int = 200
    @Option(name: .long, help: ArgumentHelp(
        "Only these groups of figures: store, receiver, teams, slow, refusal, metrics, watch, memory, console (comma-separated; memory and console run only when named).",
        valueName: "groups"))
    var only: String?
    @Option(name: .long, help: "Seconds of the memory group's run of listen under load (the budget speaks of 10 minutes).") var soakSeconds: Double = 600
    @Option(name: .long, help: "Notifications in the store the console group's second run reads.") var consoleNotifications: Int = 10_000
    @Option(name: .long, help: "Seconds the console group reads the console's memory after its last step (the steady figure).") var steadySeconds: Double = 20

    func run() async throws {
        if let writeBodies {
            let demo = try await DemoServer.start()
            try FileManager.default.createDirectory(atPath: writeBodies, withIntermediateDirectories: true)
            let bodies = try Self.bodies(count, demo: demo)
            try Data(bodies.map { String(decoding: $0, as: UTF8.self) }.joined(separator: "\n").utf8).write(to: URL(fileURLWithPath: writeBodies + "/bodies.txt"))
            try demo.rootCertificateDER.write(to: URL(fileURLWithPath: writeBodies + "/root.der"))
            await demo.stop()
            return
        }
        let base = folder ?? NSTemporaryDirectory() + "iapdesk-webhook-bench-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: base, withIntermediateDirectories: true)
        defer { if folder == nil { try? FileManager.default.removeItem(atPath: base) } }
        let groups = Set((only ?? "store,receiver,teams,slow,refusal,metrics,watch").split(separator: ",").map(String.init))
        if groups.contains("store") { try await measureStore(base + "/store.sqlite") }
        if groups.contains("receiver") { try await measureReceiver(base + "/receiver.sqlite") }
        if groups.contains("teams") { try await measureTeamStores(sqlitePath: base + "/receivers.sqlite", postgres: postgres) }
        if groups.contains("slow") { try await measureUnderSlowClients(base + "/slow.sqlite", slow: slowClients) }
        if groups.contains("refusal") { try await measureRefusalCost(base + "/refusal") }
        if groups.contains("metrics") { try await measureMetricsCost(base + "/metrics") }
        if groups.contains("watch") { try await measureWatchCycle(base + "/watch") }
        if groups.contains("memory") { try await measureListenMemory(base + "/memory", seconds: soakSeconds) }
        if groups.contains("console") { try await measureConsoleMemory(base + "/console") }
    }

    static func figure(_ name: String, _ value: Double, _ unit: String) {
        print("\(name): \(String(format: value >= 100 ? "%.0f" : "%.2f", value)) \(unit)")
        fflush(nil)
    }

    static func percentile(_ values: [Double], _ fraction: Double) -> Double {
        guard !values.isEmpty else { return 0 }
        let sorted = values.sorted()
        return sorted[min(sorted.count - 1, Int(Double(sorted.count - 1) * fraction))]
    }

    static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }

    static func delivery(_ uuid: String) -> NotificationDelivery {
        var delivery = NotificationDelivery(
            notificationUUID: uuid, rawBody: Data(repeating: UInt8(ascii: "x"), count: 4_000), verdict: "verified", receivedAt: Date(),
            elapsedMilliseconds: 1)
        delivery.notificationType = "DID_RENEW"
        delivery.transactionId = "2000000123456789"
        delivery.decodedPayload = Data(repeating: UInt8(ascii: "y"), count: 2_000)
        return delivery
    }

    func measureStore(_ path: String) async throws {
        let store = try await SQLiteNotificationStore.open(path: path)
        let count = self.count
        var latencies: [Double] = []
        let clock = ContinuousClock()
        let sequential = try await clock.measure {
            for index in 0..<count {
                let started = clock.now
                _ = try await store.record(Self.delivery("sequential-\(index)"))
                latencies.append(Self.seconds(clock.now - started) * 1000)
            }
        }
        Self.figure("store_record_sequential", Double(count) / Self.seconds(sequential), "notifications/s")
        Self.figure("store_record_p50", Self.percentile(latencies, 0.5), "ms")
        Self.figure("store_record_p99", Self.percentile(latencies, 0.99), "ms")
        let concurrent = try await clock.measure {
            try await withThrowingTaskGroup(of: Void.self) { group in
                for worker in 0..<8 {
                    group.addTask {
                        for index in stride(from: worker, to: count, by: 8) { _ = try await store.record(Self.delivery("concurrent-\(index)")) }
                    }
                }
                try await group.waitForAll()
            }
        }
        Self.figure("store_record_concurrent_8", Double(count) / Self.seconds(concurrent), "notifications/s")
        let repeats = try await clock.measure {
            for index in 0..<count { _ = try await store.record(Self.delivery("sequential-\(index)")) }
        }
        Self.figure("store_record_repeat", Double(count) / Self.seconds(repeats), "deliveries/s")
        let listing = try await clock.measure {
            _ = try await store.notifications(NotificationFilter(type: "DID_RENEW", limit: 50))
        }
        Self.figure("store_list_newest_50_of_\(2 * count)", Self.seconds(listing) * 1000, "ms")
        try await store.close()
    }

    /// Valid notifications sent by `concurrency` light senders (`SenderLanes`), beside the signature
    /// limit measured in the same run, with what the senders cost: wall rate and latency, and the
    /// receiver's CPU time per notification against two raw verifies, which the machine's other load
    /// does not change.
    func measureReceiver(_ path: String) async throws {
        let demo = try await DemoServer.start()
        let store = try await SQLiteNotificationStore.open(path: path)
        var configuration = NotificationReceiver.Configuration()
        configuration.port = 0
        let receiver = try await NotificationReceiver.start(configuration, verifier: try demo.makeVerifier(), store: store)
        // Ten a connection first, so that the chain is cached and every connection open.
        let warm = 10 * concurrency
        let allBodies = try Self.bodies(count + warm, demo: demo)
        let bodies = Array(allBodies.dropFirst(warm))
        let senders = SenderLanes(port: receiver.port, path: configuration.path, connections: concurrency)
        _ = await senders.send(Array(allBodies.prefix(warm)))

        // The limit is measured just before and just after the round, and the two averaged: the
        // other load on a shared machine changes within a minute, and the ratio should see the round's.
        let rawBefore = try SignatureLimit.rawVerifiesPerSecond()
        let verified = await senders.send(bodies)
        let rawAfter = try SignatureLimit.rawVerifiesPerSecond()
        let raw = (rate: (rawBefore.rate + rawAfter.rate) / 2, cores: rawAfter.cores)
        let verifyCPU = try SignatureLimit.rawVerifyCPUSeconds()
        let signatures = Double(SignatureLimit.signaturesPerNotification)
        let limit = raw.rate / signatures
        let rate = Double(count) / verified.seconds
        // The cores the senders kept busy on average: what is left is what the receiver could use.
        let sendersCores = verified.sendersCPU / verified.seconds
        let coresLeft = max(0, Double(raw.cores) - sendersCores)
        let limitOnCoresLeft = limit * coresLeft / Double(raw.cores)
        let receiverCPU = verified.receiverCPU / Double(count)
        Self.figure("receiver_verified_stored_c\(concurrency)", rate, "notifications/s")
        Self.figure(
            "receiver_signature_limit", limit,
            "notifications/s (raw P-256 verifies \(Int(raw.rate)) per s on \(raw.cores) cores, the mean of \(Int(rawBefore.rate)) before the round and \(Int(rawAfter.rate)) after it, / \(SignatureLimit.signaturesPerNotification) signatures each; the receiver at \(String(format: "%.2f", rate / limit)) of it, target 0.7)")
        Self.figure(
            "receiver_signature_limit_cores_left", limitOnCoresLeft,
            "notifications/s (the same on the \(String(format: "%.2f", coresLeft)) cores the senders left; the receiver at \(String(format: "%.2f", rate / limitOnCoresLeft)) of it)")
        Self.figure("receiver_verified_stored_p50", Self.percentile(verified.latencies, 0.5), "ms")
        Self.figure("receiver_verified_stored_p99", Self.percentile(verified.latencies, 0.99), "ms")
        Self.figure("receiver_verified_stored_not_200", Double(verified.failures), "requests")
        Self.figure(
            "receiver_senders_cpu_share", verified.sendersCPU / verified.processCPU,
            "of the process's CPU time (\(String(format: "%.2f", sendersCores)) cores on average)")
        Self.figure(
            "receiver_cpu_per_notification", receiverCPU * 1e6,
            "µs (the process's CPU time less the senders', over \(count) notifications; a raw verify \(String(format: "%.1f", verifyCPU * 1e6)) µs)")
        Self.figure(
            "receiver_cpu_signature_share", signatures * verifyCPU / receiverCPU,
            "of the receiver's CPU time is the \(SignatureLimit.signaturesPerNotification) raw verifies: the share of the signature limit it reaches with every core its own, target 0.7")
        let parts = try await Self.receiverCosts(bodies, verifier: try demo.makeVerifier(), storePath: path + "-parts.sqlite")
        Self.figure("receiver_cpu_intake_per_notification", parts.intake * 1e6, "µs (parse, verify both signatures, build the delivery; one at a time)")
        Self.figure("receiver_cpu_store_per_notification", parts.store * 1e6, "µs (the durable write alone, 16 in flight)")
        Self.figure(
            "receiver_cpu_rest_per_notification", max(0, receiverCPU - parts.intake - parts.store) * 1e6,
            "µs (the HTTP server, the handler, the hops between threads: the whole less the two above)")
        let repeated = await senders.send(bodies)
        Self.figure("receiver_repeat_c\(concurrency)", Double(count) / repeated.seconds, "deliveries/s")
        let junk = Array(repeating: Data("not json".utf8), count: count)
        let quarantined = await senders.send(junk, expecting: 400)
        Self.figure("receiver_quarantine_c\(concurrency)", Double(count) / quarantined.seconds, "bodies/s")
        await receiver.stop()
        try await store.close()
        await demo.stop()
    }

    /// DID_RENEW notifications with a nested transaction, each with its own UUID, signed by the demo's chain.
    static func bodies(_ count: Int, demo: DemoServer, bundleId: String = DemoServer.bundleId) throws -> [Data] {
        var bodies: [Data] = []
        for index in 0..<count {
            var transaction = TransactionPayload()
            transaction.transactionId = String(2_000_000_100_000_000 + index)
            transaction.originalTransactionId = "2000000000000001"
            transaction.bundleId = bundleId
            transaction.productId = "com.iapdesk.demo.pro.monthly"
            transaction.environment = .production
            transaction.signedDate = Date()
            var data = NotificationData()
            data.environment = .production
            data.appAppleId = DemoServer.appAppleId
            data.bundleId = bundleId
            data.signedTransactionInfo = try demo.sign(transaction)
            var payload = NotificationPayload()
            payload.notificationType = .didRenew
            payload.notificationUUID = UUID().uuidString.lowercased()
            payload.version = "2.0"
            payload.signedDate = Date()
            payload.data = data
            bodies.append(Data(#"{"signedPayload":"\#(try demo.sign(payload))"}"#.utf8))
        }
        return bodies
    }

    /// Posts every body with `concurrency` in flight; seconds in all, each request's milliseconds, and how many were not `expecting`.
    static func send(
        _ bodies: [Data], to url: URL, transport: any HTTPTransport, concurrency: Int, expecting: Int = 200
    ) async throws -> (Double, [Double], Int) {
        let next = Counter()
        let clock = ContinuousClock()
        let started = clock.now
        let results = await withTaskGroup(of: ([Double], Int).self) { group in
            for _ in 0..<concurrency {
                group.addTask {
                    var latencies: [Double] = []
                    var failures = 0
                    while true {
                        let index = next.take()
                        guard index < bodies.count else { break }
                        let request = HTTPRequest(
                            method: "POST", url: url, headers: [("Content-Type", "application/json")], body: bodies[index], timeout: 60)
                        let sent = clock.now
                        let status = try? await transport.send(request).status
                        latencies.append(seconds(clock.now - sent) * 1000)
                        if status != expecting { failures += 1 }
                    }
                    return (latencies, failures)
                }
            }
            var all: ([Double], Int) = ([], 0)
            for await (latencies, failures) in group {
                all.0 += latencies
                all.1 += failures
            }
            return all
        }
        return (seconds(clock.now - started), results.0, results.1)
    }
}

/// Hands out 0, 1, 2, ... to tasks sharing a list.
final class Counter: Sendable {
    private let value = Mutex(0)

    func take() -> Int {
        value.withLock { value in
            defer { value += 1 }
            return value
        }
    }
}
