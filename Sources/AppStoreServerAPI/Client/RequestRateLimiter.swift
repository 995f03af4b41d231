import Foundation
import Synchronization

/// Apple's per-endpoint request rates, kept on the client's side: a token bucket per endpoint and
/// environment holding one second's worth of requests, where each token comes back one second after
/// it was spent. So no endpoint ever sees more than its limit in any one-second span (Apple enforces
/// the limits per hour, so a burst up to the per-second rate is safe), and a 429 pauses the endpoint
/// for everyone sharing the limiter until its Retry-After.
///
/// Share one limiter between every client of one app (`AppStoreServerClient.limited(by:)`): the
/// limits are per app, not per client.
public final class RequestRateLimiter: Sendable {
    /// Requests per second by Apple's endpoint name, for Production.
    public let productionLimits: [String: Int]
    /// Applied to an endpoint not in `productionLimits`.
    public let defaultLimit: Int
    /// Share of the Production rate Sandbox allows (Apple: 10 %); at least 1 request per second.
    public let sandboxShare: Double
    /// Share of each limit to use, with starts evenly spaced (nil: up to the whole limit, in bursts).
    /// A long run of requests paced below the limit leaves room for the app's other clients and for
    /// the network's jitter, which can land two bursts in one of the server's seconds.
    public let pacedShare: Double?

    private struct Bucket {
        /// Start times of the most recent requests, oldest first; at most `limit` of them.
        var recent: [Date] = []
        var head = 0
        var pausedUntil: Date?
        var granted = 0
        var rateLimitedAnswers = 0
    }

    private let buckets = Mutex<[String: Bucket]>([:])
    /// Every start time granted, by bucket, when `recordsGrants` (tests count requests per second with it).
    private let grants = Mutex<[String: [Date]]>([:])
    private let recordsGrants: Bool

    /// Apple's documented rates (appstore-api.md section 10): 50 per second unless listed.
    public static let appleProductionLimits: [String: Int] = [
        "Extend a Subscription Renewal Date": 20,
        "Set App Account Token": 20,
        "Look Up Order ID": 10,
        "Get Refund History": 10,
        "Get Refund History V1": 10,
        "Extend Subscription Renewal Dates for All Active Subscribers": 1,
        "Request a Test Notification": 1,
        "Get Test Notification Status": 1,
        // Retention Messaging: 10 for Configure Default Message, 1 for every other endpoint.
        "Configure Default Message": 10,
        "Upload Image": 1,
        "Delete Image": 1,
        "Get Image List": 1,
        "Upload Message": 1,
        "Delete Message": 1,
        "Get Message List": 1,
        "Get Default Message": 1,
        "Delete Default Message": 1,
        "Configure Realtime URL": 1,
        "Get Realtime URL": 1,
        "Delete Realtime URL": 1,
        "Initiate Performance Test": 1,
        "Get Performance Test Results": 1,
    ]

    public init(
        productionLimits: [String: Int] = RequestRateLimiter.appleProductionLimits, defaultLimit: Int = 50,
        sandboxShare: Double = 0.1, pacedShare: Double? = nil, recordsGrants: Bool = false
    ) {
        self.productionLimits = productionLimits
        self.defaultLimit = max(1, defaultLimit)
        self.sandboxShare = sandboxShare
        self.pacedShare = pacedShare.map { min(1, max(0.01, $0)) }
        self.recordsGrants = recordsGrants
    }

    /// Requests per second allowed for `endpoint` in `environment`.
    public func limit(for endpoint: String, in environment: AppStoreEnvironment) -> Int {
        let production = max(1, productionLimits[endpoint] ?? defaultLimit)
        guard environment != .production else { return production }
        return max(1, Int((Double(production) * sandboxShare).rounded(.down)))
    }

    /// Requests per second this limiter starts for `endpoint`: its limit, or the paced share of it.
    public func pace(for endpoint: String, in environment: AppStoreEnvironment) -> Double {
        Double(limit(for: endpoint, in: environment)) * (pacedShare ?? 1)
    }

    static func key(_ endpoint: String, _ environment: AppStoreEnvironment) -> String { "\(environment.rawValue)/\(endpoint)" }

    /// Takes the next start time for one request: `now` when a token is free, otherwise the moment
    /// the oldest of the last `limit` requests is one second old (or the end of a pause, if later).
    /// The caller waits until then; the token is spent either way.
    public func reserve(_ endpoint: String, in environment: AppStoreEnvironment, now: Date) -> Date {
        let limit = self.limit(for: endpoint, in: environment)
        let key = Self.key(endpoint, environment)
        let start = buckets.withLock { buckets -> Date in
            var bucket = buckets[key] ?? Bucket()
            var start = now
            if let paused = bucket.pausedUntil, paused > start { start = paused }
            let count = bucket.recent.count - bucket.head
            if count >= limit {
                let oldest = bucket.recent[bucket.recent.count - limit]
                start = max(start, oldest.addingTimeInterval(1))
            }
            // Start times never go backwards, so "the last `limit`" are the most recent.
            if let last = bucket.recent.last {
                let spacing = pacedShare.map { 1 / (Double(limit) * $0) } ?? 0
                start = max(start, last.addingTimeInterval(spacing))
            }
            bucket.recent.append(start)
            if bucket.recent.count - bucket.head > limit { bucket.head += 1 }
            if bucket.head > 256 {
                bucket.recent.removeFirst(bucket.head)
                bucket.head = 0
            }
            bucket.granted += 1
            buckets[key] = bucket
            return start
        }
        if recordsGrants { grants.withLock { $0[key, default: []].append(start) } }
        return start
    }

    /// After a 429: no request to this endpoint starts before `date`.
    public func pause(_ endpoint: String, in environment: AppStoreEnvironment, until date: Date) {
        let key = Self.key(endpoint, environment)
        buckets.withLock { buckets in
            var bucket = buckets[key] ?? Bucket()
            if bucket.pausedUntil.map({ $0 < date }) ?? true { bucket.pausedUntil = date }
            bucket.rateLimitedAnswers += 1
            buckets[key] = bucket
        }
    }

    /// 429 answers seen by the clients sharing this limiter, every endpoint and environment together.
    public var rateLimitedAnswers: Int {
        buckets.withLock { $0.values.reduce(0) { $0 + $1.rateLimitedAnswers } }
    }

    /// Start times granted to an endpoint so far (only with `recordsGrants`).
    public func grantedStarts(_ endpoint: String, in environment: AppStoreEnvironment) -> [Date] {
        grants.withLock { $0[Self.key(endpoint, environment)] ?? [] }
    }

    /// The largest number of granted starts within any one-second span (only with `recordsGrants`).
    public func busiestSecond(_ endpoint: String, in environment: AppStoreEnvironment) -> Int {
        let starts = grantedStarts(endpoint, in: environment).sorted()
        var best = 0
        var low = 0
        for high in starts.indices {
            while starts[high].timeIntervalSince(starts[low]) >= 1 { low += 1 }
            best = max(best, high - low + 1)
        }
        return best
    }
}
