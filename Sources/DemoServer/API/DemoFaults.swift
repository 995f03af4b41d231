import AppStoreServerAPI
import Foundation
import Synchronization

/// Faults the demo server can inject, for tests and for showing how the console copes.
public struct DemoFaults: Sendable, Equatable {
    /// Added before every answer.
    public var latency: TimeInterval = 0
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

    public init() {}

    public var isEmpty: Bool { self == DemoFaults() }
}

/// Applies `DemoFaults` to requests and answers.
final class FaultInjector: Sendable {
    let faults: DemoFaults
    private let state = Mutex<(count: Int, windows: [String: (second: Int64, used: Int)])>((0, [:]))

    init(_ faults: DemoFaults) { self.faults = faults }

    /// Apple's documented per-second limits by endpoint name.
    static let limits: [String: Int] = [
        "lookup": 10, "refunds": 10, "extend": 20, "appAccountToken": 20, "massExtend": 1, "massExtendStatus": 50,
        "testNotification": 1, "testNotificationStatus": 1,
    ]

    /// Counts the request; returns an error answer when a fault applies before routing.
    func before(endpoint: String, environment: AppStoreEnvironment, now: Date) -> DemoResponse? {
        let count = state.withLock { state -> Int in
            state.count += 1
            return state.count
        }
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
        if let every = faults.failEvery, every > 0, count % every == 0 {
            return faults.failureStatus == 503 ? DemoResponse(status: 503) : DemoAPIError.generalInternalRetryable.response
        }
        return nil
    }

    /// Spoils a success answer's body when a fault says so.
    func after(_ response: DemoResponse) -> DemoResponse {
        guard (200..<300).contains(response.status), !response.body.isEmpty else { return response }
        let count = state.withLock { $0.count }
        var spoiled = response
        if let every = faults.malformedEvery, every > 0, count % every == 0 {
            spoiled.body = Data("<html><body>502 Bad Gateway</body></html>".utf8)
        } else if let every = faults.truncatedEvery, every > 0, count % every == 0 {
            spoiled.body = response.body.prefix(response.body.count / 2)
        }
        return spoiled
    }
}
