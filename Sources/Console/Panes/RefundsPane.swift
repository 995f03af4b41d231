import AppStoreServerAPI
import DeskCore
import TerminalUI

extension Pane {
    public static let refunds = Pane("refunds")
}

/// The customer's refunded purchases (loaded by the Customer pane).
enum RefundsPane {
    static let description = PaneDescription(
        pane: .refunds, title: "Refunds", shortTitle: "Rfnd", rowNoun: "refunds",
        rowCount: { rows($0).count },
        selectedID: { PaneRows.selected(rows($0), $0, .refunds)?.payload?.transactionId },
        rowIDs: { rows($0).map { $0.payload?.transactionId } },
        detail: { PaneRows.selected(rows($0), $0, .refunds).map(DetailContent.transactionTree) },
        table: { _, inner in inner },
        render: RefundsView.render,
        refresh: CustomerPane.description.refresh
    )

    static func rows(_ state: ConsoleState) -> [VerifiedTransaction] {
        PaneRows.transactions(state.customer?.refunds.value ?? [], state, .refunds)
    }
}
