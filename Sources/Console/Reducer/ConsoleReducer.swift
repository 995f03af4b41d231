import AppStoreServerAPI
import DeskCore
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
            return Panes.all.flatMap { $0.tick(&state) }
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
            state.requestOwners[request] = nil
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
                for pane in Panes.all { pane.reset(&state) }
                state.lists = [:]
                toast(&state, "Environment: \(environment.label)")
                return paneOpened(&state)
            case .failure(let error):
                fail(&state, error)
                return []
            }
        case .extensionsCounted(let request, let result):
            ExtendReducer.receiveCount(&state, request: request, result)
            return []
        case .extensionReviewed(let request, let result):
            ExtendReducer.reviewed(&state, request: request, result)
            return []
        case .extended(let request, let result):
            return WriteResultReducer.extended(&state, request: request, result)
        case .transactionFinished(let request, let result):
            FinishReducer.finished(&state, request: request, result)
            return []
        case .consumptionAnswered(let request, let result):
            return ConsumptionReducer.answered(&state, request: request, result)
        case .writeResolved(let identifier, let result):
            UnresolvedWritesReducer.resolved(&state, requestIdentifier: identifier, result)
            return []
        case .answer(let request, let answer) where request == state.doctorRequest:
            return DoctorReducer.answers.take(&state, request, answer)
        case .answer(let request, let answer) where request == state.retention.request:
            return RetentionReducer.answers.take(&state, request, answer)
        case .answer(let request, let answer):
            // An answer goes to the pane that asked, and to no other.
            guard let owner = state.requestOwners[request] else { return [] }
            return Panes.description(owner).answers.take(&state, request, answer)
        }
    }

    // MARK: Keys

    static func handleKey(_ state: inout ConsoleState, _ key: Key) -> [ConsoleEffect] {
        if key == .control("c") {
            state.shouldQuit = true
            return [.quit]
        }
        // As Ctrl-Z does in a shell, wherever the focus is (raw mode delivers it as a key).
        if key == .control("z") { return [.suspend] }
        if key == .resize { return [] }
        if state.screenWidth < ConsoleView.minimumWidth || state.screenHeight < ConsoleView.minimumHeight {
            // Nothing can be read on a terminal this small, so nothing but q acts.
            if key == .character("q"), GlobalCommands.writeInFlight(state) == nil {
                state.shouldQuit = true
                return [.quit]
            }
            return []
        }
        if state.overlay != nil { return OverlayCommands.handle(&state, key) }
        switch state.focus {
        case .commandLine: return CommandLine.handleKey(&state, key)
        case .filter: return RowFilter.handleKey(&state, key)
        case .paneInput:
            guard let input = state.current.input else {
                state.focus = .content
                return handleContentKey(&state, key)
            }
            return input(&state, key)
        case .content: return handleContentKey(&state, key)
        }
    }

    /// The contexts whose commands apply now, most specific first.
    static func contexts(_ state: ConsoleState) -> [ActionContext] {
        var contexts: [ActionContext] = []
        if state.list(state.pane).detailOpen { contexts.append(.detail) }
        for command in state.current.commands where !contexts.contains(command.context) { contexts.append(command.context) }
        return contexts + [.list, .global]
    }

    static func handleContentKey(_ state: inout ConsoleState, _ key: Key) -> [ConsoleEffect] {
        let command = state.keymap.lookup(key, in: contexts(state))
        if let taken = state.current.intercept(&state, key, command) { return taken }
        guard let command else { return [] }
        return perform(&state, command, key)
    }

    /// Runs a command, or says why it cannot run now.
    static func perform(_ state: inout ConsoleState, _ command: KeyCommand, _ key: Key) -> [ConsoleEffect] {
        if let reason = command.unavailableReason(state) {
            toast(&state, reason, isError: true)
            return []
        }
        return command.perform?(&state, key) ?? []
    }

    static func switchPane(_ state: inout ConsoleState, by delta: Int) -> [ConsoleEffect] {
        let count = Panes.all.count
        state.pane = Panes.all[(Panes.index(of: state.pane) + delta + count) % count].pane
        return paneOpened(&state)
    }

    /// Shows a pane, which loads what it needs the first time.
    static func paneOpened(_ state: inout ConsoleState) -> [ConsoleEffect] {
        // An error belongs to where it happened; the pane shows its own failures.
        state.lastError = nil
        return state.current.opened(&state)
    }

    static func refresh(_ state: inout ConsoleState) -> [ConsoleEffect] {
        state.current.refresh(&state)
    }

    /// Stops every read in flight. A write is never cut off: it may already be with Apple, and
    /// cancelling it would only hide its outcome, so it runs to its answer (or its deadline).
    static func cancelAll(_ state: inout ConsoleState) -> [ConsoleEffect] {
        let requests = state.inFlight.keys.filter {
            state.extensionsInFlight[$0] == nil && state.finishesInFlight[$0] == nil && state.consumptionsInFlight[$0] == nil
        }.sorted()
        for request in requests {
            state.inFlight[request] = nil
            state.progress[request] = nil
        }
        for pane in Panes.all { pane.cancelled(&state) }
        var words: [String] = []
        if !requests.isEmpty { words.append("Cancelled \(DisplayFormat.count(requests.count, "request")).") }
        if !state.extensionsInFlight.isEmpty {
            words.append("An extension already sent cannot be stopped: its result will show here.")
        }
        if !state.finishesInFlight.isEmpty {
            words.append("A Finish Transaction already sent cannot be stopped: its result will show here.")
        }
        if !state.consumptionsInFlight.isEmpty {
            words.append("An answer to a refund request already sent cannot be stopped: its result will show here.")
        }
        toast(&state, words.joined(separator: " "), lasting: 60)
        return requests.map { .cancel(request: $0) }
    }

    // MARK: Helpers

    /// Starts a request; its answers go to `owner` (nil: a write, whose answers have their own case).
    static func start(_ state: inout ConsoleState, _ description: String, owner: Pane? = nil) -> Int {
        let request = state.takeRequestID()
        state.inFlight[request] = description
        state.requestOwners[request] = owner
        return request
    }

    /// Starts a request the agent did not ask for (a live tail's poll): its answers go to `owner`,
    /// but it is not shown as in flight and Esc does not cancel it.
    static func startInBackground(_ state: inout ConsoleState, owner: Pane) -> Int {
        let request = state.takeRequestID()
        state.requestOwners[request] = owner
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
        // The same words again replace the last ones instead of piling up.
        state.toasts.removeAll { $0.text == text }
        state.toasts.append(ToastMessage(text: text, isError: isError, expiresAtTick: state.tick + (ticks ?? (isError ? 40 : 25))))
        if state.toasts.count > 3 { state.toasts.removeFirst(state.toasts.count - 3) }
    }

    static func fail(_ state: inout ConsoleState, _ error: DisplayError) {
        state.lastError = error
        toast(&state, error.summary, isError: true)
    }
}
