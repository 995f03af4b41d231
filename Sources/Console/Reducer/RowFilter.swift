import DeskCore
import TerminalUI

/// The `/` filter of a list pane: it narrows the rows as it is typed; Enter keeps it, Esc (in the
/// field or, later, in the list) clears it.
enum RowFilter {
    static func handleKey(_ state: inout ConsoleState, _ key: Key) -> [ConsoleEffect] {
        switch key {
        case .enter:
            state.focus = .content
        case .escape:
            clear(&state)
            state.focus = .content
        default:
            _ = state.filterInput.handle(key)
            state.filters[state.pane] = state.filterInput.text.isEmpty ? nil : state.filterInput.text
            var list = state.list(state.pane)
            list.selected = 0
            list.offset = 0
            state.lists[state.pane] = list
        }
        return []
    }

    /// Shows all the rows again (Esc in the field or in the list). The selection is on a row of
    /// the narrowed list: it stays on that row, not on its index.
    static func clear(_ state: inout ConsoleState) {
        let selected = selectedRow(state)
        state.filters[state.pane] = nil
        state.filterInput = TextInputState(maxLength: 128)
        if let selected { select(&state, selected) }
    }

    /// The selected row's ID and the line of the table it is on.
    static func selectedRow(_ state: ConsoleState) -> (id: String, line: Int)? {
        let list = state.list(state.pane)
        let ids = state.current.rowIDs(state)
        guard ids.indices.contains(list.selected), let id = ids[list.selected] else { return nil }
        return (id, list.selected - Table.scrolledOffset(selected: list.selected, offset: list.offset, visible: visibleRows(state), count: ids.count))
    }

    /// Selects the row with `id` again, on the same line of the table when the rows above allow it.
    static func select(_ state: inout ConsoleState, _ row: (id: String, line: Int)) {
        let ids = state.current.rowIDs(state)
        guard let index = ids.firstIndex(of: row.id) else { return }
        var list = state.list(state.pane)
        list.selected = index
        list.offset = Table.scrolledOffset(selected: index, offset: index - row.line, visible: visibleRows(state), count: ids.count)
        state.lists[state.pane] = list
    }

    static func visibleRows(_ state: ConsoleState) -> Int {
        Table.visibleRows(height: PaneLayout.table(state)?.height ?? 0)
    }
}
