import AppStoreServerAPI
import Foundation

/// One performance test, run as Apple runs it: `totalRequests` signed real-time requests
/// (`{"signedPayload": JWS}`, signed by the demo's signer like its notifications) POSTed to the
/// realtime URL, `maxConcurrentRequests` at a time. An answer counts as a success when it is a
/// 2xx holding a real-time response body within `responseTimeThreshold` ms; the run passes when
/// successes reach `successRateThreshold` percent. Its result is journaled like every write.
///
/// No local server holds a certificate Apple would trust, so an https URL on a loopback host
/// (127.0.0.1, localhost) is called over plain http: the URL's rules are Apple's, the call the demo's.
struct PerformanceTestRun: Sendable {
    let store: DemoStore
    let requestId: String
    let target: String
    let config: PerformanceTestConfig
    let originalTransactionId: String
    let productId: String
    let transport: any HTTPTransport

    struct Outcome: Sendable {
        let milliseconds: Int64
        /// nil: a success.
        let failure: SendAttemptResult?
    }

    func run() async {
        let total = Int(config.totalRequests ?? 0)
        let concurrency = max(1, Int(config.maxConcurrentRequests ?? 1))
        var outcomes: [Outcome] = []
        await withTaskGroup(of: [Outcome].self) { group in
            for worker in 0..<concurrency {
                group.addTask {
                    var mine: [Outcome] = []
                    for _ in stride(from: worker, to: total, by: concurrency) { mine.append(await send()) }
                    return mine
                }
            }
            for await part in group { outcomes += part }
        }
        let result = Self.result(outcomes, config: config, target: target)
        let now = store.clock()
        _ = try? store.write(.sandbox) { data throws(DemoAPIError) in
            var entry = DemoJournalEntry(.retention, .sandbox, at: now)
            entry.retention = .performanceTestFinished(requestId: requestId, result: result)
            try store.keep(entry)
            data.retention.apply(entry.retention!, at: now)
        }
    }

    /// One signed real-time request and how it went.
    func send() async -> Outcome {
        var payload = RealtimeRequestPayload()
        payload.originalTransactionId = originalTransactionId
        payload.appAppleId = DemoCatalog.appAppleId
        payload.productId = productId
        payload.userLocale = "en-US"
        payload.requestIdentifier = UUID().uuidString.lowercased()
        payload.signedDate = store.clock()
        payload.environment = .sandbox
        let signed = store.served(store.signed(payload))
        let threshold = Double(config.responseTimeThreshold ?? 700) / 1000
        guard let url = Self.callURL(target) else { return Outcome(milliseconds: 0, failure: .other) }
        let request = HTTPRequest(
            method: "POST", url: url,
            headers: [("Content-Type", "application/json"), ("User-Agent", "App Store Retention Messaging (iapdesk demo)")],
            body: try? JSONSerialization.data(withJSONObject: ["signedPayload": signed]), timeout: threshold)
        let clock = ContinuousClock()
        let start = clock.now
        let failure: SendAttemptResult?
        do {
            let response = try await transport.send(request)
            if !(200..<300).contains(response.status) {
                failure = .unsuccessfulHTTPResponseCode
            } else if (try? AppStoreJSON.decode(RealtimeResponseBody.self, from: response.body)) == nil {
                failure = .invalidResponse
            } else {
                failure = nil
            }
        } catch let transportFailure as TransportFailure {
            failure = WebhookSender.result(for: transportFailure)
        } catch {
            failure = .other
        }
        let elapsed = clock.now - start
        // Whole milliseconds, rounded up: an answer under a millisecond (the demo's own endpoint)
        // took time all the same, and is 1 ms, not 0.
        let nanoseconds = elapsed.components.seconds * 1_000_000_000 + elapsed.components.attoseconds / 1_000_000_000
        let milliseconds = (nanoseconds + 999_999) / 1_000_000
        // An answer after the threshold is a timeout, however it ended.
        let late = Double(milliseconds) / 1000 > threshold
        return Outcome(milliseconds: milliseconds, failure: failure ?? (late ? .timedOut : nil))
    }

    /// `https://localhost/demo/realtime` (no port) names the demo's own Get Retention Message
    /// endpoint, answered in the process that runs the test (no network: its time is its own).
    static func isOwnEndpoint(_ target: String) -> Bool {
        guard let components = URLComponents(string: target) else { return false }
        return ["127.0.0.1", "localhost"].contains(components.host?.lowercased() ?? "") && components.port == nil
            && components.path == "/demo/realtime"
    }

    /// The URL the demo calls for `target`: loopback https goes over http.
    static func callURL(_ target: String) -> URL? {
        guard var components = URLComponents(string: target) else { return nil }
        if components.scheme?.lowercased() == "https", ["127.0.0.1", "localhost", "::1"].contains(components.host?.lowercased() ?? "") {
            components.scheme = "http"
        }
        return components.url
    }

    static func result(_ outcomes: [Outcome], config: PerformanceTestConfig, target: String) -> PerformanceTestResultResponse {
        var result = PerformanceTestResultResponse()
        result.config = config
        result.target = target
        result.numPending = 0
        let successes = outcomes.filter { $0.failure == nil }.count
        result.successRate = outcomes.isEmpty ? 0 : Int32(successes * 100 / outcomes.count)
        let times = outcomes.map(\.milliseconds).sorted()
        func percentile(_ p: Double) -> Int64? {
            times.isEmpty ? nil : times[min(times.count - 1, Int((Double(times.count) * p).rounded(.up)) - 1)]
        }
        result.responseTimes = PerformanceTestResponseTimes(
            average: times.isEmpty ? nil : times.reduce(0, +) / Int64(times.count),
            p50: percentile(0.5), p90: percentile(0.9), p95: percentile(0.95), p99: percentile(0.99))
        var failures: [String: Int32] = [:]
        for outcome in outcomes { if let failure = outcome.failure { failures[failure.rawValue, default: 0] += 1 } }
        result.failures = failures
        result.result = result.successRate ?? 0 >= config.successRateThreshold ?? 100 ? .pass : .fail
        return result
    }
}

/// The demo's own realtime endpoint as a transport: each request is answered as `/demo/realtime` answers it.
struct OwnRealtimeEndpoint: HTTPTransport {
    let routes: RetentionRoutes

    func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        let answer = routes.ownRealtimeAnswer(.sandbox)
        return HTTPResponse(status: answer.status, headers: ["Content-Type": "application/json"], body: answer.body)
    }
}
