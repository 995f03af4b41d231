import DeskCore
import DeskStore
import Foundation
import NotificationReconcile

/// What `iapdesk watch` prints: a line per cycle and per incident change (JSON lines with --json),
/// notes and failures on standard error.
struct WatchOutput: Sendable {
    let json: Bool

    func banner(
        environment: String, store: String, interval: String, window: String, quietAfter: String?, channels: [String], recoverTo: String?, once: Bool
    ) {
        guard !json else { return }
        let quiet = quietAfter.map { ", quiet after \($0)" } ?? ""
        let every = once ? "once" : "every \(interval)"
        StandardStreams.error("""
            Watching \(environment) \(every): the last \(window) of Apple's notification history against \(store)\(quiet).
            Incidents go to \(channels.isEmpty ? "this output only (add --exec or --alert-url)" : channels.joined(separator: " and "))\
            \(recoverTo.map { "; what is missing is re-posted to \($0)" } ?? "").\n
            """)
    }

    func cycle(_ outcome: WatchCycle.Outcome, environment: String) {
        for event in outcome.events {
            write(json ? JSONLine.render(["incident": event]) : "\(DisplayFormat.date(Date(), seconds: true))  \(event.line)")
        }
        for failure in outcome.unannounced { StandardStreams.error("not announced (tried again next cycle): \(failure)\n") }
        if json {
            write(JSONLine.render(["cycle": CycleRecord(outcome, environment: environment)]))
            return
        }
        var parts = [outcome.checked ? "checked \(DisplayFormat.count(outcome.notifications, "notification"))" : "could not check"]
        if outcome.recovered + outcome.recoverFailed > 0 {
            parts.append("re-posted \(outcome.recovered + outcome.recoverFailed), \(outcome.recovered) taken")
        }
        parts.append(Self.openWords(outcome.open))
        write("\(DisplayFormat.date(Date(), seconds: true))  \(parts.joined(separator: "; "))")
    }

    /// Straight to standard output, unbuffered: a watch under systemd or in a pipe says each line when it happens.
    private func write(_ line: String) {
        StandardStreams.output(Data((line + "\n").utf8))
    }

    func note(_ text: String) {
        guard !json else { return }
        StandardStreams.error(text + "\n")
    }

    func failure(_ text: String) { StandardStreams.error("watch: \(text)\n") }

    static func openWords(_ open: [StoredIncident]) -> String {
        open.isEmpty ? "no incident open" : "\(DisplayFormat.count(open.count, "incident")) open: " + open.map(\.key).joined(separator: ", ")
    }

    /// `watch --json`: one per cycle.
    struct CycleRecord: Encodable {
        var environment: String
        var checked: Bool
        var failure: String?
        var notifications: Int
        var recovered: Int
        var recoverFailed: Int
        var findings: [String]
        var open: [String]
        var time: String?
        var timeMs: Int64?

        init(_ outcome: WatchCycle.Outcome, environment: String) {
            self.environment = environment
            checked = outcome.checked
            failure = outcome.failure?.message
            notifications = outcome.notifications
            recovered = outcome.recovered
            recoverFailed = outcome.recoverFailed
            findings = outcome.findings.map(\.key)
            open = outcome.open.map(\.key)
            (time, timeMs) = DatePair.of(Date())
        }
    }
}
