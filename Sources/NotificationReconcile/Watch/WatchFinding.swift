import AppStoreServerAPI
import DeskStore
import Foundation

/// One thing `iapdesk watch` found wrong in a cycle, for one environment: what it is, how many
/// notifications it concerns, and what to do. The same finding in the next cycle has the same key,
/// so it stays one incident for as long as it lasts.
public struct WatchFinding: Sendable, Equatable {
    public enum Kind: String, CaseIterable, Sendable, Codable {
        /// Apple could not deliver them, and they are not here (the endpoint was down or slow).
        case appleFailedSends = "apple-failed-sends"
        /// Apple says it delivered them, but they are not here (another URL, another receiver, a lost store).
        case missingHere = "missing-here"
        /// They arrived here, but the forward to the app failed: the app never saw them.
        case forwardFailed = "forward-failed"
        /// Stored, signed in the window, but not in Apple's history (another app or environment, or forged).
        case unknownToApple = "unknown-to-apple"
        /// Apple's history holds entries whose payload cannot be read: they cannot be joined.
        case unreadableHistory = "unreadable-history"
        /// The receiver refused bodies (bad signature, wrong app, unreadable): kept in the quarantine.
        case refusedBodies = "refused-bodies"
        /// Nothing arrived for longer than --quiet-after.
        case quiet
        /// The watch itself could not look: Apple's history or the store could not be read.
        case cannotCheck = "cannot-check"

        public var severity: Severity {
            switch self {
            case .appleFailedSends, .missingHere, .forwardFailed: return .critical
            case .cannotCheck, .unreadableHistory: return .error
            case .unknownToApple, .refusedBodies, .quiet: return .warning
            }
        }

        /// What to do, in one line, with the commands as they can be pasted: `since` the window
        /// ("24h"), `flags` the account and store flags (" --demo", " --store PATH").
        public func action(since: String = "T", flags: String = "") -> String {
            let recover = "iapdesk recover --since \(since) --to URL\(flags)"
            switch self {
            case .appleFailedSends:
                return "check the app's endpoint (Apple retries for 3 days), then \(recover) re-posts them (iapdesk reconcile --since \(since)\(flags) lists them)"
            case .missingHere:
                return "check the URL in App Store Connect and whether the receiver was down, then \(recover)"
            case .forwardFailed: return "fix the app's endpoint, then \(recover) re-posts the stored bodies"
            case .unknownToApple:
                return "check their verdict, environment and bundle ID with iapdesk received --since \(since) --json\(flags): another app or environment, iapdesk trigger, or forged"
            case .unreadableHistory: return "iapdesk reconcile --since \(since)\(flags) shows the entries; check the profile's root certificates"
            case .refusedBodies: return "iapdesk received --quarantined --since \(since)\(flags) shows each body and why it was refused"
            case .quiet: return "check the receiver is up and the URL in App Store Connect points at it; iapdesk test-notification\(flags) proves the path"
            case .cannotCheck: return "see the reason; the watch tries again every interval"
            }
        }
    }

    /// PagerDuty's severities; Slack messages say them in words.
    public enum Severity: String, Sendable, Codable {
        case critical, error, warning
    }

    public var kind: Kind
    /// "Production", "Sandbox", ...
    public var environment: String
    public var count: Int
    /// The notifications it concerns, oldest first, at most `maxListed`.
    public var notificationUUIDs: [String]
    public var summary: String
    /// What to do, with the commands to paste.
    public var action: String

    public static let maxListed = 50

    public init(kind: Kind, environment: String, count: Int, notificationUUIDs: [String] = [], summary: String, action: String? = nil) {
        self.kind = kind
        self.environment = environment
        self.count = count
        self.notificationUUIDs = Array(notificationUUIDs.prefix(Self.maxListed))
        self.summary = summary
        self.action = action ?? kind.action()
    }

    /// Stable across cycles and restarts: one incident per kind and environment.
    public var key: String { "\(environment.lowercased())/\(kind.rawValue)" }
}

/// What one watch cycle looked at, and the findings in it. Pure: the caller reads Apple and the store.
public enum WatchFindings {
    /// How long a notification Apple has not tried to send yet is given before it counts as failed.
    public static let firstAttemptGrace: TimeInterval = 600

    /// - Parameters:
    ///   - report: the join of Apple's history with the store, after any re-posts of the cycle.
    ///   - refused: bodies the receiver refused within the window.
    ///   - lastArrival: the newest arrival in the store (a notification or a refused body), if any.
    ///   - quietAfter: how long without an arrival is an incident; nil to never say so.
    public static func from(
        report: ReconcileReport, refused: [QuarantinedDelivery], lastArrival: Date?, quietAfter: TimeInterval?, environment: String, now: Date,
        since: String = "T", flags: String = ""
    ) -> [WatchFinding] {
        var findings: [WatchFinding] = []
        let rows = report.rows
        func add(_ kind: WatchFinding.Kind, _ positions: [Int], _ words: (String) -> String) {
            guard !positions.isEmpty else { return }
            let counted = count(positions.count, "notification")
            findings.append(WatchFinding(
                kind: kind, environment: environment, count: positions.count,
                notificationUUIDs: positions.map { rows[$0].notificationUUID },
                summary: words(counted) + signedNote(positions.map { rows[$0].time }.min(), first: positions.count > 1)))
        }
        // Positions, not copies of the rows: a window of many thousands is held once (watch's memory budget).
        var byVerdict: [ReconcileVerdict: [Int]] = [:]
        for (position, row) in rows.enumerated() { byVerdict[row.verdict, default: []].append(position) }
        // Apple sends at once; one it has not tried yet is only worth an incident once it is not new.
        let failed = (byVerdict[.notDeliveredAndMissing] ?? []).filter { position in
            let row = rows[position]
            return !(row.apple?.attempts.isEmpty ?? false) || now.timeIntervalSince(row.time) > firstAttemptGrace
        }
        add(.appleFailedSends, failed) { "Apple could not deliver \($0), and \(isAre($0)) not here" }
        add(.missingHere, byVerdict[.deliveredButMissing] ?? []) { "Apple delivered \($0) that never arrived here" }
        add(.forwardFailed, byVerdict[.forwardFailed] ?? []) { "\($0) arrived here but the forward to the app failed" }
        add(.unknownToApple, byVerdict[.unknownToApple] ?? []) { "\($0) stored here \($0.hasPrefix("1 ") ? "is" : "are") not in Apple's history" }
        if !report.unreadable.isEmpty {
            findings.append(WatchFinding(
                kind: .unreadableHistory, environment: environment, count: report.unreadable.count,
                summary: "\(count(report.unreadable.count, "entry", plural: "entries")) of Apple's history cannot be read"))
        }
        if !refused.isEmpty {
            let bodies = refused.reduce(0) { $0 + $1.count }
            var reasons: [String: Int] = [:]
            for body in refused { reasons[body.refused.reason, default: 0] += body.count }
            let named = reasons.sorted { ($0.value, $1.key) > ($1.value, $0.key) }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")
            findings.append(WatchFinding(
                kind: .refusedBodies, environment: environment, count: bodies, notificationUUIDs: refused.compactMap(\.refused.notificationUUID),
                summary: "the receiver refused \(count(bodies, "body", plural: "bodies")) (\(named))"
                    + receivedNote(refused.map(\.refused.receivedAt).min(), first: refused.count > 1)))
        }
        if let quietAfter, lastArrival.map({ now.timeIntervalSince($0) > quietAfter }) ?? true {
            let last = lastArrival.map { "the last one at \(stamp($0))" } ?? "none in the store"
            findings.append(WatchFinding(
                kind: .quiet, environment: environment, count: 0,
                summary: "nothing arrived for more than \(minutes(quietAfter)) (\(last))"))
        }
        for index in findings.indices { findings[index].action = findings[index].kind.action(since: since, flags: flags) }
        return findings
    }

    /// The finding of a cycle that could not look; the others stay as the last cycle left them.
    public static func cannotCheck(_ reason: String, environment: String) -> WatchFinding {
        WatchFinding(kind: .cannotCheck, environment: environment, count: 0, summary: "the watch cannot check: \(reason)")
    }

    static func count(_ n: Int, _ noun: String, plural: String? = nil) -> String {
        "\(n) \(n == 1 ? noun : plural ?? noun + "s")"
    }

    static func isAre(_ counted: String) -> String { counted.hasPrefix("1 ") ? "it is" : "they are" }

    static func receivedNote(_ date: Date?, first: Bool) -> String { date.map { ", \(first ? "the first " : "")received \(stamp($0))" } ?? "" }

    static func signedNote(_ date: Date?, first: Bool) -> String { date.map { ", \(first ? "the first " : "")signed \(stamp($0))" } ?? "" }

    static func minutes(_ interval: TimeInterval) -> String {
        interval >= 3600 && interval.truncatingRemainder(dividingBy: 3600) == 0 ? "\(Int(interval / 3600)) h" : "\(Int((interval / 60).rounded())) min"
    }

    static func stamp(_ date: Date) -> String {
        InternetTime.string(from: date)
    }
}
