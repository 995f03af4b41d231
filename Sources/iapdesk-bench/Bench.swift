import AppStoreServerAPI
import ArgumentParser
import Crypto
import DemoServer
import Foundation
import Synchronization

/// Prints one figure per line as `name: value unit`.
@main
struct Bench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "iapdesk-bench",
        abstract: "Measures iapdesk's signed-data verification and request signing on one core.",
        discussion: """
            Without --jws-file, it signs its own transactions with a freshly made Apple-shaped chain \
            (--write-inputs DIR saves them as jws.txt and root.der for other verifiers). With --jws-file \
            (one JWS per line) and --root-cert (DER, repeatable), it verifies those payloads instead, so \
            the figure can be compared with other verifiers on the same input.
            """)

    @Option(name: .long, help: "A file with one JWS per line to verify instead of generated ones.")
    var jwsFile: String?

    @Option(name: .long, help: "A DER root certificate to trust (repeatable).")
    var rootCert: [String] = []

    @Option(name: .long, help: "Bundle ID the payloads must carry (with --jws-file).")
    var bundleId: String = "com.example"

    @Option(name: .long, help: "Environment the payloads must carry: Sandbox or Production (with --jws-file).")
    var environment: String = "Sandbox"

    @Option(name: .long, help: "App Apple ID (needed for Production payloads).")
    var appAppleId: Int64?

    @Option(name: .long, help: "Save the generated transactions (jws.txt) and their root (root.der) in this folder.")
    var writeInputs: String?

    @Option(name: .long, help: "Seconds to run each measurement.")
    var seconds: Double = 3

    @Option(name: .long, help: "Seconds of the demo server load test.")
    var loadSeconds: Double = 10

    @Option(name: .long, help: "Requests in flight during the load test.")
    var concurrency: Int = 16

    @Flag(name: .long, help: "Skip the demo server measurements.")
    var skipDemo = false

    @Option(name: .long, help: "Run only the measurements whose figures start with this prefix (e.g. inspector_, console_, jws_).")
    var only: String?

    @Option(name: .long, help: "Milliseconds the demo server waits before each answer for the latency_ figures (Apple's round trip is about 150).")
    var latencyMs: Int = 150

    @Option(name: .long, help: "IDs in the bulk_ figures' file (Get All Subscription Statuses allows 50 per second).")
    var bulkIds: Int = 1000

    @Option(name: .long, help: "Seconds the wait_ figures' requests wait on a server that never answers (their timeout).")
    var waitSeconds: Double = 5

    func run() async throws {
        if selected("jws_") {
            if let jwsFile {
                try await measureFile(jwsFile)
            } else {
                try await measureGenerated()
            }
        }
        if selected("jwt_") { try await measureTokenSigning() }
        if !skipDemo && jwsFile == nil && selected("demo_") {
            try await measureDemoServer()
        }
        if jwsFile == nil && selected("console_") {
            ConsoleBench.measureFrames()
            try ConsoleBench.measureScrollBytes()
            try ConsoleBench.measureStartup()
        }
        if jwsFile == nil && selected("inspector_") {
            try await InspectorBench.run()
        }
        if !skipDemo && jwsFile == nil && selected("latency_") {
            try await LatencyBench.run(latencyMs: latencyMs)
        }
        if jwsFile == nil && selected("wait_") {
            try await WaitBench.run(requests: 10, seconds: waitSeconds)
        }
        if !skipDemo && jwsFile == nil && selected("bulk_") {
            try await BulkBench.run(ids: bulkIds, latencyMs: latencyMs)
        }
    }

    /// A group of figures named `prefix...` runs when --only is absent or names the group or one of its figures.
    func selected(_ prefix: String) -> Bool {
        guard let only else { return true }
        return prefix.hasPrefix(only) || only.hasPrefix(prefix)
    }

    /// Full history of the 500-transaction customer over loopback, and sustained Get Transaction Info.
    func measureDemoServer() async throws {
        let server = try await DemoServer.start()
        let client = try server.makeClient(retryPolicy: .none).limited(by: nil)
        let verifier = try server.makeVerifier()
        guard let busiest = server.seedIDs().customers.first(where: { $0.scenario.contains("500+") }) else {
            throw ValidationError("the demo has no 500-transaction customer")
        }
        var timings: [Double] = []
        var count = 0
        for _ in 0..<5 {
            let start = ContinuousClock.now
            count = 0
            for try await page in client.transactionHistoryPages(anyTransactionId: busiest.originalTransactionId) {
                for jws in page.signedTransactions ?? [] {
                    guard await verifier.verifyTransaction(jws).status.isVerified else { throw ValidationError("history JWS failed") }
                    count += 1
                }
            }
            timings.append((ContinuousClock.now - start).seconds * 1000)
        }
        timings.sort()
        print("demo_full_history_transactions: \(count) count")
        print("demo_full_history_fetch_verify_median: \(String(format: "%.1f", timings[timings.count / 2])) ms")

        let id = busiest.originalTransactionId
        let counters = LoadCounters()
        let deadline = ContinuousClock.now + .seconds(loadSeconds)
        let start = ContinuousClock.now
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<concurrency {
                group.addTask {
                    while ContinuousClock.now < deadline {
                        do {
                            _ = try await client.getTransactionInfo(transactionId: id)
                            counters.state.withLock { $0.ok += 1 }
                        } catch {
                            counters.state.withLock { $0.errors += 1 }
                        }
                    }
                }
            }
        }
        let elapsed = (ContinuousClock.now - start).seconds
        let (ok, errors) = counters.state.withLock { ($0.ok, $0.errors) }
        print("demo_get_transaction_info_sustained: \(Int(Double(ok) / elapsed)) requests_per_second")
        print("demo_get_transaction_info_errors: \(errors) count")
        print("demo_load_duration: \(String(format: "%.1f", elapsed)) seconds")
        await server.stop()
    }

    func measureGenerated() async throws {
        let (authority, verifier) = try BenchSigning.authority()
        let repeated = (0..<1000).map { authority.signer.sign(json: Self.transaction(index: $0)) }
        if let writeInputs {
            let folder = URL(fileURLWithPath: writeInputs)
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            try (repeated.joined(separator: "\n") + "\n").write(to: folder.appendingPathComponent("jws.txt"), atomically: true, encoding: .utf8)
            try authority.rootDER.write(to: folder.appendingPathComponent("root.der"))
        }
        // The one signature check itself, on the same machine and run: swift-crypto's P-256 verify
        // of a precomputed digest. Nothing can verify payloads faster than this. The two are timed
        // in alternating slices, so that both see the same load from whatever else runs.
        let raw = try RawVerify()
        let (rate, rawRate) = try await alternating(seconds: seconds, inputs: repeated, raw: raw) { jws in
            await verifier.verifyTransaction(jws).status.isVerified
        }
        print("jws_verify_repeated_chain: \(Int(rate)) per_second")
        print("jws_p256_verify_raw: \(Int(rawRate)) per_second")
        print("jws_verify_repeated_chain_share_of_raw: \(String(format: "%.1f", rate / rawRate * 100)) percent")

        // Distinct chains: every verification builds and validates its chain from scratch.
        var roots: [Data] = []
        var distinct: [String] = []
        for index in 0..<40 {
            let other = try SigningCertificateAuthority(
                validFrom: Date(timeIntervalSince1970: 1_600_000_000), validUntil: Date(timeIntervalSince1970: 2_000_000_000),
                name: "iapdesk Bench \(index)")
            roots.append(other.rootDER)
            distinct.append(other.signer.sign(json: Self.transaction(index: index)))
        }
        let uncached = try SignedDataVerifier(
            bundleId: "com.example", appAppleId: nil, environment: .sandbox,
            additionalRoots: roots, trustAppleRoot: false, cachesChains: false)
        let (distinctRate, distinctRaw) = try await alternating(seconds: seconds, inputs: distinct, raw: raw) { jws in
            await uncached.verifyTransaction(jws).status.isVerified
        }
        print("jws_verify_distinct_chains: \(Int(distinctRate)) per_second")
        print("jws_verify_distinct_chains_share_of_raw: \(String(format: "%.1f", distinctRate / distinctRaw * 100)) percent")
    }

    func measureFile(_ path: String) async throws {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else {
            throw ValidationError("Cannot read \(path).")
        }
        let lines = text.split(whereSeparator: \.isNewline).map { String($0).trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        guard !lines.isEmpty else { throw ValidationError("\(path) holds no JWS.") }
        let roots = try rootCert.map { path -> Data in
            guard let data = FileManager.default.contents(atPath: path) else { throw ValidationError("Cannot read \(path).") }
            return data
        }
        let verifier = try SignedDataVerifier(
            bundleId: bundleId, appAppleId: appAppleId, environment: AppStoreEnvironment(environment),
            additionalRoots: roots, trustAppleRoot: true)
        for (index, line) in lines.enumerated() {
            let status = await verifier.verifyTransaction(line).status
            guard status.isVerified else { throw ValidationError("Line \(index + 1) does not verify: \(status.summary)") }
        }
        let rate = try await throughput(seconds: seconds, inputs: lines) { jws in
            await verifier.verifyTransaction(jws).status.isVerified
        }
        print("jws_verify_file: \(Int(rate)) per_second")
        print("jws_file_payloads: \(lines.count) count")
    }

    /// P-256 ECDSA verifications of one key over SHA-256 digests (64 distinct signatures).
    struct RawVerify {
        let publicKey: P256.Signing.PublicKey
        let samples: [(SHA256Digest, P256.Signing.ECDSASignature)]

        init() throws {
            let key = P256.Signing.PrivateKey()
            samples = try (0..<64).map { index -> (SHA256Digest, P256.Signing.ECDSASignature) in
                let digest = SHA256.hash(data: Data("payload \(index)".utf8))
                return (digest, try key.signature(for: digest))
            }
            publicKey = key.publicKey
        }

        /// Checks every sample once; the count checked.
        func run() throws -> Int {
            var valid = true
            for (digest, signature) in samples { valid = publicKey.isValidSignature(signature, for: digest) && valid }
            guard valid else { throw ValidationError("a raw signature failed") }
            return samples.count
        }
    }

    /// Rates of `body` over `inputs` and of the raw check, timed in alternating slices of 10 ms for
    /// `seconds` each in all.
    func alternating(seconds: Double, inputs: [String], raw: RawVerify, _ body: (String) async -> Bool) async throws -> (Double, Double) {
        for input in inputs.prefix(50) where await !body(input) {
            throw ValidationError("a benchmark JWS failed to verify")
        }
        var counts = (body: 0, raw: 0)
        var times = (body: Duration.zero, raw: Duration.zero)
        var next = 0
        let slice = Duration.milliseconds(10)
        while times.body + times.raw < .seconds(2 * seconds) {
            var start = ContinuousClock.now
            while ContinuousClock.now - start < slice {
                for _ in 0..<8 {
                    _ = await body(inputs[next])
                    next = (next + 1) % inputs.count
                }
                counts.body += 8
            }
            times.body += ContinuousClock.now - start
            start = ContinuousClock.now
            while ContinuousClock.now - start < slice { counts.raw += try raw.run() }
            times.raw += ContinuousClock.now - start
        }
        return (Double(counts.body) / times.body.seconds, Double(counts.raw) / times.raw.seconds)
    }

    func measureTokenSigning() async throws {
        let credentials = Credentials(
            issuerId: "57246542-96fe-1a63-e053-0824d011072a", keyId: "BENCHKEY01", bundleId: "com.example",
            signingKey: SigningKey(P256.Signing.PrivateKey()))
        let signer = try RequestTokenSigner(credentials: credentials)
        var count = 0
        let start = ContinuousClock.now
        while ContinuousClock.now - start < .seconds(seconds) {
            _ = try await signer.sign()
            count += 1
        }
        print("jwt_sign: \(Int(Double(count) / (ContinuousClock.now - start).seconds)) per_second")
    }

    func throughput(seconds: Double, inputs: [String], _ body: (String) async -> Bool) async throws -> Double {
        for input in inputs.prefix(50) where await !body(input) {
            throw ValidationError("a benchmark JWS failed to verify")
        }
        var count = 0
        let start = ContinuousClock.now
        let limit = Duration.seconds(seconds)
        while ContinuousClock.now - start < limit {
            for input in inputs {
                _ = await body(input)
            }
            count += inputs.count
        }
        return Double(count) / (ContinuousClock.now - start).seconds
    }

    static func transaction(index: Int) -> Data {
        let id = 2_000_000_100_000_000 + index
        return Data("""
            {"transactionId":"\(id)","originalTransactionId":"2000000100000000","webOrderLineItemId":"\(id + 7)",\
            "bundleId":"com.example","productId":"com.example.pro.monthly","subscriptionGroupIdentifier":"21345678",\
            "purchaseDate":1750000000000,"originalPurchaseDate":1740000000000,"expiresDate":1752592000000,"quantity":1,\
            "type":"Auto-Renewable Subscription","inAppOwnershipType":"PURCHASED","signedDate":1750000000123,\
            "environment":"Sandbox","transactionReason":"RENEWAL","storefront":"USA","storefrontId":"143441",\
            "price":9990,"currency":"USD","appTransactionId":"704000000000001"}
            """.utf8)
    }
}

extension Duration {
    var seconds: Double { Double(components.seconds) + Double(components.attoseconds) / 1e18 }
}

final class LoadCounters: Sendable {
    let state = Mutex<(ok: Int, errors: Int)>((0, 0))
}
