import Foundation
import HTTPServing
import Metrics
import NotificationReconcile
import Synchronization

/// What `watch --metrics-address` serves: its cycles and incidents through swift-metrics on a
/// Prometheus registry of its own, and /healthz saying whether its last look is recent.
final class WatchMetrics: Sendable {
    enum Name {
        static let cycles = "iapdesk_watch_cycles_total"
        static let cycleSeconds = "iapdesk_watch_cycle_seconds"
        static let lastChecked = "iapdesk_watch_last_checked_timestamp_seconds"
        static let open = "iapdesk_watch_incidents_open"
        static let findings = "iapdesk_watch_finding_notifications"
        static let checked = "iapdesk_watch_history_notifications"
        static let reposts = "iapdesk_watch_reposts_total"
        static let announcementFailures = "iapdesk_watch_announcement_failures_total"
    }

    static let help = [
        Name.cycles: "Watch cycles by outcome: checked, or failed (Apple's history or the store could not be read).",
        Name.cycleSeconds: "Seconds one watch cycle took, from reading Apple's history to the last announcement.",
        Name.lastChecked: "When the last cycle that could check ended (UNIX seconds).",
        Name.open: "Incidents open now, by kind (1 or 0).",
        Name.findings: "Notifications each open finding concerns, by kind (refused bodies for refused-bodies).",
        Name.checked: "Notifications in Apple's history for the window at the last cycle.",
        Name.reposts: "Re-posts by --recover-to, by outcome: taken (2xx) or not.",
        Name.announcementFailures: "Incident announcements that failed (tried again next cycle).",
    ]

    static let buckets: [Duration] = [.milliseconds(100), .milliseconds(250), .milliseconds(500), .seconds(1), .seconds(2), .seconds(5), .seconds(10), .seconds(30), .seconds(60), .seconds(120), .seconds(300)]

    let exposition = PrometheusExposition(help: WatchMetrics.help, durationBuckets: WatchMetrics.buckets)
    private let checkedCycles: Counter
    private let failedCycles: Counter
    private let cycleTime: Metrics.Timer
    private let lastChecked: Gauge
    private let open: [WatchFinding.Kind: Gauge]
    private let findings: [WatchFinding.Kind: Gauge]
    private let checked: Gauge
    private let taken: Counter
    private let notTaken: Counter
    private let announcementFailures: Counter
    /// The last cycle that could check, and whether the last cycle could: /healthz reads them.
    private let state = Mutex<(lastChecked: ContinuousClock.Instant?, failure: String?, open: Int)>((nil, nil, 0))
    /// Past this without a cycle that checked, /healthz answers 503.
    let staleAfter: Duration

    init(environment: String, staleAfter: Duration) {
        let factory = exposition.factory
        let env = ("environment", environment)
        self.staleAfter = staleAfter
        checkedCycles = Counter(label: Name.cycles, dimensions: [env, ("outcome", "checked")], factory: factory)
        failedCycles = Counter(label: Name.cycles, dimensions: [env, ("outcome", "failed")], factory: factory)
        cycleTime = Metrics.Timer(label: Name.cycleSeconds, dimensions: [env], factory: factory)
        lastChecked = Gauge(label: Name.lastChecked, dimensions: [env], factory: factory)
        open = Dictionary(uniqueKeysWithValues: WatchFinding.Kind.allCases.map {
            ($0, Gauge(label: Name.open, dimensions: [env, ("kind", $0.rawValue)], factory: factory))
        })
        findings = Dictionary(uniqueKeysWithValues: WatchFinding.Kind.allCases.map {
            ($0, Gauge(label: Name.findings, dimensions: [env, ("kind", $0.rawValue)], factory: factory))
        })
        checked = Gauge(label: Name.checked, dimensions: [env], factory: factory)
        taken = Counter(label: Name.reposts, dimensions: [env, ("outcome", "taken")], factory: factory)
        notTaken = Counter(label: Name.reposts, dimensions: [env, ("outcome", "not-taken")], factory: factory)
        announcementFailures = Counter(label: Name.announcementFailures, dimensions: [env], factory: factory)
        for gauge in Array(open.values) + Array(findings.values) { gauge.record(0) }
    }

    func record(_ outcome: WatchCycle.Outcome, took duration: Duration) {
        cycleTime.recordNanoseconds(duration.components.seconds * 1_000_000_000 + duration.components.attoseconds / 1_000_000_000)
        (outcome.checked ? checkedCycles : failedCycles).increment()
        taken.increment(by: outcome.recovered)
        notTaken.increment(by: outcome.recoverFailed)
        announcementFailures.increment(by: outcome.unannounced.count)
        let openKinds = Set(outcome.open.compactMap { WatchFinding.Kind(rawValue: $0.kind) })
        for (kind, gauge) in open { gauge.record(openKinds.contains(kind) ? 1 : 0) }
        if outcome.checked {
            let counts = Dictionary(outcome.findings.map { ($0.kind, $0.count) }, uniquingKeysWith: +)
            for (kind, gauge) in findings { gauge.record(counts[kind] ?? 0) }
            checked.record(outcome.notifications)
            lastChecked.record(Date().timeIntervalSince1970)
        }
        state.withLock { state in
            if outcome.checked { state.lastChecked = .now }
            state.failure = outcome.failure?.message
            state.open = outcome.open.count
        }
    }

    func answer(_ path: String) -> PrivateListener.Answer {
        switch path {
        case "/metrics": return PrivateListener.Answer(status: 200, contentType: "text/plain; version=0.0.4; charset=utf-8", body: exposition.text())
        case "/healthz": return health()
        default: return PrivateListener.Answer(status: 404, contentType: "text/plain", body: Array("not found: /metrics or /healthz\n".utf8))
        }
    }

    /// 200 while the last look that could check is recent, else 503 with why.
    private func health() -> PrivateListener.Answer {
        let (last, failure, open) = state.withLock { ($0.lastChecked, $0.failure, $0.open) }
        let age = last.map { ContinuousClock.now - $0 }
        let healthy = age.map { $0 <= staleAfter } ?? false
        let document = Health(
            status: healthy ? "ok" : "stale", openIncidents: open, secondsSinceLastCheck: age?.components.seconds,
            reason: healthy ? nil : failure ?? (last == nil ? "no cycle has checked yet" : "no cycle checked within \(staleAfter.components.seconds) s"))
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let body = ((try? encoder.encode(document)) ?? Data("{}".utf8)) + Data([0x0A])
        return PrivateListener.Answer(status: healthy ? 200 : 503, contentType: "application/json", body: Array(body))
    }

    /// /healthz's answer.
    struct Health: Encodable {
        var status: String
        var openIncidents: Int
        var secondsSinceLastCheck: Int64?
        var reason: String?
    }
}
