import AppStoreServerAPI
import HTTPServing
import Metrics
import Synchronization

/// What the receiver counts and times, through swift-metrics onto this receiver's own Prometheus
/// registry (docs/webhooks.md, Metrics). Labels take values from fixed lists only (what is not on
/// them is "other"), so a sender cannot grow the number of series; a labelled series is made the
/// first time it is counted, then found again under a short lock that is never held across an await.
final class ReceiverMetrics: Sendable {
    enum Name {
        static let received = "iapdesk_receiver_notifications_received_total"
        static let stored = "iapdesk_receiver_notifications_stored_total"
        static let duplicate = "iapdesk_receiver_notifications_duplicate_total"
        static let refused = "iapdesk_receiver_notifications_refused_total"
        static let storeErrors = "iapdesk_receiver_store_errors_total"
        static let forwards = "iapdesk_receiver_forwards_total"
        static let verification = "iapdesk_receiver_verification_seconds"
        static let storeCommit = "iapdesk_receiver_store_commit_seconds"
        static let storeUp = "iapdesk_receiver_store_up"
        static let openConnections = "iapdesk_receiver_open_connections"
        static let readingBodies = "iapdesk_receiver_reading_bodies"
        static let inFlight = "iapdesk_receiver_requests_in_flight"
        static let waiting = "iapdesk_receiver_requests_waiting"
    }

    static let help: [String: String] = {
        var help = [
            Name.received: "Bodies POSTed to the notification path and read (then stored, duplicate, refused or answered 503).",
            Name.stored: "Notifications verified and stored for the first time.",
            Name.duplicate: "Notifications verified whose notificationUUID was stored before (one more delivery counted).",
            Name.refused: "Bodies refused (400 or 408) by reason.",
            Name.storeErrors: "Writes to the store that failed or missed their deadline (answered 503), by what was written.",
            Name.forwards: "Forwards of stored notifications (--forward-to) by outcome.",
            Name.verification: "Seconds to parse and verify a notification that verified (nested payloads included).",
            Name.storeCommit: "Seconds for the store to write a verified notification durably (stored or duplicate).",
            Name.storeUp: "1 while the store can be written, 0 while it is known down.",
            Name.openConnections: "Connections open now.",
            Name.readingBodies: "Requests whose body is being read (holding no slot).",
            Name.inFlight: "Requests holding a processing slot.",
            Name.waiting: "Requests waiting for a processing slot.",
        ]
        for name in ReceiverCounters.Name.allCases { help[name.rawValue] = name.help }
        return help
    }()

    /// Verification takes about a millisecond; a durable write from a millisecond to the store deadline.
    static let durationBuckets: [Duration] = [
        .microseconds(250), .microseconds(500), .milliseconds(1), .milliseconds(2), .milliseconds(5), .milliseconds(10),
        .milliseconds(25), .milliseconds(50), .milliseconds(100), .milliseconds(250), .milliseconds(500), .seconds(1),
        .milliseconds(2500), .seconds(5), .seconds(10),
    ]

    static let environments: [String] = AppStoreEnvironment.catalog.map(\.raw)
    static let types: [String] = NotificationType.catalog.map(\.raw)
    /// Every reason the receiver gives (DeliveryHandler); one it does not know is counted as "other".
    static let reasons = [
        "unreadable-body", "read-timeout", "too-large", "not-json", "not-json-object", "no-signed-payload", "no-notification-uuid",
        "not-checked", "malformed-jws", "unsupported-algorithm", "bad-certificate-chain", "untrusted-chain", "invalid-signature",
        "undecodable-payload", "wrong-bundle-id", "wrong-app-apple-id", "wrong-environment",
    ]
    private static let environmentIndex = index(environments)
    private static let typeIndex = index(types)
    private static let reasonIndex = index(reasons)

    private static func index(_ values: [String]) -> [String: Int] {
        Dictionary(uniqueKeysWithValues: values.enumerated().map { ($1, $0) })
    }

    enum ForwardOutcome: String, CaseIterable {
        /// Answered 2xx.
        case delivered
        /// Answered with another status (or not HTTP).
        case refused
        case timedOut = "timed-out"
        /// Not delivered: no connection, no host, TLS failed.
        case failed
    }

    enum StoreWrite: String, CaseIterable {
        case notification, quarantine
    }

    /// Nil when metrics are off: every call is then a no-op and nothing is served.
    let exposition: PrometheusExposition?
    let factory: any MetricsFactory
    private let received: Counter
    private let stored: Labelled
    private let duplicate: Labelled
    private let refused: Labelled
    private let forwards: [ForwardOutcome: Counter]
    private let storeErrors: [StoreWrite: Counter]
    private let verification: Metrics.Timer
    private let storeCommit: Metrics.Timer
    let storeUp: Gauge
    let openConnections: Gauge
    let readingBodies: Gauge
    let inFlight: Gauge
    let waiting: Gauge

    init(enabled: Bool) {
        let exposition = enabled ? PrometheusExposition(help: Self.help, durationBuckets: Self.durationBuckets) : nil
        let factory: any MetricsFactory = exposition?.factory ?? NOOPMetricsHandler.instance
        self.exposition = exposition
        self.factory = factory
        received = Counter(label: Name.received, factory: factory)
        stored = Labelled(Name.stored, factory: factory)
        duplicate = Labelled(Name.duplicate, factory: factory)
        refused = Labelled(Name.refused, factory: factory)
        forwards = Dictionary(uniqueKeysWithValues: ForwardOutcome.allCases.map {
            ($0, Counter(label: Name.forwards, dimensions: [("outcome", $0.rawValue)], factory: factory))
        })
        storeErrors = Dictionary(uniqueKeysWithValues: StoreWrite.allCases.map {
            ($0, Counter(label: Name.storeErrors, dimensions: [("write", $0.rawValue)], factory: factory))
        })
        verification = Metrics.Timer(label: Name.verification, factory: factory)
        storeCommit = Metrics.Timer(label: Name.storeCommit, factory: factory)
        storeUp = Gauge(label: Name.storeUp, factory: factory)
        openConnections = Gauge(label: Name.openConnections, factory: factory)
        readingBodies = Gauge(label: Name.readingBodies, factory: factory)
        inFlight = Gauge(label: Name.inFlight, factory: factory)
        waiting = Gauge(label: Name.waiting, factory: factory)
    }

    func receivedBody() { received.increment() }

    func recorded(duplicate isDuplicate: Bool, environment: String?, type: String?) {
        let environment = environment.flatMap { Self.environmentIndex[$0] } ?? Self.environments.count
        let type = type.flatMap { Self.typeIndex[$0] } ?? Self.types.count
        let key = environment * (Self.types.count + 1) + type
        (isDuplicate ? duplicate : stored).counter(key) {
            [("environment", environment < Self.environments.count ? Self.environments[environment] : "other"),
             ("type", type < Self.types.count ? Self.types[type] : "other")]
        }.increment()
    }

    func refused(reason: String) {
        let index = Self.reasonIndex[reason] ?? Self.reasons.count
        refused.counter(index) { [("reason", index < Self.reasons.count ? Self.reasons[index] : "other")] }.increment()
    }

    func storeFailed(_ write: StoreWrite) { storeErrors[write]?.increment() }

    func forwarded(_ result: Forwarder.Result) {
        let outcome: ForwardOutcome
        if let status = result.status {
            outcome = (200...299).contains(status) ? .delivered : .refused
        } else if result.summary == "not an HTTP answer" {
            outcome = .refused
        } else {
            outcome = result.mirrored == 504 ? .timedOut : .failed
        }
        forwards[outcome]?.increment()
    }

    func verified(in duration: Duration) { verification.recordNanoseconds(Self.nanoseconds(duration)) }
    func committed(in duration: Duration) { storeCommit.recordNanoseconds(Self.nanoseconds(duration)) }

    static func nanoseconds(_ duration: Duration) -> Int64 {
        duration.components.seconds * 1_000_000_000 + duration.components.attoseconds / 1_000_000_000
    }

    /// One metric's series by label set, each made the first time it is counted.
    final class Labelled: Sendable {
        let label: String
        let factory: any MetricsFactory
        private let series = Mutex([Int: Counter]())

        init(_ label: String, factory: any MetricsFactory) {
            self.label = label
            self.factory = factory
        }

        func counter(_ key: Int, dimensions: () -> [(String, String)]) -> Counter {
            series.withLock { series in
                if let counter = series[key] { return counter }
                let counter = Counter(label: label, dimensions: dimensions(), factory: factory)
                series[key] = counter
                return counter
            }
        }
    }
}
