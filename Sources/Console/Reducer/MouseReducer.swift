import DeskCore
import TerminalUI

/// Clicks: on the tab bar they switch panes; on a list row they select it (a second click opens it).
enum MouseReducer {
    static func click(_ state: inout ConsoleState, x: Int, y: Int) -> [ConsoleEffect] {
        guard state.overlay == nil else { return [] }
        if y == PaneLayout.tabRow {
            guard let index = Tabs.index(at: x, titles: Panes.tabTitles(width: state.screenWidth), width: state.screenWidth),
                  Panes.all.indices.contains(index) else { return [] }
            state.pane = Panes.all[index].pane
            return ConsoleReducer.paneOpened(&state)
        }
        var list = state.list(state.pane)
        guard !list.detailOpen, let table = PaneLayout.table(state), y > table.y else { return [] }
        let top = table.y
        let count = PaneRows.count(state, state.pane)
        let visible = Table.visibleRows(height: table.height)
        let first = Table.scrolledOffset(selected: list.selected, offset: list.offset, visible: visible, count: count)
        let index = first + (y - top - 1)
        guard index >= 0, index < count, y - top - 1 < visible else { return [] }
        if index == list.selected {
            list.detailOpen = true
            list.detailSelected = 0
        } else {
            list.selected = index
        }
        state.lists[state.pane] = list
        state.focus = .content
        return []
    }
}
