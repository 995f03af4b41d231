import AppStoreServerAPI
import DeskCore
import Foundation
import TerminalUI

/// The customer's transaction history, with the filters it was asked with.
enum TransactionsView {
    static func render(_ state: ConsoleState, _ theme: Theme, _ area: Rect, _ buffer: inout Buffer) {
        guard state.customer != nil else {
            Paragraph("Look up a customer first (pane 1). Filters: :kind consumable, :product ID, :sort asc, :revoked yes, :clear.", style: theme[.muted])
                .render(in: area, buffer: &buffer)
            return
        }
        let q = state.historyFilters.query
        var filters: [String] = ["sort \(q.sort == .ascending ? "oldest first" : "newest first")"]
        if let kind = q.productTypes.first { filters.append("kind \(kind.label)") }
        if let product = q.productIds.first { filters.append("product \(product)") }
        if let revoked = q.revoked { filters.append(revoked ? "revoked only" : "not revoked") }
        if let from = q.startDate { filters.append("from \(DisplayFormat.day(from))") }
        if let to = q.endDate { filters.append("before \(DisplayFormat.day(to))") }
        if let ownership = q.inAppOwnershipType { filters.append(ownership.label.lowercased()) }
        if let group = q.subscriptionGroupIdentifiers.first { filters.append("group \(group)") }
        let count = state.transactionsPane.value?.count
        buffer.write(truncating: "\(count.map { DisplayFormat.count($0, "transaction") + " · " } ?? "")\(filters.joined(separator: " · "))  (:kind :product :from :to :ownership :group :sort :revoked :clear)",
                     x: area.x, y: area.y, width: area.width, style: theme[.muted])
        let body = PaneLayout.belowHeading(area)
        if PaneViews.placeholder(state.transactionsPane, empty: "No transactions match.", isEmpty: { $0.isEmpty }, state, theme, body, &buffer) { return }
        PaneViews.transactionTable(TransactionsPane.rows(state), list: state.list(.transactions), theme, body, &buffer)
    }
}
