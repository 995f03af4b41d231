import AppStoreServerAPI
import Foundation
import TerminalUI

/// The customer's refunded purchases with date, reason, type and share.
enum RefundsView {
    static func render(_ state: ConsoleState, _ theme: Theme, _ area: Rect, _ buffer: inout Buffer) {
        guard let customer = state.customer else {
            Paragraph("Look up a customer first (pane 1).", style: theme[.muted]).render(in: area, buffer: &buffer)
            return
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
