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
        var body = PaneLayout.belowHeading(area)
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
        // The selected request in full under the table, for what its columns cut.
        let (table, below) = areas(state, area)
        if let below, let selected = PaneRows.selected(rows, state, .refundRequests) {
            // What the policy will do comes first, so that a narrow pane cuts the details, not it.
            let policy: [[Paragraph.Span]] = policyText(selected, state).map { [[Paragraph.Span($0, theme[.warning])]] } ?? []
            Paragraph(lines: policy + [[.init(selectedText(selected, state), theme[.info])]]).render(in: below, buffer: &buffer)
        }
        body = table
        let wide = body.width >= 110
        let leftWidth = 11
        var columns: [Table.Column] = [
            .init("TIME LEFT", .length(leftWidth)), .init("ASKED", .length(11)), .init("STATE", .fill(3)),
            .init("CUSTOMER", .length(16)), .init("PRODUCT", .fill(2), cut: .middle),
        ]
        if wide { columns += [.init("PRICE", .length(10), alignRight: true)] }
        columns += [.init("REASON", .fill(2))]
        let now = state.now
        Table(columns: columns, rowCount: rows.count, selected: list.selected, offset: list.offset, style: theme[.text], headerStyle: theme[.header],
              selectedStyle: theme[.selection]) { index in
            let request = rows[index]
            var cells = [timeLeft(request, now: now), day(request.requestedAt), stateText(request, now: now), request.originalTransactionId ?? request.transactionId ?? "-",
                         product(request, state)]
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

    /// Where the table goes inside the pane, and the lines under it that tell the selected request
    /// in full (none on a short pane).
    static func areas(_ state: ConsoleState, _ inner: Rect) -> (table: Rect, below: Rect?) {
        let body = PaneLayout.belowHeading(inner)
        guard body.height >= 8, let selected = PaneRows.selected(RefundRequestsPane.rows(state), state, .refundRequests) else { return (body, nil) }
        let policyLines = policyText(selected, state).map { Paragraph($0).layout(width: body.width).count } ?? 0
        let height = min(3 + policyLines, policyLines + Paragraph(selectedText(selected, state)).layout(width: body.width).count, body.height / 2)
        return (Rect(x: body.x, y: body.y, width: body.width, height: body.height - height - 1),
                Rect(x: body.x, y: body.bottom - height, width: body.width, height: height))
    }

    /// The product without the app's bundle ID in front ("coins.1000").
    static func product(_ request: RefundRequest, _ state: ConsoleState) -> String {
        guard let id = request.productId else { return "-" }
        return id.hasPrefix(state.bundleId + ".") ? String(id.dropFirst(state.bundleId.count + 1)) : id
    }

    /// Everything about the selected request in one sentence.
    static func selectedText(_ request: RefundRequest, _ consoleState: ConsoleState) -> String {
        let now = consoleState.now
        var parts = ["Transaction \(request.transactionId ?? "-")"]
        if let original = request.originalTransactionId, original != request.transactionId { parts.append("original \(original)") }
        if let token = request.transaction?.appAccountToken, !token.isEmpty { parts.append("account \(token)") }
        parts.append("\(request.productId ?? "-") \(DisplayFormat.money(request.price, request.currency))")
        parts.append("asked \(DisplayFormat.date(request.requestedAt)) (\(request.reason?.label ?? "no reason given"))")
        let phase = request.state(now: now)
        parts.append(phase == .pending ? "answer by \(DisplayFormat.date(request.deadline)), \(request.timeLeft(now: now))" : stateText(request, now: now))
        return parts.joined(separator: " · ")
    }

    /// What the console's consumption policy does for a pending request, and why.
    static func policyText(_ request: RefundRequest, _ state: ConsoleState) -> String? {
        guard request.state(now: state.now) == .pending, let policy = state.refundPolicy,
              let decision = state.refundRequests.queue?.policyDecisions[request.notificationUUID] else { return nil }
        let because = decision.because.isEmpty ? "" : " (" + decision.because.joined(separator: "; ") + ")"
        return "Policy \(policy.name): \(decision.summary)\(because)"
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
}
