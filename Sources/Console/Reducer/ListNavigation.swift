import AppStoreServerAPI
import DeskCore
import Foundation
import TerminalUI

extension CommandID {
    public static let listDown = CommandID("list.down")
    public static let listUp = CommandID("list.up")
    public static let listPageDown = CommandID("list.pageDown")
    public static let listPageUp = CommandID("list.pageUp")
    public static let listTop = CommandID("list.top")
    public static let listBottom = CommandID("list.bottom")
    public static let listOpen = CommandID("list.open")
    public static let listFilter = CommandID("list.filter")
    public static let listCopy = CommandID("list.copy")
    public static let detailFold = CommandID("detail.fold")
}

/// Moving through lists and detail views, opening details, folding trees, copying IDs.
enum ListNavigation {
    /// Rows a mouse wheel notch moves: a fixed step, since a page on a tall window would skip
    /// rows the eye has not followed.
    static let wheelStep = 10

    static let commands: [KeyCommand] = [
        list(.listDown, "Down", [.down, .character("j")]),
        list(.listUp, "Up", [.up, .character("k")]),
        list(.listPageDown, "Page down", [.pageDown, .scrollDown]),
        list(.listPageUp, "Page up", [.pageUp, .scrollUp]),
        list(.listTop, "First row", [.character("g"), .home]),
        list(.listBottom, "Last row", [.character("G"), .end]),
        KeyCommand(.listOpen, "Details", keys: [.enter], context: .list, inFooter: true,
                       unavailable: { state in state.current.isList && PaneRows.count(state, state.pane) == 0 ? "No row to open." : nil }) { state, key in
            handle(&state, .listOpen, key: key)
        },
        KeyCommand(.listFilter, "Filter rows", keys: [.character("/")], context: .list, inFooter: true,
                       unavailable: { state in state.current.isList ? nil : "\(state.current.title) has no rows to filter." }) { state, _ in
            // The filter narrows the list: a detail view open over it closes.
            state.lists[state.pane]?.detailOpen = false
            state.focus = .filter
            state.filterInput = TextInputState(text: state.filters[state.pane] ?? "", maxLength: 128)
            return []
        },
        list(.listCopy, "Copy ID", [.character("y")], inFooter: true),
        KeyCommand(.detailFold, "Fold / unfold", keys: [.character(" "), .right, .left], context: .detail, inFooter: true) { state, key in
            handle(&state, .detailFold, key: key)
        },
    ]

    private static func list(_ id: CommandID, _ title: String, _ keys: [Key], inFooter: Bool = false) -> KeyCommand {
        KeyCommand(id, title, keys: keys, context: .list, inFooter: inFooter) { state, key in handle(&state, id, key: key) }
    }

    /// Lines a scrolling command moves by, where a page is `page` lines.
    static func scroll(_ id: CommandID, key: Key, page: Int) -> Int? {
        let page = key == .scrollDown || key == .scrollUp ? wheelStep : max(1, page)
        switch id {
        case .listDown: return 1
        case .listUp: return -1
        case .listPageDown: return page
        case .listPageUp: return -page
        case .listTop: return -Int.max / 2
        case .listBottom: return Int.max / 2
        default: return nil
        }
    }

    /// The rows the current pane's table shows: a page of the list.
    static func visibleRows(_ state: ConsoleState) -> Int {
        Table.visibleRows(height: PaneLayout.table(state)?.height ?? 0)
    }

    /// The lines the detail view shows: a page of it.
    static func detailLines(_ state: ConsoleState) -> Int {
        let screen = Rect(x: 0, y: 0, width: state.screenWidth, height: state.screenHeight)
        return PaneLayout.inner(PaneLayout.rows(screen)[3]).height
    }

    static func handle(_ state: inout ConsoleState, _ id: CommandID, key: Key) -> [ConsoleEffect] {
        var list = state.list(state.pane)
        let count = PaneRows.count(state, state.pane)
        if list.detailOpen {
            let lines = DetailContent.lineCount(state, state.pane)
            switch id {
            case .listDown, .listUp, .listPageDown, .listPageUp, .listTop, .listBottom:
                let delta = scroll(id, key: key, page: detailLines(state)) ?? 0
                list.detailSelected = min(max(0, list.detailSelected + delta), max(0, lines - 1))
            case .detailFold:
                if let path = DetailContent.path(state, state.pane, line: list.detailSelected) {
                    if key == .left { list.folded.insert(path) }
                    else if key == .right { list.folded.remove(path) }
                    else if list.folded.contains(path) { list.folded.remove(path) } else { list.folded.insert(path) }
                }
            case .listCopy:
                state.lists[state.pane] = list
                return copy(&state)
            default: break
            }
            state.lists[state.pane] = list
            return []
        }
        let visible = visibleRows(state)
        switch id {
        case .listDown: list.move(by: 1, count: count)
        case .listUp: list.move(by: -1, count: count)
        case .listPageDown, .listPageUp:
            // A page turns the view with the selection, as less does: the selected row keeps its line.
            let delta = scroll(id, key: key, page: visible) ?? 0
            list.offset = Table.scrolledOffset(selected: list.selected, offset: list.offset, visible: visible, count: count) + delta
            list.move(by: delta, count: count)
        case .listTop: list.selected = 0
        case .listBottom: list.selected = max(0, count - 1)
        case .listOpen:
            guard count > 0, state.current.isList else { break }
            list.detailOpen = true
            list.detailSelected = 0
        case .listCopy:
            state.lists[state.pane] = list
            return copy(&state)
        default: break
        }
        // Keep the viewport where it is until the selection reaches its edge, as k9s and less do.
        list.offset = Table.scrolledOffset(selected: list.selected, offset: list.offset, visible: visible, count: count)
        state.lists[state.pane] = list
        return state.current.scrolled(&state)
    }

    static func copy(_ state: inout ConsoleState) -> [ConsoleEffect] {
        guard let id = PaneRows.selectedID(state, state.pane) else {
            ConsoleReducer.toast(&state, "Nothing to copy here.")
            return []
        }
        ConsoleReducer.toast(&state, "Copied \(id)")
        return [.copy(id)]
    }
}
