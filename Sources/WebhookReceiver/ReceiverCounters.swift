import Metrics
import Synchronization

/// What the receiver refused, cut or dropped since it started: kept here for `listen`'s closing
/// summary and tests, and counted in the receiver's metrics too (served at `/metrics`).
public final class ReceiverCounters: Sendable {
    public enum Name: String, CaseIterable, Sendable {
        /// Connections closed at once: their peer already had `maxConnectionsPerPeer` open.
        case connectionsOverPeerLimit = "iapdesk_receiver_connections_over_peer_limit_total"
        /// Connections closed because a request's head had not arrived within the read timeout of its first byte.
        case headerTimeouts = "iapdesk_receiver_header_timeouts_total"
        /// Connections closed because a request's body was still arriving well after its deadline.
        case bodiesCutOff = "iapdesk_receiver_bodies_cut_off_total"
        /// Bodies still arriving when a stop began, cut off half-way through its drain timeout (answered 408).
        case readsCutByStop = "iapdesk_receiver_reads_cut_by_stop_total"
        /// Requests answered 429: their peer was over its request rate.
        case rateLimited = "iapdesk_receiver_rate_limited_total"
        /// Refused bodies written to the quarantine (a new row).
        case quarantineKept = "iapdesk_quarantine_kept_total"
        /// Refused bodies identical to one kept: its count went up instead.
        case quarantineRepeats = "iapdesk_quarantine_repeats_total"
        /// Bodies removed from the quarantine, oldest first, to stay within its limits.
        case quarantineDropped = "iapdesk_quarantine_dropped_total"
        /// Refused bodies not kept at all: the quarantine's writes were over their rate or backed up.
        case quarantineNotKept = "iapdesk_quarantine_not_kept_total"
        /// Refused bodies recognised by their hash as refused before: not verified again.
        case refusedRecognised = "iapdesk_receiver_refused_recognised_total"

        var help: String {
            switch self {
            case .connectionsOverPeerLimit: return "Connections closed at once because their peer had the most it may open."
            case .headerTimeouts: return "Connections closed because a request head had not arrived within the read timeout."
            case .bodiesCutOff: return "Connections closed because a body was still arriving after its deadline."
            case .readsCutByStop: return "Bodies still arriving when a stop began, cut off and answered 408."
            case .rateLimited: return "Requests answered 429 because their peer was over its request rate."
            case .quarantineKept: return "Refused bodies written to the quarantine."
            case .quarantineRepeats: return "Refused bodies identical to one kept (its count went up)."
            case .quarantineDropped: return "Quarantined bodies removed, oldest first, to stay within the limits."
            case .quarantineNotKept: return "Refused bodies not kept because the quarantine's writes were over their rate or backed up."
            case .refusedRecognised: return "Refused bodies recognised by hash and refused again without verifying."
            }
        }
    }

    private let values = Mutex([Name: Int]())
    private let exported: [Name: Counter]

    /// Counted here only.
    public convenience init() {
        self.init(factory: NOOPMetricsHandler.instance)
    }

    init(factory: any MetricsFactory) {
        exported = Dictionary(uniqueKeysWithValues: Name.allCases.map { ($0, Counter(label: $0.rawValue, factory: factory)) })
    }

    public subscript(name: Name) -> Int {
        values.withLock { $0[name, default: 0] }
    }

    func add(_ name: Name, _ amount: Int = 1) {
        guard amount != 0 else { return }
        values.withLock { $0[name, default: 0] += amount }
        exported[name]?.increment(by: amount)
    }
}
