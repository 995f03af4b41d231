import AppStoreServerAPI
import Foundation
import TerminalUI

/// Moving through lists and detail views, opening details, folding trees, copying IDs.
enum ListNavigation {
    static let page = 10

    /// Lines a scrolling command moves by.
    static func scroll(_ id: CommandID) -> Int? {
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

    static func handle(_ state: inout ConsoleState, _ command: ConsoleCommand, key: Key) -> [ConsoleEffect] {
        var list = state.list(state.pane)
        let count = PaneRows.count(state, state.pane)
        if list.detailOpen {
            let lines = DetailContent.lineCount(state, state.pane)
            switch command.id {
            case .listDown: list.detailSelected = min(max(0, lines - 1), list.detailSelected + 1)
            case .listUp: list.detailSelected = max(0, list.detailSelected - 1)
            case .listPageDown: list.detailSelected = min(max(0, lines - 1), list.detailSelected + page)
            case .listPageUp: list.detailSelected = max(0, list.detailSelected - page)
            case .listTop: list.detailSelected = 0
            case .listBottom: list.detailSelected = max(0, lines - 1)
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
        if state.pane == .customer, let delta = scroll(command.id) {
            // The summary is text, not rows: the same keys scroll it.
            let screen = Rect(x: 0, y: 0, width: state.screenWidth, height: state.screenHeight)
            let visible = max(1, PaneLayout.inner(PaneLayout.rows(screen)[3]).height - 2)
            let last = max(0, CustomerView.summaryLineCount(state) - visible)
            list.offset = min(max(0, list.offset + delta), last)
            state.lists[state.pane] = list
            return []
        }
        switch command.id {
        case .listDown: list.move(by: 1, count: count)
        case .listUp: list.move(by: -1, count: count)
        case .listPageDown: list.move(by: page, count: count)
        case .listPageUp: list.move(by: -page, count: count)
        case .listTop: list.selected = 0
        case .listBottom: list.selected = max(0, count - 1)
        case .listOpen:
            guard count > 0, state.pane != .customer, state.pane != .inspector else { break }
            list.detailOpen = true
            list.detailSelected = 0
        case .listCopy:
            state.lists[state.pane] = list
            return copy(&state)
        case .subscriptionsExtend:
            state.lists[state.pane] = list
            return ExtendReducer.open(&state)
        case .notificationsTest:
            state.lists[state.pane] = list
            return NotificationsReducer.requestTest(&state)
        case .notificationsFailures:
            state.notificationFilters.onlyFailures.toggle()
            state.lists[state.pane] = list
            return NotificationsReducer.load(&state)
        case .notificationsRange:
            let ranges: [TimeInterval] = [86_400, 7 * 86_400, 30 * 86_400, state.notificationRetention - 3600]
            let next = ranges.first { $0 > state.notificationFilters.since + 1 } ?? ranges[0]
            state.notificationFilters.since = min(next, state.notificationRetention - 3600)
            state.lists[state.pane] = list
            return NotificationsReducer.load(&state)
        default: break
        }
        // Keep the viewport where it is until the selection reaches its edge, as k9s and less do.
        let visible = Table.visibleRows(height: PaneLayout.table(state)?.height ?? 0)
        list.offset = Table.scrolledOffset(selected: list.selected, offset: list.offset, visible: visible, count: count)
        state.lists[state.pane] = list
        return []
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
