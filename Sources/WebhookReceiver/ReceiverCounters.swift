import Synchronization

/// What the receiver refused, cut or dropped since it started, served at `/metrics` in
/// Prometheus' text format and read by tests and by `listen`'s closing summary.
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

    public init() {}

    public subscript(name: Name) -> Int {
        values.withLock { $0[name, default: 0] }
    }

    func add(_ name: Name, _ amount: Int = 1) {
        guard amount != 0 else { return }
        values.withLock { $0[name, default: 0] += amount }
    }

    /// The counters and the given gauges, in Prometheus' text exposition format.
    func exposition(gauges: [(name: String, help: String, value: Int)]) -> String {
        var text = ""
        for name in Name.allCases {
            text += "# HELP \(name.rawValue) \(name.help)\n# TYPE \(name.rawValue) counter\n\(name.rawValue) \(self[name])\n"
        }
        for gauge in gauges {
            text += "# HELP \(gauge.name) \(gauge.help)\n# TYPE \(gauge.name) gauge\n\(gauge.name) \(gauge.value)\n"
        }
        return text
    }
}
