import AppStoreServerAPI
import DeskCore
import DeskStore
import Foundation
import NotificationReconcile
import TerminalUI

/// Notifications as they arrive at the receiver, newest first, with where they come from.
enum LiveView {
    static func render(_ state: ConsoleState, _ theme: Theme, _ area: Rect, _ buffer: inout Buffer) {
        let live = state.live
        guard let source = live.source else {
            Paragraph("This console reads no notification store.", style: theme[.muted]).render(in: area, buffer: &buffer)
            return
        }
        if let problem = live.problem, !live.rows.isEmpty {
            // The rows stay as last read; the heading says they may be stale and why, in place of the count.
            buffer.write(truncating: "✗ \(problem.summary) Rows as last read; reading again every few seconds.",
                         x: area.x, y: area.y, width: area.width, style: theme[.error])
        } else {
            buffer.write(truncating: heading(source, live, state), x: area.x, y: area.y, width: area.width, style: theme[.muted])
        }
        let body = PaneLayout.belowHeading(area)
        if let pending = live.pendingReplay, let url = source.forwardURL {
            buffer.write(truncating: "Replay \(pending.notificationUUID) to \(RedactedURL.text(url))? y to send it (signedDate stays the original), any other key to keep it.",
                         x: area.x, y: area.bottom - 1, width: area.width, style: theme[.warning])
        }
        let table = live.pendingReplay == nil ? body : Rect(x: body.x, y: body.y, width: body.width, height: max(0, body.height - 1))
        if let problem = live.problem, live.rows.isEmpty {
            Paragraph("\(problem.summary)\n\(problem.hint ?? "")", style: theme[.info]).render(in: table, buffer: &buffer)
            return
        }
        if !live.loaded {
            buffer.write("\(Spinner.frame(state.tick)) Reading \(source.storePath)…", x: table.x, y: table.y, style: theme[.info])
            return
        }
        if live.rows.isEmpty {
            let hint = source.receiverURL.map { "Waiting for notifications at \($0.absoluteString)." }
                ?? "Waiting: start iapdesk listen (same store), or the console with --listen 127.0.0.1:8080."
            Paragraph(hint, style: theme[.muted]).render(in: table, buffer: &buffer)
            return
        }
        let rows = LivePane.rows(state)
        let list = state.list(.live)
        let wide = table.width >= 100
        // A customer's ID is read out whole: its column is as wide as the longest one plus the scroll bar.
        // Wide, the arrival time leaves out the year (a live tail is recent) and the forward result
        // has what "HTTP 200" needs, so that the type and subtype get the rest.
        var columns: [Table.Column] = [.init("RECEIVED", .length(wide ? 14 : 11)), .init("TYPE", .fill(3)), .init("SUBTYPE", .fill(2)),
                                       .init("VERDICT", .length(wide ? 14 : 9)), .init("CUSTOMER", .length(18))]
        if wide { columns += [.init("DELIV", .length(5), alignRight: true), .init("ANSWER", .length(12)), .init("FORWARD", .length(10))] }
        Table(columns: columns, rowCount: rows.count, selected: list.selected, offset: list.offset, style: theme[.text], headerStyle: theme[.header],
              selectedStyle: theme[.selection]) { index in
            let row = rows[index]
            let received = wide
                ? String(DisplayFormat.date(row.lastReceivedAt, seconds: true).replacingOccurrences(of: " UTC", with: "").dropFirst(5))
                : short(row.lastReceivedAt, now: state.now)
            let elsewhere = elsewhere(row, state)
            // Verified, it gets reconcile's verdict (received, duplicate, forward failed, recovered); else its verification.
            let verdict = row.verdict == "verified" ? LivePane.verdict(row, state) : nil
            let said = elsewhere ?? verdict.map { wide ? $0.shortTitle : $0.tinyTitle } ?? row.verdict
            var cells = [received, row.notificationType ?? "?", row.subtype ?? "", said, row.originalTransactionId ?? row.transactionId ?? "-"]
            if wide {
                cells += [String(row.deliveryCount), "\(row.answeredStatus) \(LivePane.milliseconds(row.elapsedMilliseconds))", row.forwardResult ?? ""]
            }
            return (cells, verdict.map { !$0.isGap } == true && elsewhere == nil ? nil : theme[.warning])
        }.render(in: table, buffer: &buffer)
    }

    /// "other app" or "Sandbox" when a notification is not for this profile's app and environment
    /// (a store can hold several apps' notifications).
    static func elsewhere(_ row: StoredNotification, _ state: ConsoleState) -> String? {
        if let bundle = row.bundleId, state.bundleId != "-", bundle != state.bundleId { return "other app" }
        if let environment = row.environment, environment != state.environment.rawValue { return AppStoreEnvironment(environment).label }
        return nil
    }

    static func heading(_ source: LiveSource, _ live: LiveModel, _ state: ConsoleState) -> String {
        let shown = LivePane.rows(state).count
        var parts = [shown == live.rows.count ? DisplayFormat.count(live.rows.count, "arrival") : "\(shown) of \(DisplayFormat.count(live.rows.count, "arrival")) (/ filter)"]
        parts.append(source.receiverURL.map { "receiving at \($0.absoluteString)" } ?? "store \(source.storePath)")
        if let forward = source.forwardURL { parts.append("r replays to \(RedactedURL.text(forward))") }
        return parts.joined(separator: " · ") + "  (Enter payload, / filter)"
    }

    /// "14:03:07" today, "11-22 14:03" before, in UTC as the rest of the console's times.
    static func short(_ date: Date, now: Date) -> String {
        let text = DisplayFormat.date(date, seconds: true).replacingOccurrences(of: " UTC", with: "")
        return DisplayFormat.day(date) == DisplayFormat.day(now) ? String(text.suffix(8)) : String(text.dropFirst(5).prefix(11))
    }
}
