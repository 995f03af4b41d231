import NIOCore
import Synchronization

/// What every connection of one receiver shares: how many each peer has open, and when the request
/// each connection is reading began (its first byte), which the body's read deadline counts from.
final class ConnectionLimits: Sendable {
    let readTimeout: Duration
    /// A body still arriving this long after its deadline has its connection closed: by then the
    /// request was answered 408 (`ReadDeadlines`), unless the machine is far too busy to.
    let cutOffGrace: Duration
    let maxPerPeer: Int
    let unlimited: [PeerRange]
    let counters: ReceiverCounters

    private struct State {
        var perPeer: [String: Int] = [:]
        var open = 0
        var reading = 0
        var starts: [ObjectIdentifier: ContinuousClock.Instant] = [:]
    }
    private let state = Mutex(State())

    init(readTimeout: Duration, cutOffGrace: Duration = .seconds(5), maxPerPeer: Int, unlimited: [PeerRange], counters: ReceiverCounters) {
        self.readTimeout = readTimeout
        self.cutOffGrace = cutOffGrace
        self.maxPerPeer = maxPerPeer
        self.unlimited = unlimited
        self.counters = counters
    }

    func isUnlimited(_ ip: String) -> Bool { unlimited.contains { $0.contains(ip) } }

    /// Counts a new connection from `ip`, unless its peer has the most it may open.
    func open(from ip: String?) -> Bool {
        let limited = maxPerPeer > 0 && ip.map { !isUnlimited($0) } ?? false
        return state.withLock { state in
            if limited, let ip {
                guard state.perPeer[ip, default: 0] < maxPerPeer else { return false }
                state.perPeer[ip, default: 0] += 1
            }
            state.open += 1
            return true
        }
    }

    func close(from ip: String?, connection: ObjectIdentifier) {
        let limited = maxPerPeer > 0 && ip.map { !isUnlimited($0) } ?? false
        state.withLock { state in
            state.open -= 1
            state.starts.removeValue(forKey: connection)
            if limited, let ip, let count = state.perPeer[ip] {
                if count <= 1 { state.perPeer.removeValue(forKey: ip) } else { state.perPeer[ip] = count - 1 }
            }
        }
    }

    func requestBegan(on connection: ObjectIdentifier, at instant: ContinuousClock.Instant) {
        state.withLock { $0.starts[connection] = instant }
    }

    /// When the request now read on `connection` sent its first byte.
    func requestStart(on connection: ObjectIdentifier) -> ContinuousClock.Instant? {
        state.withLock { $0.starts[connection] }
    }

    func readingBegan() { state.withLock { $0.reading += 1 } }
    func readingEnded() { state.withLock { $0.reading -= 1 } }

    var openConnections: Int { state.withLock { $0.open } }
    /// Requests whose body is being read (they hold no processing slot meanwhile).
    var reading: Int { state.withLock { $0.reading } }
}
