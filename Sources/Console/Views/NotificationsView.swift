import AppStoreServerAPI
import DeskCore
import DeskStore
import Foundation
import NotificationReconcile
import TerminalUI

/// Apple's notification history with each send attempt, and a test notification followed live.
enum NotificationsView {
    static func render(_ state: ConsoleState, _ theme: Theme, _ area: Rect, _ buffer: inout Buffer) {
        let f = state.notificationFilters
        var filters = ["last \(describe(f.since))"]
        if let type = f.type { filters.append("type \(type.rawValue)\(f.subtype.map { "/\($0.rawValue)" } ?? "")") }
        if let txn = f.transactionId { filters.append("customer \(txn)") }
        if f.onlyFailures { filters.append("undelivered only") }
        let count = state.notificationsPane.value?.count
        buffer.write(truncating: "\(count.map { DisplayFormat.count($0, "notification") + " · " } ?? "")\(filters.joined(separator: " · "))  (f undelivered, d range, :type :txn :since)",
                     x: area.x, y: area.y, width: area.width, style: theme[.muted])
        let body = Panes.description(.notifications).table(state, area) ?? area
        if let test = state.testNotification {
            testPanel(test, state, theme, Rect(x: area.x, y: area.bottom - 4, width: area.width, height: 4), &buffer)
        }
        if PaneViews.placeholder(state.notificationsPane, empty: "No notifications match. Widen the range with d or :since 30d.", isEmpty: { $0.isEmpty }, state, theme, body, &buffer) { return }
        let rows = NotificationsPane.rows(state)
        let list = state.list(.notifications)
        let wide = body.width >= 100
        // Without any subtype the column gives its width to the others.
        let subtypes = state.models[NotificationsModel.self].hasSubtypes
        var columns: [Table.Column] = [.init("SIGNED", .length(wide ? 16 : 11)), .init("TYPE", .fill(3)),
                                       .init("FIRST", .length(wide ? 16 : 10)), .init("TRIES", .length(5), alignRight: true), .init("LAST", .length(wide ? 16 : 10))]
        if subtypes { columns.insert(.init("SUBTYPE", .fill(2)), at: 2) }
        // What arrived at the receiver, once the store has been asked.
        let arrivals = state.receivedHere.arrivals
        if arrivals != nil { columns.append(.init(wide ? "VERDICT" : "HERE", .length(wide ? 11 : 5))) }
        if wide { columns.append(.init("✓", .length(2))) }
        Table(columns: columns, rowCount: rows.count, selected: list.selected, offset: list.offset, style: theme[.text], headerStyle: theme[.header],
              selectedStyle: theme[.selection]) { index in
            let row = rows[index]
            let p = row.payload
            let date = wide ? DisplayFormat.date(p?.signedDate).replacingOccurrences(of: " UTC", with: "") : String(DisplayFormat.date(p?.signedDate).dropFirst(5).prefix(11))
            var cells = [date, p?.notificationType?.rawValue ?? "?", row.attempts.first?.sendAttemptResult?.rawValue ?? "(none)",
                         String(row.attempts.count), row.attempts.last?.sendAttemptResult?.rawValue ?? "-"]
            if subtypes { cells.insert(p?.subtype?.rawValue ?? "", at: 2) }
            // Apple says delivered but nothing arrived here: as much a gap as a failed delivery.
            var gap = false
            if arrivals != nil {
                let verdict = p?.notificationUUID.flatMap { state.receivedHere.verdicts[$0.lowercased()] }
                gap = verdict?.isGap ?? true
                cells.append(verdict.map { wide ? $0.shortTitle : $0.tinyTitle } ?? "-")
            }
            if wide { cells.append(row.decoded?.isFullyVerified == true ? "✓" : "✗") }
            return (cells, (arrivals == nil ? row.delivered : !gap) ? nil : theme[.warning])
        }.render(in: body, buffer: &buffer)
    }

    static func testPanel(_ test: TestNotificationState, _ state: ConsoleState, _ theme: Theme, _ area: Rect, _ buffer: inout Buffer) {
        Block(title: "Test notification\(test.token.map { " \($0)" } ?? "")", style: theme[.border], titleStyle: theme[.title]).render(in: area, buffer: &buffer)
        let inner = Block.inner(area).inset(horizontal: 1)
        var items: [(text: String, style: Style)] = []
        if let error = test.error {
            items.append(("✗ \(error.summary)", theme[.error]))
        } else if test.token == nil {
            items.append(("\(Spinner.frame(state.tick)) requesting…", theme[.info]))
        } else if test.attempts.isEmpty {
            items.append(("\(Spinner.frame(state.tick)) waiting for the delivery result…", theme[.info]))
        }
        for attempt in test.attempts {
            let result = attempt.sendAttemptResult
            items.append(("\(DisplayFormat.date(attempt.attemptDate, seconds: true))  \(result?.rawValue ?? "?")  \(result?.hint ?? "")",
                          result == .success ? theme[.success] : theme[.error]))
        }
        List(items: items).render(in: inner, buffer: &buffer)
    }

    static func describe(_ seconds: TimeInterval) -> String {
        seconds >= 86_400 ? DisplayFormat.count(Int((seconds / 86_400).rounded()), "day") : DisplayFormat.count(Int(seconds / 3600), "hour")
    }
}
