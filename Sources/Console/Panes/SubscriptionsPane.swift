import AppStoreServerAPI
import DeskCore
import TerminalUI

extension Pane {
    public static let subscriptions = Pane("subscriptions")
}

extension ActionContext {
    public static let subscriptions = ActionContext("Subscriptions")
}

extension CommandID {
    public static let subscriptionsExtend = CommandID("subscriptions.extend")
}

/// The customer's subscriptions, one row a chain, with renewal info; `e` extends the selected one.
enum SubscriptionsPane {
    static let description = PaneDescription(
        pane: .subscriptions, title: "Subscriptions", shortTitle: "Subs", rowNoun: "subscriptions",
        commands: [
            KeyCommand(.subscriptionsExtend, "Extend renewal", keys: [.character("e")], context: .subscriptions, dangerous: true, inFooter: true,
                           unavailable: { state in
                               guard let row = PaneRows.selected(rows(state), state, .subscriptions) else { return "Select a subscription first." }
                               // One at a time: a second extension sent before the first is answered would add up unseen.
                               if state.extensionsInFlight.values.contains(where: { $0.target.originalTransactionId == row.originalTransactionId }) {
                                   return "An extension of this subscription is waiting for Apple's answer; its result shows here first."
                               }
                               return nil
                           },
                           perform: { state, _ in ExtendReducer.open(&state) }),
        ],
        rowCount: { rows($0).count },
        selectedID: { PaneRows.selected(rows($0), $0, .subscriptions)?.originalTransactionId },
        rowIDs: { rows($0).map { $0.originalTransactionId } },
        detail: { PaneRows.selected(rows($0), $0, .subscriptions).map(DetailContent.subscriptionTree) },
        table: { _, inner in Layout.split(inner, .vertical, [.fill(1), .length(min(9, max(0, inner.height - 4)))])[0] },
        render: SubscriptionsView.render,
        refresh: CustomerPane.description.refresh
    )

    static func rows(_ state: ConsoleState) -> [SubscriptionRow] {
        PaneRows.filtered(state.customer?.subscriptions.value ?? [], state.filters[.subscriptions]) {
            [$0.originalTransactionId, $0.transaction?.payload?.productId ?? "", $0.status?.label ?? "", $0.groupIdentifier].joined(separator: " ")
        }
    }
}
