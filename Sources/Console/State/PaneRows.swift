import AppStoreServerAPI
import DeskCore
import Foundation
import TerminalUI

/// Row counting and filtering shared by the list panes; each pane says what its rows are.
public enum PaneRows {
    /// Rows of `pane` after its `/` filter.
    public static func count(_ state: ConsoleState, _ pane: Pane) -> Int {
        Panes.description(pane).rowCount(state)
    }

    /// Rows of `pane` before its `/` filter.
    public static func total(_ state: ConsoleState, _ pane: Pane) -> Int {
        var unfiltered = state
        unfiltered.filters[pane] = nil
        return count(unfiltered, pane)
    }

    /// The ID `y` copies from the selected row.
    public static func selectedID(_ state: ConsoleState, _ pane: Pane) -> String? {
        Panes.description(pane).selectedID(state)
    }

    /// The selected row of `rows`, if there is one.
    static func selected<T>(_ rows: [T], _ state: ConsoleState, _ pane: Pane) -> T? {
        let index = state.list(pane).selected
        return rows.indices.contains(index) ? rows[index] : nil
    }

    /// Transactions after `pane`'s `/` filter.
    static func transactions(_ rows: [VerifiedTransaction], _ state: ConsoleState, _ pane: Pane) -> [VerifiedTransaction] {
        filtered(rows, state.filters[pane]) { searchText($0) }
    }

    static func searchText(_ row: VerifiedTransaction) -> String {
        guard let t = row.payload else { return "" }
        // What the rows show is what can be searched: IDs, product, type, dates, price, revocation.
        return [t.transactionId, t.originalTransactionId, t.productId, t.type?.label, t.revocationType?.label, t.inAppOwnershipType?.label,
                t.revocationReason?.label, DisplayFormat.date(t.purchaseDate), t.revocationDate.map { DisplayFormat.date($0) },
                DisplayFormat.money(t.price, t.currency)]
            .compactMap { $0 }.joined(separator: " ")
    }

    static func filtered<T>(_ rows: [T], _ filter: String?, _ text: (T) -> String) -> [T] {
        guard let filter, !filter.isEmpty else { return rows }
        let needle = filter.lowercased()
        return rows.filter { text($0).lowercased().contains(needle) }
    }
}
