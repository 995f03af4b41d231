import Synchronization

/// A token bucket per peer address: `rate` requests a second, bursts of up to `burst`. Peers in an
/// unlimited range are never counted. Buckets full again are forgotten, so that a scan from many
/// addresses leaves at most `maxPeers` of them behind.
final class PeerRateLimiter: Sendable {
    let rate: Double
    let burst: Double
    let unlimited: [PeerRange]
    static let maxPeers = 65_536

    private struct Bucket {
        var tokens: Double
        var updated: ContinuousClock.Instant
    }
    private let buckets = Mutex([String: Bucket]())

    /// `rate` 0 admits everything.
    init(rate: Double, burst: Double, unlimited: [PeerRange]) {
        self.rate = rate
        self.burst = max(1, burst)
        self.unlimited = unlimited
    }

    /// Whether a request from `ip` may go on; when not, the seconds after which it may.
    func admit(_ ip: String?, now: ContinuousClock.Instant = .now) -> (Bool, retryAfter: Int) {
        guard rate > 0, let ip, !unlimited.contains(where: { $0.contains(ip) }) else { return (true, 0) }
        return buckets.withLock { buckets in
            var bucket = buckets[ip] ?? Bucket(tokens: burst, updated: now)
            let elapsed = now - bucket.updated
            bucket.tokens = min(burst, bucket.tokens + rate * (Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18))
            bucket.updated = now
            if buckets.count >= Self.maxPeers { forgetFull(&buckets, now: now) }
            guard bucket.tokens >= 1 else {
                buckets[ip] = bucket
                return (false, max(1, Int(((1 - bucket.tokens) / rate).rounded(.up))))
            }
            bucket.tokens -= 1
            buckets[ip] = bucket
            return (true, 0)
        }
    }

    private func forgetFull(_ buckets: inout [String: Bucket], now: ContinuousClock.Instant) {
        let refill = Duration.seconds(burst / rate)
        buckets = buckets.filter { now - $0.value.updated < refill }
        // Every one of them is still draining: forget them all rather than grow without bound.
        if buckets.count >= Self.maxPeers { buckets.removeAll() }
    }
}
