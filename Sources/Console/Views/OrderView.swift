import AppStoreServerAPI
import DeskCore
import Foundation
import TerminalUI

/// The purchases on the order that was looked up.
enum OrderView {
    static func render(_ state: ConsoleState, _ theme: Theme, _ area: Rect, _ buffer: inout Buffer) {
        guard let customer = state.customer else {
            Paragraph("Look up an order ID in the Customer pane (1), or type :order MK5TTTVWJH.", style: theme[.muted]).render(in: area, buffer: &buffer)
            return
        }
        guard case .idle = customer.order else {
            if PaneViews.placeholder(customer.order, empty: "", isEmpty: { _ in false }, state, theme, area, &buffer) { return }
            let order = customer.order.value!
            let statusText = order.status == .valid ? "valid" : "not valid: no purchases under this order ID"
            buffer.write("Order \(order.orderId): \(statusText), \(order.transactions.count) transaction\(order.transactions.count == 1 ? "" : "s")",
                         x: area.x, y: area.y, style: order.status == .valid ? theme[.accent] : theme[.warning])
            let rows = OrderPane.rows(state)
            PaneViews.transactionTable(rows, list: state.list(.orders), theme, PaneLayout.belowHeading(area), &buffer)
            return
        }
        Paragraph("This customer was looked up by transaction ID, not by order. Type an order ID (such as MK5TTTVWJH) to see an order.", style: theme[.muted])
            .render(in: area, buffer: &buffer)
    }
}
