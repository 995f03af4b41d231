import AppStoreServerAPI
import ArgumentParser
import DeskCore
import DeskStore
import Foundation
import Synchronization
import WebhookReceiver

/// One line per arrival, written whole so concurrent arrivals do not mix; counts for the summary.
final class ArrivalPrinter: Sendable {
    let json: Bool
    let quiet: Bool
    private let counts = Mutex([Arrival.Outcome: Int]())

    init(json: Bool, quiet: Bool) {
        self.json = json
        self.quiet = quiet
    }

    func print(_ arrival: Arrival) {
        counts.withLock { $0[arrival.outcome, default: 0] += 1 }
        guard !quiet else { return }
        if json {
            write(JSONLine.render(ArrivalLine(arrival)))
        } else {
            let kind = [arrival.notificationType ?? "-", arrival.subtype].compactMap { $0 }.joined(separator: "/")
            var line = "\(DisplayFormat.date(arrival.receivedAt, seconds: true))  \(arrival.status)  \(kind)  \(arrival.notificationUUID ?? "-")"
            line += "  \(arrival.verdict)  \(arrival.outcome.rawValue)"
            if let count = arrival.deliveryCount, count > 1 { line += " (delivery \(count))" }
            if let forward = arrival.forwardResult { line += "  forward: \(forward)" }
            line += String(format: "  %.1f ms", arrival.milliseconds)
            if arrival.outcome != .stored && arrival.outcome != .duplicate, let detail = arrival.detail { line += "  \(detail)" }
            write(line)
        }
    }

    /// `metrics` only when they are served on an address of their own.
    func banner(url: URL, store: String, environment: String, bundleId: String, metrics: URL? = nil) {
        if json {
            write(JSONLine.render(ListeningLine(
                listening: url.absoluteString, store: store, environment: environment, bundleId: bundleId, metrics: metrics?.absoluteString)))
        } else {
            write("Listening on \(url.absoluteString) for \(bundleId) in \(environment). Storing in \(store). Ctrl-C stops.")
            if let metrics { note("Metrics on \(metrics.absoluteString) (and /healthz there).") }
        }
    }

    /// The store's outage, said once when writes begin to fail and once when one succeeds again.
    func storeHealth(_ event: StoreHealthEvent, store: String) {
        switch event {
        case .down(let cause):
            let why = cause.hasSuffix(".") ? String(cause.dropLast()) : cause
            note("Store down: \(store): \(why). Answering 503 at once until it can be written (Apple sends again); /healthz answers 503 meanwhile.")
        case .up(let lasted, let refused):
            note("Store back: \(store) was written again after \(WriteDeadline.words(lasted)) down; \(refused) request\(refused == 1 ? " was" : "s were") answered 503 at once meanwhile.")
        }
    }

    /// Messages about the receiver itself go to standard error, so standard output stays one line per arrival.
    func note(_ text: String) {
        StandardStreams.error(text + "\n")
    }

    var summary: String {
        let counts = self.counts.withLock { $0 }
        return "Stopped. Stored \(counts[.stored, default: 0]), duplicates \(counts[.duplicate, default: 0]), "
            + "quarantined \(counts[.quarantined, default: 0]), not stored \(counts[.storeFailed, default: 0])."
    }

    private func write(_ line: String) {
        StandardStreams.output(Data((line + "\n").utf8))
    }

    /// What the limits refused, cut or dropped, when they did anything.
    static func abuseSummary(_ counters: ReceiverCounters) -> String? {
        let parts: [(String, Int)] = [
            ("connections over the per-peer limit", counters[.connectionsOverPeerLimit]), ("heads too slow", counters[.headerTimeouts]),
            ("bodies cut off", counters[.bodiesCutOff]), ("slow bodies cut by the stop", counters[.readsCutByStop]),
            ("answered 429", counters[.rateLimited]),
            ("refused bodies recognised", counters[.refusedRecognised]), ("quarantine repeats", counters[.quarantineRepeats]),
            ("quarantined bodies dropped", counters[.quarantineDropped]), ("refused bodies not kept", counters[.quarantineNotKept]),
        ].filter { $0.1 > 0 }
        guard !parts.isEmpty else { return nil }
        return "Limits: " + parts.map { "\($0.0) \($0.1)" }.joined(separator: ", ") + "."
    }
}

/// `listen --json`: the first line, where the receiver listens and stores.
struct ListeningLine: Encodable {
    var listening: String
    var store: String
    var environment: String
    var bundleId: String
    /// Only when metrics are served on an address of their own.
    var metrics: String?
}

/// `listen --json`: one line per arrival.
struct ArrivalLine: Encodable {
    var receivedAt: String
    var outcome: String
    var status: Int
    var ms: Double
    var notificationUUID: String?
    var notificationType: String?
    var subtype: String?
    var verdict: String
    var detail: String?
    var deliveryCount: Int?
    var transactionId: String?
    var forwardResult: String?
    var remoteAddress: String?

    init(_ arrival: Arrival) {
        (receivedAt, outcome, status) = (DisplayFormat.iso(arrival.receivedAt), arrival.outcome.rawValue, arrival.status)
        ms = (arrival.milliseconds * 10).rounded() / 10
        (notificationUUID, notificationType, subtype) = (arrival.notificationUUID, arrival.notificationType, arrival.subtype)
        (verdict, detail, deliveryCount) = (arrival.verdict, arrival.detail, arrival.deliveryCount)
        (transactionId, forwardResult, remoteAddress) = (arrival.transactionId, arrival.forwardResult, arrival.remoteAddress)
    }
}
