import AppStoreServerAPI
import DeskCore
import Foundation
import TerminalUI

/// The customer's refunded purchases with date, reason, type and share.
enum RefundsView {
    /// Who decides, where the customer asks, and what the developer can do.
    static let howRefundsWork = [
        "How refunds work: Apple decides, not the developer. The customer asks at reportaproblem.apple.com (or Apple Support).",
        "Apple may ask the app about the purchase (CONSUMPTION_REQUEST) and weighs an answer sent within 12 hours (iapdesk consumption).",
        "What you can do: answer that request, extend the renewal (e on Subscriptions), or offer a promotional or win-back offer.",
    ]

    static func render(_ state: ConsoleState, _ theme: Theme, _ area: Rect, _ buffer: inout Buffer) {
        guard let customer = state.customer else {
            Paragraph("Look up a customer first (pane 1).", style: theme[.muted]).render(in: area, buffer: &buffer)
            return
        }
        // How refunds work, under the list: what an agent answers to "I want my money back".
        let explanation = Paragraph(lines: RefundsView.howRefundsWork.map { [.init($0, theme[.muted])] })
        let explained = explanation.layout(width: area.width).count + 1
        var area = area
        if area.height >= explained + 6 {
            explanation.render(in: Rect(x: area.x, y: area.bottom - explained + 1, width: area.width, height: explained - 1), buffer: &buffer)
            area = Rect(x: area.x, y: area.y, width: area.width, height: area.height - explained)
        }
        if PaneViews.placeholder(customer.refunds, empty: "No refunds for this customer.", isEmpty: { $0.isEmpty }, state, theme, area, &buffer) { return }
        let rows = RefundsPane.rows(state)
        let list = state.list(.refunds)
        Table(columns: [.init("REFUNDED", .length(17)), .init("PRODUCT", .fill(3), cut: .middle), .init("PRICE", .length(11), alignRight: true),
                        .init("REASON", .fill(2)), .init("TYPE", .length(16)), .init("SHARE", .length(6), alignRight: true), .init("✓", .length(2))],
              rowCount: rows.count, selected: list.selected, offset: list.offset, style: theme[.text], headerStyle: theme[.header],
              selectedStyle: theme[.selection]) { index in
            let t = rows[index].payload
            let reason: String
            switch t?.revocationReason {
            case .refundedDueToIssue?: reason = "Issue in the app"
            case .refundedForOtherReason?: reason = "Other (e.g. accidental)"
            default: reason = t?.revocationReason?.label ?? "-"
            }
            return ([DisplayFormat.date(t?.revocationDate).replacingOccurrences(of: " UTC", with: ""), t?.productId ?? "-", DisplayFormat.money(t?.price, t?.currency),
                     reason, t?.revocationType?.label ?? "-", t?.revocationPercentage.map { DisplayFormat.percentage($0) } ?? "",
                     PaneViews.verificationCell(rows[index].status)], nil)
        }.render(in: area, buffer: &buffer)
    }
}
