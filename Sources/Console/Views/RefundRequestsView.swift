import AppStoreServerAPI
import DeskCore
import Foundation
import TerminalUI

/// The refund-request queue: a heading with the counts and what could not be read, then one row
/// per request with its time left coloured by urgency.
enum RefundRequestsView {
    static func render(_ state: ConsoleState, _ theme: Theme, _ area: Rect, _ buffer: inout Buffer) {
        let model = state.refundRequests
        buffer.write(truncating: heading(state), x: area.x, y: area.y, width: area.width, style: theme[.muted])
        let body = PaneLayout.belowHeading(area)
        guard body.height > 0 else { return }
        guard let queue = model.queue else {
            if let error = model.error {
                Paragraph(lines: [[.init("✗ " + error.summary, theme[.error])]]).render(in: body, buffer: &buffer)
            } else {
                buffer.write(truncating: "\(Spinner.frame(state.tick)) Reading Apple's refund requests and the store…", x: body.x, y: body.y,
                             width: body.width, style: theme[.info])
            }
            return
        }
        let rows = RefundRequestsPane.rows(state)
        if rows.isEmpty {
            let empty = model.onlyPending
                ? "No refund request is waiting for an answer. f shows them all."
                : "No refund requests in the last 30 days. Apple sends one (CONSUMPTION_REQUEST) when a customer asks it for a refund."
            Paragraph(lines: [[.init(empty, theme[.muted])]] + queue.notes.map { [.init("⚠ " + $0, theme[.warning])] })
                .render(in: body, buffer: &buffer)
            return
        }
        let list = state.list(.refundRequests)
        let wide = body.width >= 110
        let leftWidth = 11
        var columns: [Table.Column] = [
            .init("TIME LEFT", .length(leftWidth)), .init("ASKED", .length(11)), .init("STATE", .fill(3)), .init("CUSTOMER", .fill(2), cut: .middle),
            .init("PRODUCT", .fill(2), cut: .middle),
        ]
        if wide { columns += [.init("PRICE", .length(10), alignRight: true)] }
        columns += [.init("REASON", .fill(2))]
        let now = state.now
        Table(columns: columns, rowCount: rows.count, selected: list.selected, offset: list.offset, style: theme[.text], headerStyle: theme[.header],
              selectedStyle: theme[.selection]) { index in
            let request = rows[index]
            var cells = [timeLeft(request, now: now), day(request.requestedAt), stateText(request, now: now), customer(request, wide: wide),
                         request.productId ?? "-"]
            if wide { cells.append(DisplayFormat.money(request.price, request.currency)) }
            cells.append(request.reason?.label ?? "-")
            return (cells, request.state(now: now) == .pending ? nil : theme[.muted])
        }.render(in: body, buffer: &buffer)
        // The time left is drawn again in its urgency's colour (the table styles whole rows).
        let visible = Table.visibleRows(height: body.height)
        let top = Table.scrolledOffset(selected: list.selected, offset: list.offset, visible: visible, count: rows.count)
        for line in 0..<visible where top + line < rows.count {
            let request = rows[top + line]
            guard let role = urgency(request, now: now) else { continue }
            var style = theme[.text].patched(with: theme[role])
            if top + line == list.selected { style = style.patched(with: theme[.selection]).patched(with: Style(fg: theme[role].fg)) }
            buffer.write(timeLeft(request, now: now), x: body.x, y: body.y + 1 + line, style: style, maxWidth: leftWidth)
        }
    }

    static func heading(_ state: ConsoleState) -> String {
        let model = state.refundRequests
        guard let queue = model.queue else { return "Refund requests of \(state.environment.label): Apple's CONSUMPTION_REQUESTs, whoever the customer." }
        let now = state.now
        let pending = queue.requests.filter { $0.state(now: now) == .pending }.count
        var parts = ["\(DisplayFormat.count(queue.requests.count, "request")) in 30 days", "\(pending) waiting for an answer"]
        if model.onlyPending { parts.append("pending only (f: all)") }
        parts.append(model.request != nil && !model.background ? "reading…" : "read \(DisplayFormat.relative(queue.readAt, now: now))")
        if !queue.notes.isEmpty { parts.append("⚠ " + queue.notes.joined(separator: "; ")) }
        return parts.joined(separator: " · ")
    }

    /// Under 1 hour left is urgent, under 3 a warning; a closed request has no urgency.
    static func urgency(_ request: RefundRequest, now: Date) -> ThemeRole? {
        guard request.state(now: now) == .pending else { return nil }
        let left = request.deadline.timeIntervalSince(now)
        if left < 3600 { return .error }
        if left < 3 * 3600 { return .warning }
        return nil
    }

    /// "11 h 20 min", "40 min" while open; "closed" after, "-" once answered or decided.
    static func timeLeft(_ request: RefundRequest, now: Date) -> String {
        switch request.state(now: now) {
        case .pending:
            let left = max(0, Int(request.deadline.timeIntervalSince(now)))
            let hours = left / 3600, minutes = (left % 3600) / 60
            return hours > 0 ? "\(hours) h \(minutes) min" : "\(max(1, minutes)) min"
        case .expired: return "closed"
        default: return "-"
        }
    }

    static func day(_ date: Date) -> String {
        String(DisplayFormat.date(date).replacingOccurrences(of: " UTC", with: "").dropFirst(5))
    }

    /// The request's state in words: who answered, when and what; Apple's decision; an answer
    /// refused or of unknown outcome said beside "pending".
    static func stateText(_ request: RefundRequest, now: Date) -> String {
        let answer = request.answer.map { answer in
            "\(answer.agent ?? "someone") \(DisplayFormat.relative(answer.time, now: now))\(answer.refundPreference.map { ": \($0)" } ?? "")"
        }
        switch request.state(now: now) {
        case .pending:
            guard let answer = request.answer else { return "pending" }
            return answer.resolved ? "pending · last answer \(answer.state)" : "pending · answer may have reached Apple"
        case .answered: return "answered by \(answer ?? "someone")"
        case .expired: return "expired unanswered"
        case .refunded, .declined:
            let decision = "\(request.state(now: now) == .refunded ? "refunded" : "declined") by Apple \(request.decision.map { DisplayFormat.relative($0.time, now: now) } ?? "")"
            return decision + (request.answer?.applied == true ? " · answered by \(answer ?? "someone")" : "")
        }
    }

    /// The original transaction ID; wide, the app's account token too.
    static func customer(_ request: RefundRequest, wide: Bool) -> String {
        let id = request.originalTransactionId ?? request.transactionId ?? "-"
        guard wide, let token = request.transaction?.appAccountToken, !token.isEmpty else { return id }
        return "\(id) · \(token)"
    }
}
