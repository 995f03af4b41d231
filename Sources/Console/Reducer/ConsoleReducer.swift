import AppStoreServerAPI
import Foundation
import TerminalUI

/// The console's only way to change: a pure function of state and action, returning effects.
public enum ConsoleReducer {
    public static func reduce(_ state: inout ConsoleState, _ action: ConsoleAction) -> [ConsoleEffect] {
        switch action {
        case .tick(let now):
            state.tick += 1
            state.now = now
            state.toasts.removeAll { $0.expiresAtTick <= state.tick }
            return []
        case .key(.click(let x, let y)):
            return MouseReducer.click(&state, x: x, y: y)
        case .key(let key):
            return handleKey(&state, key)
        case .screenSize(let width, let height):
            state.screenWidth = width
            state.screenHeight = height
            return []
        case .finished(let request):
            state.inFlight[request] = nil
            state.progress[request] = nil
            return []
        case .notice(let text, let isError):
            toast(&state, text, isError: isError)
            return []
        case .themeChanged(let result):
            switch result {
            case .success(let name):
                state.themeName = name
                toast(&state, "Theme: \(name)")
            case .failure(let error):
                fail(&state, error)
            }
            return []
        case .environmentChanged(let result):
            switch result {
            case .success(let environment):
                state.environment = environment
                state.customer = nil
                state.lookupInput = TextInputState(maxLength: 64)
                state.transactionsPane = .idle
                state.notificationsPane = .idle
                state.lists = [:]
                toast(&state, "Environment: \(environment.label)")
                return paneOpened(&state)
            case .failure(let error):
                fail(&state, error)
                return []
            }
        default:
            return CustomerReducer.receive(&state, action)
        }
    }

    // MARK: Keys

    static func handleKey(_ state: inout ConsoleState, _ key: Key) -> [ConsoleEffect] {
        if key == .control("c") {
            state.shouldQuit = true
            return [.quit]
        }
        if key == .resize { return [] }
        if let overlay = state.overlay {
            switch overlay {
            case .help:
                if [.escape, .character("?"), .character("q"), .enter, .function(1)].contains(key) { state.overlay = nil }
                return []
            case .extend:
                return ExtendReducer.handleKey(&state, key)
            case .unresolvedWrite:
                return UnresolvedWritesReducer.handleKey(&state, key)
            case .message:
                if [.escape, .character("!"), .character("q"), .enter].contains(key) { state.overlay = nil }
                return []
            }
        }
        switch state.focus {
        case .commandLine: return CommandLine.handleKey(&state, key)
        case .filter: return handleFilterKey(&state, key)
        case .lookupInput: return handleLookupKey(&state, key)
        case .inspectorInput: return InspectorReducer.handleKey(&state, key)
        case .content: return handleContentKey(&state, key)
        }
    }

    static func handleLookupKey(_ state: inout ConsoleState, _ key: Key) -> [ConsoleEffect] {
        switch key {
        case .enter:
            return CustomerReducer.submit(&state, state.lookupInput.text)
        case .escape:
            if !state.inFlight.isEmpty { return cancelAll(&state) }
            state.focus = .content
            return []
        case .tab, .backTab:
            state.focus = .content
            return switchPane(&state, by: key == .tab ? 1 : -1)
        case .up:
            guard !state.recentLookups.isEmpty else { return [] }
            let index = min((state.recallIndex ?? -1) + 1, state.recentLookups.count - 1)
            state.recallIndex = index
            state.lookupInput = TextInputState(text: state.recentLookups[index], maxLength: 64)
            return []
        case .down:
            guard let index = state.recallIndex else {
                state.focus = .content
                return []
            }
            state.recallIndex = index > 0 ? index - 1 : nil
            state.lookupInput = TextInputState(text: state.recallIndex.map { state.recentLookups[$0] } ?? "", maxLength: 64)
            return []
        case .character(":"):
            // IDs never contain ':' or '?', so these keep their meaning while the field has focus.
            state.focus = .commandLine
            state.commandInput = TextInputState(maxLength: 256)
            return []
        case .character("?"):
            state.overlay = .help
            return []
        default:
            if case .paste(let text) = key, text.count > state.lookupInput.maxLength {
                toast(&state, "The paste was \(text.count) characters; the field keeps \(state.lookupInput.maxLength).", isError: true)
            }
            _ = state.lookupInput.handle(key)
            return []
        }
    }

    static func handleFilterKey(_ state: inout ConsoleState, _ key: Key) -> [ConsoleEffect] {
        switch key {
        case .enter:
            state.focus = .content
        case .escape:
            state.filters[state.pane] = nil
            state.filterInput = TextInputState(maxLength: 128)
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

    static func handleContentKey(_ state: inout ConsoleState, _ key: Key) -> [ConsoleEffect] {
        if state.pane == .inspector, case .paste = key {
            // A new document pasted over a report replaces the old one.
            state.focus = .inspectorInput
            return InspectorReducer.handleKey(&state, key)
        }
        let detailOpen = state.list(state.pane).detailOpen
        var contexts: [ActionContext] = []
        if detailOpen { contexts.append(.detail) }
        if state.pane == .subscriptions { contexts.append(.subscriptions) }
        if state.pane == .notifications { contexts.append(.notifications) }
        contexts += [.list, .global]
        guard let command = state.keymap.lookup(key, in: contexts) else { return [] }
        switch command.id {
        case .appQuit:
            state.shouldQuit = true
            return [.quit]
        case .appHelp:
            state.overlay = .help
        case .appMessage:
            showMessage(&state)
        case .paneNext: return switchPane(&state, by: 1)
        case .panePrevious: return switchPane(&state, by: -1)
        case .paneJump:
            if case .character(let c) = key, let number = Int(String(c)), let pane = Pane(rawValue: number - 1) {
                state.pane = pane
                return paneOpened(&state)
            }
        case .appLookup:
            state.pane = .customer
            state.focus = .lookupInput
            // A new lookup starts empty; ↑ brings back recent IDs.
            state.lookupInput = TextInputState(maxLength: 64)
            state.recallIndex = nil
        case .appCommand:
            state.focus = .commandLine
            state.commandInput = TextInputState(maxLength: 256)
        case .appCancel:
            if detailOpen {
                state.lists[state.pane]?.detailOpen = false
            } else if !state.inFlight.isEmpty {
                return cancelAll(&state)
            } else if state.filters[state.pane] != nil {
                state.filters[state.pane] = nil
            }
            // Esc never enters a field: i and / do.
        case .appRefresh: return refresh(&state)
        case .listFilter:
            state.focus = .filter
            state.filterInput = TextInputState(text: state.filters[state.pane] ?? "", maxLength: 128)
        default:
            return ListNavigation.handle(&state, command, key: key)
        }
        return []
    }

    static func switchPane(_ state: inout ConsoleState, by delta: Int) -> [ConsoleEffect] {
        let count = Pane.allCases.count
        state.pane = Pane(rawValue: (state.pane.rawValue + delta + count) % count)!
        return paneOpened(&state)
    }

    /// Loads what a pane needs the first time it is shown.
    static func paneOpened(_ state: inout ConsoleState) -> [ConsoleEffect] {
        // An error belongs to where it happened; the pane shows its own failures.
        state.lastError = nil
        switch state.pane {
        case .customer:
            if state.customer == nil { state.focus = .lookupInput }
        case .inspector:
            state.focus = .inspectorInput
        case .notifications:
            state.focus = .content
            if case .idle = state.notificationsPane { return NotificationsReducer.load(&state) }
        default:
            state.focus = .content
        }
        return []
    }

    static func refresh(_ state: inout ConsoleState) -> [ConsoleEffect] {
        switch state.pane {
        case .notifications: return NotificationsReducer.load(&state)
        case .transactions:
            guard let anchor = state.customer?.anchorId else { return [] }
            return TransactionsReducer.load(&state, anchor: anchor)
        default:
            guard let customer = state.customer else { return [] }
            return CustomerReducer.submit(&state, customer.query)
        }
    }

    /// Stops every read in flight. A write is never cut off: it may already be with Apple, and
    /// cancelling it would only hide its outcome, so it runs to its answer (or its deadline).
    static func cancelAll(_ state: inout ConsoleState) -> [ConsoleEffect] {
        let requests = state.inFlight.keys.filter { state.extensionsInFlight[$0] == nil }.sorted()
        for request in requests {
            state.inFlight[request] = nil
            state.progress[request] = nil
        }
        CustomerReducer.markCancelled(&state)
        var words: [String] = []
        if !requests.isEmpty { words.append("Cancelled \(requests.count) request\(requests.count == 1 ? "" : "s").") }
        if !state.extensionsInFlight.isEmpty {
            words.append("An extension already sent cannot be stopped: its result will show here.")
        }
        toast(&state, words.joined(separator: " "), lasting: 60)
        return requests.map { .cancel(request: $0) }
    }

    // MARK: Helpers

    static func start(_ state: inout ConsoleState, _ description: String) -> Int {
        let request = state.nextRequest
        state.nextRequest += 1
        state.inFlight[request] = description
        return request
    }

    static func showMessage(_ state: inout ConsoleState) {
        if state.lastError == nil {
            toast(&state, "No error to show.")
        } else {
            state.overlay = .message
        }
    }

    static func toast(_ state: inout ConsoleState, _ text: String, isError: Bool = false, lasting ticks: Int? = nil) {
        state.toasts.append(ToastMessage(text: text, isError: isError, expiresAtTick: state.tick + (ticks ?? (isError ? 40 : 25))))
        if state.toasts.count > 3 { state.toasts.removeFirst(state.toasts.count - 3) }
    }

    static func fail(_ state: inout ConsoleState, _ error: DisplayError) {
        state.lastError = error
        toast(&state, error.summary, isError: true)
    }
}
