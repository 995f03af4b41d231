import DeskCore
import Foundation

/// What the panes' reducers share: loading states, paging progress, cancellation.
enum PaneReducer {
    static let cancelled = DisplayError(summary: "Cancelled.", hint: "Press r to load again.")

    static func pagingProgressed(_ state: inout ConsoleState, _ request: Int, _ pane: Pane, rows: Int, pages: Int, noun: String) {
        state.progress[request] = "\(DisplayFormat.count(pages, "page")), \(rows) \(noun) so far"
        state.partialNote[pane] = "first \(rows), loading more"
    }

    static func pagingEnded(_ state: inout ConsoleState, _ request: Int, _ pane: Pane) {
        state.progress[request] = nil
        state.partialNote[pane] = nil
    }

    /// Stops `request` when a pane asks again with other filters: its answer, arriving late,
    /// would show rows the pane no longer asks for. Its answers are dropped from now on.
    static func supersede(_ state: inout ConsoleState, _ request: Int?) -> [ConsoleEffect] {
        guard let request, state.inFlight[request] != nil else { return [] }
        state.inFlight[request] = nil
        state.progress[request] = nil
        return [.cancel(request: request)]
    }

    /// What a stopped paging fetched stays, marked incomplete.
    static func markPartial(_ state: inout ConsoleState, _ pane: Pane, count: Int) {
        guard state.partialNote[pane] != nil else { return }
        state.partialNote[pane] = "stopped after \(count): incomplete, r loads all"
    }
}

extension Result {
    var value: Success? {
        if case .success(let value) = self { return value }
        return nil
    }
}
