import AppStoreServerAPI
import ArgumentParser
import DeskCore
import DeskStore
import Foundation
import NotificationReconcile

/// The report as a table (counts, then rows) or one JSON document.
struct ReconcileOutput {
    let report: ReconcileReport
    let store: String
    let session: Session
    let printer: Printer
    /// `iapdesk recover` for this window and account, URL to fill in.
    var recoverCommand = "iapdesk recover --since 7d --to URL"

    func print() {
        printer.emit(Document(report, environment: session.environment, store: store))
        guard !printer.json else { return }

        var lines = [
            "\(DisplayFormat.count(report.rows.count, "notification")) signed \(DisplayFormat.date(report.window.lowerBound)) to "
                + "\(DisplayFormat.date(report.window.upperBound)) in \(session.environmentLabel), compared with \(store)",
            "",
        ]
        var counts = TextTable("VERDICT", "COUNT", "GAP")
        for verdict in ReconcileVerdict.allCases {
            counts.add(verdict.title, String(report.counts[verdict] ?? 0), verdict.isGap ? "yes" : "-")
        }
        lines.append(counts.render())
        if !report.rows.isEmpty {
            // Month and day: the year is the window's, said above.
            var table = TextTable("SIGNED (UTC)", "TYPE", "UUID", "APPLE LAST", "ARRIVED", "VERDICT", "WHAT TO DO")
            table.keepWhole = [2, 5]
            for row in report.rows {
                table.add(
                    String(DisplayFormat.date(row.time).dropFirst(5).dropLast(4)), [row.notificationType ?? "?", row.subtype].compactMap { $0 }.joined(separator: "/"),
                    row.notificationUUID, Self.appleCell(row), Self.arrivalCell(row), row.verdict.title, Self.advice(row, short: true))
            }
            lines += ["", table.render()]
            // The whole advice once per verdict present, so the rows' column can stay short.
            let present = Set(report.rows.map(\.verdict)).filter { $0 != .received }.sorted()
            if !present.isEmpty {
                lines += ["", "What to do:"] + present.map { "  \($0.title): \($0.action)." }
                if present.contains(where: { $0 == .notDeliveredAndMissing || $0 == .deliveredButMissing }) {
                    lines.append("  To re-post every missing one to the app: \(recoverCommand)")
                }
            }
        }
        if !report.unreadable.isEmpty {
            lines += ["", "\(DisplayFormat.count(report.unreadable.count, "history entry", plural: "history entries")) could not be decoded to a notificationUUID: check with iapdesk notifications --json."]
        }
        let unverified = report.unverified
        if !unverified.isEmpty {
            lines += ["", "Did not verify (joined all the same, do not act on them): " + unverified.map(\.notificationUUID).joined(separator: ", ")]
        }
        printer.text(lines.joined(separator: "\n"))
    }

    static func appleCell(_ row: ReconcileRow) -> String {
        guard let apple = row.apple else { return "-" }
        var cell = apple.lastAttempt?.sendAttemptResult?.rawValue ?? "(no attempt yet)"
        if apple.attempts.count > 1 { cell += " x\(apple.attempts.count)" }
        if case .failed = apple.verification { cell += " NOT VERIFIED" }
        return cell
    }

    /// The first arrival's time (its day is the signed one's, or says so), how long after signing, and the count.
    static func arrivalCell(_ row: ReconcileRow) -> String {
        if row.stored == nil, let recovery = row.recovery {
            // When, where and by which command it reached the app instead.
            return "\(recovery.attempt.command) \(String(DisplayFormat.date(recovery.attempt.sentAt).dropFirst(5).dropLast(4))) \(recovery.attempt.result)"
        }
        guard let stored = row.stored else {
            // A re-post tried and not taken is worth seeing beside the gap it did not close.
            guard let tried = row.replays.last?.attempt else { return "-" }
            return "\(tried.command) tried \(String(DisplayFormat.date(tried.sentAt).dropFirst(5).dropLast(4))): \(tried.result)"
        }
        let full = DisplayFormat.date(stored.firstReceivedAt, seconds: true)
        let sameDay = DisplayFormat.day(stored.firstReceivedAt) == DisplayFormat.day(row.time)
        var cell = sameDay ? String(full.dropFirst(11).dropLast(4)) : String(full.dropLast(4))
        if let delay = row.arrivalAfterSigned { cell += " \(delay < 0 ? "-" : "+")\(duration(delay))" }
        if stored.deliveryCount > 1 { cell += " x\(stored.deliveryCount)" }
        return cell
    }

    /// The verdict's action, with what this row shows that it rests on; `short` for the table's column.
    static func advice(_ row: ReconcileRow, short: Bool = false) -> String {
        if short {
            switch row.verdict {
            case .received: return "nothing"
            case .failedAtAppleButArrived: return "answer sooner; " + advice(row).split(separator: ";").prefix(2).joined(separator: ";")
            case .deliveredButMissing: return "check the URL and the receiver; replay"
            case .notDeliveredAndMissing: return "recover or replay"
            case .forwardFailed: return "fix the app's endpoint; recover"
            case .unknownToApple:
                return "check: verdict \(row.stored?.verdict ?? "?")" + (row.stored?.environment.map { ", \($0)" } ?? "")
            case .duplicate: return "nothing if idempotent"
            case .testNotification: return "nothing (a test)"
            case .recovered: return "nothing (re-posted)"
            }
        }
        switch row.verdict {
        case .failedAtAppleButArrived:
            var facts: [String] = []
            if let stored = row.stored { facts.append("answered \(stored.answeredStatus) in \(Int(stored.elapsedMilliseconds.rounded())) ms") }
            if let failed = row.apple?.firstFailedAttempt?.sendAttemptResult?.rawValue, let after = row.arrivalAfterFailedAttempt {
                facts.append("arrived \(duration(after)) \(after < 0 ? "before" : "after") the \(failed) attempt")
            }
            return (facts + [row.verdict.action]).joined(separator: "; ")
        case .unknownToApple:
            let stored = row.stored
            let facts = ["verdict \(stored?.verdict ?? "?")", stored?.environment.map { "environment \($0)" }, stored?.bundleId.map { "bundle \($0)" }]
            return (facts.compactMap { $0 } + [row.verdict.action]).joined(separator: "; ")
        case .duplicate:
            return "delivered \(row.stored?.deliveryCount ?? 0) times; " + row.verdict.action
        case .notDeliveredAndMissing:
            return "iapdesk replay \(row.notificationUUID) --to URL, or " + row.verdict.action
        case .forwardFailed:
            return "forwarded: \(row.stored?.forwardResult ?? "failed"); " + row.verdict.action
        case .recovered:
            guard let recovery = row.recovery?.attempt else { return row.verdict.action }
            return "re-posted by \(recovery.command) to \(recovery.targetURL) at \(DisplayFormat.date(recovery.sentAt, seconds: true)): \(recovery.result); nothing to do"
        case .received, .deliveredButMissing, .testNotification:
            return row.verdict.action
        }
    }

    /// `reconcile --json`: the window, the counts per verdict, and every notification with both sides.
    struct Document: Encodable {
        var environment: AppStoreEnvironment
        var store: String
        var gaps: Bool
        var counts: [String: Int]
        var notifications: [Row]
        var unreadable: [Unreadable]
        var since: String?
        var sinceMs: Int64?
        var until: String?
        var untilMs: Int64?

        init(_ report: ReconcileReport, environment: AppStoreEnvironment, store: String) {
            (self.environment, self.store, gaps) = (environment, store, report.hasGaps)
            counts = Dictionary(uniqueKeysWithValues: report.counts.map { ($0.key.rawValue, $0.value) })
            notifications = report.rows.map(Row.init)
            unreadable = report.unreadable.map(Unreadable.init)
            (since, sinceMs) = DatePair.of(report.window.lowerBound)
            (until, untilMs) = DatePair.of(report.window.upperBound)
        }
    }

    /// A notification of Apple's history that could not be read: its attempts and why.
    struct Unreadable: Encodable {
        var sendAttempts: [AttemptRecord]
        var verification: VerificationRecord

        init(_ entry: NotificationHistoryEntry) {
            sendAttempts = entry.attempts.map(AttemptRecord.init)
            verification = VerificationRecord(entry.verification)
        }
    }

    /// One notification: the verdict and advice, Apple's side and the store's, and its re-posts.
    struct Row: Encodable {
        var notificationUUID: String
        var verdict: String
        var verdictTitle: String
        var gap: Bool
        var action: String
        var notificationType: String?
        var subtype: String?
        var arrivalAfterSignedSeconds: Double?
        var arrivalAfterFailedAttemptSeconds: Double?
        var apple: AppleSide?
        var stored: StoredSide?
        var replays: [ReplayRecord]?
        var signedDate: String?
        var signedDateMs: Int64?

        init(_ row: ReconcileRow) {
            (notificationUUID, verdict, verdictTitle, gap) = (row.notificationUUID, row.verdict.rawValue, row.verdict.title, row.verdict.isGap)
            (action, notificationType, subtype) = (ReconcileOutput.advice(row), row.notificationType, row.subtype)
            (arrivalAfterSignedSeconds, arrivalAfterFailedAttemptSeconds) = (row.arrivalAfterSigned, row.arrivalAfterFailedAttempt)
            apple = row.apple.map(AppleSide.init)
            stored = row.stored.map(StoredSide.init)
            replays = row.replays.isEmpty ? nil : row.replays.map(ReplayRecord.init)
            (signedDate, signedDateMs) = DatePair.of(row.apple?.signedDate ?? row.stored?.signedDate)
        }
    }

    /// What Apple's notification history says of it.
    struct AppleSide: Encodable {
        var sendAttempts: [AttemptRecord]
        var lastResult: SendAttemptResult?
        var delivered: Bool
        var verification: VerificationRecord
        var signedDate: String?
        var signedDateMs: Int64?

        init(_ apple: NotificationHistoryEntry) {
            (sendAttempts, lastResult) = (apple.attempts.map(AttemptRecord.init), apple.lastAttempt?.sendAttemptResult)
            (delivered, verification) = (apple.deliveredPerApple, VerificationRecord(apple.verification))
            (signedDate, signedDateMs) = DatePair.of(apple.signedDate)
        }
    }

    /// What the store received of it.
    struct StoredSide: Encodable {
        var deliveryCount: Int
        var answeredStatus: Int
        var verdict: String
        var verdictDetail: String?
        var environment: String?
        var bundleId: String?
        var forwardResult: String?
        var elapsedMs: Double
        var signedDate: String?
        var signedDateMs: Int64?
        var firstReceivedAt: String?
        var firstReceivedAtMs: Int64?
        var lastReceivedAt: String?
        var lastReceivedAtMs: Int64?

        init(_ stored: StoredNotification) {
            (deliveryCount, answeredStatus, verdict, verdictDetail) = (stored.deliveryCount, stored.answeredStatus, stored.verdict, stored.verdictDetail)
            (environment, bundleId, forwardResult, elapsedMs) = (stored.environment, stored.bundleId, stored.forwardResult, stored.elapsedMilliseconds)
            (signedDate, signedDateMs) = DatePair.of(stored.signedDate)
            (firstReceivedAt, firstReceivedAtMs) = DatePair.of(stored.firstReceivedAt)
            (lastReceivedAt, lastReceivedAtMs) = DatePair.of(stored.lastReceivedAt)
        }
    }

    /// 850 ms, 12 s, 3 min, 5.2 h, 2.1 d.
    static func duration(_ seconds: TimeInterval) -> String {
        let value = abs(seconds)
        switch value {
        case ..<1: return "\(Int((value * 1000).rounded())) ms"
        case ..<120: return "\(Int(value.rounded())) s"
        case ..<7_200: return "\(Int((value / 60).rounded())) min"
        case ..<172_800: return String(format: "%.1f h", value / 3_600)
        default: return String(format: "%.1f d", value / 86_400)
        }
    }
}
