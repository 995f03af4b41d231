import AppStoreServerAPI
import Foundation

/// The rows each list pane shows, after its `/` filter: one definition for the view and the reducer.
public enum PaneRows {
    public static func transactions(_ state: ConsoleState, _ pane: Pane) -> [VerifiedTransaction] {
        let rows: [VerifiedTransaction]
        switch pane {
        case .orders: rows = state.customer?.order.value?.transactions ?? []
        case .refunds: rows = state.customer?.refunds.value ?? []
        case .transactions: rows = state.transactionsPane.value ?? []
        default: rows = []
        }
        return filtered(rows, state.filters[pane]) { searchText($0) }
    }

    public static func subscriptions(_ state: ConsoleState) -> [SubscriptionRow] {
        filtered(state.customer?.subscriptions.value ?? [], state.filters[.subscriptions]) {
            [$0.originalTransactionId, $0.transaction?.payload?.productId ?? "", $0.status?.label ?? "", $0.groupIdentifier].joined(separator: " ")
        }
    }

    public static func notifications(_ state: ConsoleState) -> [NotificationRow] {
        filtered(state.notificationsPane.value ?? [], state.filters[.notifications]) { row in
            ([row.payload?.notificationType?.rawValue ?? "", row.payload?.subtype?.rawValue ?? "", row.payload?.notificationUUID ?? ""]
                + row.attempts.compactMap { $0.sendAttemptResult?.rawValue }).joined(separator: " ")
        }
    }

    public static func count(_ state: ConsoleState, _ pane: Pane) -> Int {
        switch pane {
        case .orders, .refunds, .transactions: return transactions(state, pane).count
        case .subscriptions: return subscriptions(state).count
        case .notifications: return notifications(state).count
        default: return 0
        }
    }

    /// Rows of `pane` before its `/` filter.
    public static func total(_ state: ConsoleState, _ pane: Pane) -> Int {
        var unfiltered = state
        unfiltered.filters[pane] = nil
        return count(unfiltered, pane)
    }

    /// The ID `y` copies from the selected row.
    public static func selectedID(_ state: ConsoleState, _ pane: Pane) -> String? {
        let index = state.list(pane).selected
        switch pane {
        case .orders, .refunds, .transactions:
            let rows = transactions(state, pane)
            return rows.indices.contains(index) ? rows[index].payload?.transactionId : nil
        case .subscriptions:
            let rows = subscriptions(state)
            return rows.indices.contains(index) ? rows[index].originalTransactionId : nil
        case .notifications:
            let rows = notifications(state)
            return rows.indices.contains(index) ? rows[index].payload?.notificationUUID : nil
        case .customer: return state.customer?.anchorId ?? state.customer?.query
        case .inspector: return nil
        }
    }

    static func searchText(_ row: VerifiedTransaction) -> String {
        guard let t = row.payload else { return "" }
        return [t.transactionId, t.originalTransactionId, t.productId, t.type?.label, t.revocationType?.label, t.inAppOwnershipType?.label]
            .compactMap { $0 }.joined(separator: " ")
    }

    static func filtered<T>(_ rows: [T], _ filter: String?, _ text: (T) -> String) -> [T] {
        guard let filter, !filter.isEmpty else { return rows }
        let needle = filter.lowercased()
        return rows.filter { text($0).lowercased().contains(needle) }
    }
}
