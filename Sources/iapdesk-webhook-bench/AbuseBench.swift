import AppStoreServerAPI
import DemoServer
import DeskStore
import Foundation
import WebhookReceiver

/// The receiver under abuse: valid notifications while slow clients hold connections, and what a
/// refused body costs beside a valid one.
extension WebhookBench {
    /// Valid notifications' latency while `slow` clients trickle their requests in, a byte a second.
    func measureUnderSlowClients(_ path: String, slow: Int) async throws {
        let demo = try await DemoServer.start()
        let store = try await SQLiteNotificationStore.open(path: path)
        var configuration = NotificationReceiver.Configuration()
        configuration.port = 0
        let receiver = try await NotificationReceiver.start(configuration, verifier: try demo.makeVerifier(), store: store)
        let trickle = SlowTrickle(count: slow, port: receiver.port, path: configuration.path)
        // Every slow client connected and sending before the first valid one is sent.
        let connected = ContinuousClock.now + .seconds(30)
        while receiver.openConnections < slow, ContinuousClock.now < connected { try await Task.sleep(for: .milliseconds(50)) }
        let held = receiver.openConnections
        let count = min(self.count, 1000)
        let bodies = try Self.bodies(count, demo: demo)
        let transport = AsyncHTTPClientTransport(connectionsPerHost: concurrency)
        // For longer than the read timeout (and its 5 s of grace), so that slow clients are cut and
        // replaced while valid ones are measured; after the first round the bodies are repeats.
        var latencies: [Double] = []
        var failures = 0
        let until = ContinuousClock.now + configuration.readTimeout + .seconds(6)
        repeat {
            let (_, round, failed) = try await Self.send(bodies, to: receiver.url, transport: transport, concurrency: concurrency)
            latencies += round
            failures += failed
        } while ContinuousClock.now < until
        let p50 = Self.percentile(latencies, 0.5)
        let p99 = Self.percentile(latencies, 0.99)
        Self.figure("receiver_valid_p50_with_\(slow)_slow", p50, "ms")
        Self.figure("receiver_valid_p99_with_\(slow)_slow", p99, "ms (limit 1000 ms: \(String(format: "%.3f", p99 / 1000)) of it)")
        Self.figure("receiver_valid_not_200_with_\(slow)_slow", Double(failures), "of \(latencies.count) requests")
        print("# \(held) slow connections open when the valid ones were sent; \(trickle.replaced) answered 408 or cut and replaced meanwhile.")
        trickle.stop()
        await receiver.stop()
        try await store.close()
        await demo.stop()
    }

    /// CPU time of the whole process per request, each kind sent over `concurrency` keep-alive
    /// connections by a client that costs little: the receiver's cost of a valid notification and
    /// of refused bodies, the client's few µs included. Each kind has a receiver and store of its
    /// own, so that each pays for its own quarantine writes (the first burst of them included).
    func measureRefusalCost(_ folder: String) async throws {
        let demo = try await DemoServer.start()
        let count = min(self.count, 2000)
        let valid = try Self.bodies(count, demo: demo)
        let tampered = try Self.bodies(count, demo: demo).map { Self.tampered($0) }
        let otherApp = try Self.bodies(count, demo: demo, bundleId: "com.example.other")
        let ownHeader = try Self.bodies(count, demo: demo).enumerated().map { Self.tampered(Self.withHeaderOfItsOwn($1, kid: "k\($0)")) }
        let repeated = Array(repeating: tampered[0], count: count)
        let junk = (0..<count).map { Data("not json \($0) ".utf8) + Data(repeating: UInt8(ascii: "x"), count: 10_000) }
        let kinds: [(String, [Data], Int)] = [
            ("valid", valid, 200), ("refused_bad_signature", tampered, 400), ("refused_bad_signature_own_header", ownHeader, 400),
            ("refused_bad_signature_repeated", repeated, 400),
            ("refused_other_bundle", otherApp, 400), ("refused_not_json_10k", junk, 400),
        ]
        var validCost = 0.0
        for (index, (name, bodies, expected)) in kinds.enumerated() {
            let store = try await SQLiteNotificationStore.open(path: "\(folder)-\(index).sqlite")
            var configuration = NotificationReceiver.Configuration()
            configuration.port = 0
            let receiver = try await NotificationReceiver.start(configuration, verifier: try demo.makeVerifier(), store: store)
            let (micros, wrong) = await Self.cpuPerRequest(
                bodies, port: receiver.port, path: configuration.path, expecting: expected, connections: concurrency)
            if name == "valid" {
                validCost = micros
                Self.figure("receiver_cpu_per_\(name)", micros, "µs (\(wrong) not \(expected))")
            } else {
                let kept = receiver.counters[.quarantineKept] + receiver.counters[.quarantineRepeats]
                Self.figure(
                    "receiver_cpu_per_\(name)", micros,
                    "µs (\(String(format: "%.2f", micros / validCost)) of a valid one, limit 0.5; \(wrong) not \(expected); \(kept) of \(bodies.count) written to the quarantine)")
            }
            await receiver.stop()
            try await store.close()
        }
        await demo.stop()
    }

    /// Sends every body over `connections` keep-alive connections, each from a thread of its own
    /// (as wrk does); CPU µs of the whole process per request, and how many were not `expecting`.
    static func cpuPerRequest(_ bodies: [Data], port: Int, path: String, expecting: Int, connections: Int) async -> (Double, Int) {
        let lanes = (0..<connections).map { lane in Array(stride(from: lane, to: bodies.count, by: connections).map { bodies[$0] }) }
        // Ten first on each connection, so that caches and connections are warm for every kind alike
        // and a flood's first burst of quarantine writes (100) is spent: what is measured is a flood
        // under way, whose refused bodies are written 50 a second whatever their rate.
        let warm = 10
        _ = await run(lanes.map { Array($0.prefix(warm)) }, port: port, path: path, expecting: expecting)
        let before = cpuMicroseconds()
        let wrong = await run(lanes.map { Array($0.dropFirst(warm)) }, port: port, path: path, expecting: expecting)
        let sent = lanes.map { max(0, $0.count - warm) }.reduce(0, +)
        return ((cpuMicroseconds() - before) / Double(max(1, sent)), wrong)
    }

    /// Each lane's bodies in order on a connection and thread of its own; how many were not `expecting`.
    static func run(_ lanes: [[Data]], port: Int, path: String, expecting: Int) async -> Int {
        await withTaskGroup(of: Int.self) { group in
            for lane in lanes {
                group.addTask {
                    await withCheckedContinuation { continuation in
                        Thread {
                            let client = RawClient(port: port, path: path)
                            continuation.resume(returning: lane.reduce(0) { $0 + (client.post($1) == expecting ? 0 : 1) })
                        }.start()
                    }
                }
            }
            return await group.reduce(0, +)
        }
    }

    static func cpuMicroseconds() -> Double {
        var usage = rusage()
        getrusage(Int32(RUSAGE_SELF.rawValue), &usage)
        return Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) * 1e6 + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec)
    }

    /// The body with a `kid` added to its JWS header: the same certificates under a header segment
    /// of its own, which no cache of headers has seen.
    static func withHeaderOfItsOwn(_ body: Data, kid: String) -> Data {
        let text = String(decoding: body, as: UTF8.self)
        let prefix = #"{"signedPayload":""#
        let jws = text.dropFirst(prefix.count).dropLast(2)
        let dot = jws.firstIndex(of: ".")!
        let header = String(decoding: Base64URL.decode(jws[..<dot])!, as: UTF8.self)
        let withKid = #"{"kid":"\#(kid)","# + header.dropFirst()
        return Data((prefix + Base64URL.encode(Data(withKid.utf8)) + jws[dot...] + #""}"#).utf8)
    }

    /// The body with one character of its signature changed.
    static func tampered(_ body: Data) -> Data {
        var bytes = [UInt8](body)
        let index = bytes.count - 12
        bytes[index] = bytes[index] == UInt8(ascii: "A") ? UInt8(ascii: "B") : UInt8(ascii: "A")
        return Data(bytes)
    }
}
