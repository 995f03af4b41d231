import AppStoreServerAPI
import Foundation
import Synchronization

/// Faults the demo server can inject, for tests and for showing how the console copes.
public struct DemoFaults: Sendable, Equatable {
    /// Added before an answer.
    public var latency: TimeInterval = 0
    /// Only every Nth request waits `latency`; nil: every request does.
    public var latencyEvery: Int?
    /// No answer at all: every request waits until the server stops.
    public var hang = false
    /// Every request waits until `DemoServer.releaseHeldRequests()` (then it is answered, and later
    /// ones at once) or until the server stops: a request kept in flight for as long as a test needs.
    public var holdUntilReleased = false
    /// Every answer's body goes out one byte at a time, this many seconds apart.
    public var trickle: TimeInterval = 0
    /// Apply Apple's per-endpoint rate limits (per second; Sandbox gets 10 %), answering 429 with Retry-After.
    public var rateLimits = false
    /// Every Nth request fails with `failureStatus` (500 with 5000001, or 503 with no body).
    public var failEvery: Int?
    public var failureStatus = 500
    /// Every Nth success answer carries a body that is not JSON.
    public var malformedEvery: Int?
    /// Every Nth success answer is cut in half.
    public var truncatedEvery: Int?
    /// Every signature the server makes is altered, so verification must fail.
    public var badSignatures = false
    /// Every request to these environments answers 401, however good its token: as Apple answers
    /// in Production for an app with no version released yet.
    public var rejectTokens: Set<AppStoreEnvironment> = []
    /// Every request with a good token answers 404 AppNotFoundError (4040003), as Apple does for
    /// an app it does not know.
    public var appNotFound = false
    /// The faults above apply to writes only (extensions, test notifications, consumption, account
    /// tokens, finishing), and only writes are counted
    /// in "every Nth": the reads a tool makes before a write, and a test's own, answer at once.
    public var onlyWrites = false

    public init() {}

    public var isEmpty: Bool { self == DemoFaults() }
}

/// Applies `DemoFaults` to requests and answers. Each request gets a number when it arrives, so
/// "every Nth" faults hit the same request however requests interleave.
final class FaultInjector: Sendable {
    let faults: DemoFaults
    private let state = Mutex<(count: Int, windows: [String: (second: Int64, used: Int)])>((0, [:]))
    private let pauses = Pauses()

    init(_ faults: DemoFaults) { self.faults = faults }

    /// Apple's documented per-second limits by endpoint name.
    static let limits: [String: Int] = [
        "lookup": 10, "refunds": 10, "extend": 20, "appAccountToken": 20, "massExtend": 1, "massExtendStatus": 50,
        "testNotification": 1, "testNotificationStatus": 1,
        "retention": 1, "retentionDefaultConfigure": 10,
    ]

    /// Numbers an arriving request (1, 2, ...).
    func arrive() -> Int {
        state.withLock { state -> Int in
            state.count += 1
            return state.count
        }
    }

    /// Holds request `number` as the latency and hang faults say; false when the server is stopping.
    func delay(_ number: Int) async -> Bool {
        if faults.hang { return await pauses.pause(seconds: 30 * 86_400) }
        if faults.holdUntilReleased, await !pauses.hold() { return false }
        guard faults.latency > 0 else { return true }
        if let every = faults.latencyEvery, every > 0, number % every != 0 { return true }
        return await pauses.pause(seconds: faults.latency)
    }

    /// Waits between trickled bytes; false when the server is stopping (then the rest goes at once).
    func trickleWait() async -> Bool { await pauses.pause(seconds: faults.trickle) }

    /// Ends every delay now and skips later ones, so the server can stop at once.
    func stop() { pauses.stop() }

    /// Answers the requests held by `holdUntilReleased`, and later ones at once.
    func release() { pauses.release() }

    /// Requests a delay holds now.
    var holding: Int { pauses.holding }

    /// Returns an error answer when a fault applies before routing.
    func before(_ number: Int, endpoint: String, environment: AppStoreEnvironment, now: Date) -> DemoResponse? {
        if faults.rejectTokens.contains(environment) { return DemoResponse(status: 401) }
        if faults.appNotFound { return DemoAPIError.appNotFound.response }
        if faults.rateLimits {
            let limit = max(1, (Self.limits[endpoint] ?? 50) / (environment == .sandbox ? 10 : 1))
            let second = now.epochMilliseconds / 1000
            let key = "\(environment.rawValue)/\(endpoint)"
            let allowed = state.withLock { state -> Bool in
                var window = state.windows[key] ?? (second, 0)
                if window.second != second { window = (second, 0) }
                window.used += 1
                state.windows[key] = window
                return window.used <= limit
            }
            if !allowed {
                var error = DemoAPIError.rateLimitExceeded
                error.retryAfter = Date(epochMilliseconds: (second + 1) * 1000)
                return error.response
            }
        }
        if let every = faults.failEvery, every > 0, number % every == 0 {
            return faults.failureStatus == 503 ? DemoResponse(status: 503) : DemoAPIError.generalInternalRetryable.response
        }
        return nil
    }

    /// Spoils a success answer's body when a fault says so, and marks any answer to be trickled.
    func after(_ number: Int, _ response: DemoResponse) -> DemoResponse {
        var answer = response
        answer.trickle = faults.trickle
        guard (200..<300).contains(response.status), !response.body.isEmpty else { return answer }
        if let every = faults.malformedEvery, every > 0, number % every == 0 {
            answer.body = Data("<html><body>502 Bad Gateway</body></html>".utf8)
        } else if let every = faults.truncatedEvery, every > 0, number % every == 0 {
            answer.body = response.body.prefix(response.body.count / 2)
        }
        return answer
    }
}

/// Sleeps that the server's stop ends early: graceful shutdown waits for requests in flight, and
/// an injected delay must not hold it.
private final class Pauses: Sendable {
    private let state = Mutex<(stopped: Bool, next: Int, sleeping: [Int: Task<Void, Never>])>((false, 0, [:]))
    private let held = Mutex<(released: Bool, next: Int, waiting: [Int: CheckedContinuation<Void, Never>])>((false, 0, [:]))

    /// Sleeps and holds under way.
    var holding: Int { state.withLock { $0.sleeping.count } + held.withLock { $0.waiting.count } }

    /// Waits until `release` or `stop` (or the request's cancellation); false when stopped.
    func hold() async -> Bool {
        let id = held.withLock { held -> Int in
            held.next += 1
            return held.next
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let now = held.withLock { held -> Bool in
                    if held.released || Task.isCancelled || state.withLock({ $0.stopped }) { return true }
                    held.waiting[id] = continuation
                    return false
                }
                if now { continuation.resume() }
            }
        } onCancel: {
            held.withLock { $0.waiting.removeValue(forKey: id) }?.resume()
        }
        return !state.withLock { $0.stopped }
    }

    func release() {
        let waiting = held.withLock { held in
            held.released = true
            defer { held.waiting = [:] }
            return Array(held.waiting.values)
        }
        waiting.forEach { $0.resume() }
    }

    /// True when the whole time passed, false when cut short by `stop`.
    func pause(seconds: TimeInterval) async -> Bool {
        guard seconds > 0 else { return !state.withLock { $0.stopped } }
        let sleep = Task { _ = try? await Task.sleep(nanoseconds: UInt64(seconds * 1_000_000_000)) }
        let id = state.withLock { state -> Int? in
            guard !state.stopped else { return nil }
            state.next += 1
            state.sleeping[state.next] = sleep
            return state.next
        }
        guard let id else {
            sleep.cancel()
            return false
        }
        await withTaskCancellationHandler { await sleep.value } onCancel: { sleep.cancel() }
        return state.withLock { state in
            state.sleeping[id] = nil
            return !state.stopped
        }
    }

    func stop() {
        let sleeping = state.withLock { state in
            state.stopped = true
            return Array(state.sleeping.values)
        }
        sleeping.forEach { $0.cancel() }
        let waiting = held.withLock { held in
            defer { held.waiting = [:] }
            return Array(held.waiting.values)
        }
        waiting.forEach { $0.resume() }
    }
}
