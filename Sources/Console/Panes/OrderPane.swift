import AppStoreServerAPI
import DeskCore
import TerminalUI

extension Pane {
    public static let orders = Pane("orders")
}

/// The purchases on the order that was looked up (loaded by the Customer pane).
enum OrderPane {
    static let description = PaneDescription(
        pane: .orders, title: "Order", shortTitle: "Ord", rowNoun: "transactions",
        rowCount: { rows($0).count },
        selectedID: { PaneRows.selected(rows($0), $0, .orders)?.payload?.transactionId },
        rowIDs: { rows($0).map { $0.payload?.transactionId } },
        detail: { PaneRows.selected(rows($0), $0, .orders).map(DetailContent.transactionTree) },
        table: { _, inner in PaneLayout.belowHeading(inner) },
        render: OrderView.render,
        refresh: CustomerPane.description.refresh
    )

    static func rows(_ state: ConsoleState) -> [VerifiedTransaction] {
        PaneRows.transactions(state.customer?.order.value?.transactions ?? [], state, .orders)
    }
}
