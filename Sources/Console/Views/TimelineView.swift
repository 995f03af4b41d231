import DeskCore
import Foundation
import TerminalUI

/// The customer's timeline: what they spent over its rows, then one row an event.
enum TimelineView {
    static func render(_ state: ConsoleState, _ theme: Theme, _ area: Rect, _ buffer: inout Buffer) {
        guard let customer = state.customer else {
            Paragraph("Look up a customer first (pane 1).", style: theme[.muted]).render(in: area, buffer: &buffer)
            return
        }
        if PaneViews.placeholder(customer.history, empty: "No purchases for this customer.", isEmpty: { _ in false }, state, theme, area, &buffer) { return }
        let model = state.timeline
        var heading = "Spent: \(Timeline.spentLine(customer))"
        if model.reading != nil { heading += "  · reading the ledger, notes and arrivals…" }
        if !model.problems.isEmpty { heading += "  · " + model.problems.joined(separator: "; ") }
        buffer.write(truncating: heading, x: area.x, y: area.y, width: area.width, style: theme[model.problems.isEmpty ? .accent : .warning])
        guard let table = TimelinePane.description.table(state, area) else { return }
        let rows = TimelinePane.rows(state)
        let list = state.list(.timeline)
        Table(columns: [.init("WHEN", .length(16)), .init("WHAT", .length(15)), .init("EVENT", .fill(3)), .init("FROM", .fill(1))],
              rowCount: rows.count, selected: list.selected, offset: list.offset, style: theme[.text], headerStyle: theme[.header],
              selectedStyle: theme[.selection]) { index in
            let event = rows[index]
            let text = event.detail.map { "\(event.summary) · \($0)" } ?? event.summary
            let role: ThemeRole? = switch event.kind {
            case .refund, .revoke, .billingFailure, .expired: .warning
            case .note, .extension, .consumptionAnswer, .write: .info
            default: nil
            }
            return ([DisplayFormat.date(event.time).replacingOccurrences(of: " UTC", with: ""), event.kind.rawValue, text, event.source.rawValue], role.map { theme[$0] })
        }.render(in: table, buffer: &buffer)
    }
}
