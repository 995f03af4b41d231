import DeskCore
import TerminalUI

extension CommandID {
    public static let appQuit = CommandID("app.quit")
    public static let appHelp = CommandID("app.help")
    public static let appMessage = CommandID("app.message")
    public static let paneNext = CommandID("pane.next")
    public static let panePrevious = CommandID("pane.previous")
    public static let paneJump = CommandID("pane.jump")
    public static let appLookup = CommandID("app.lookup")
    public static let appCommand = CommandID("app.command")
    public static let appCancel = CommandID("app.cancel")
    public static let appRefresh = CommandID("app.refresh")
    public static let appSuspend = CommandID("app.suspend")
}

/// Commands that work in every pane.
enum GlobalCommands {
    /// q waits for a write's answer; Ctrl-C always quits.
    static func writeInFlight(_ state: ConsoleState) -> String? {
        if !state.consumptionsInFlight.isEmpty {
            return "An answer to a refund request is waiting for Apple's answer. Ctrl-C quits anyway: the write stays open in the audit ledger."
        }
        if state.caseNotes.adding > 0, state.extensionsInFlight.isEmpty, state.finishesInFlight.isEmpty {
            return "A case note is being kept; q works once it is. Ctrl-C quits anyway, and the note may be lost."
        }
        if state.extensionsInFlight.isEmpty, !state.finishesInFlight.isEmpty {
            return "A Finish Transaction is waiting for Apple's answer. Ctrl-C quits anyway: the write stays open in the audit ledger."
        }
        guard !state.extensionsInFlight.isEmpty else { return nil }
        return "An extension is waiting for Apple's answer. Ctrl-C quits anyway: the write stays open in the audit ledger and is re-sent with its identifier at the next start."
    }

    static let all: [KeyCommand] = [
        KeyCommand(.appQuit, "Quit", keys: [.character("q"), .control("c")], context: .global, inFooter: true,
                       unavailable: writeInFlight) { state, _ in
            state.shouldQuit = true
            return [.quit]
        },
        KeyCommand(.appHelp, "Help", keys: [.character("?"), .function(1)], context: .global, inFooter: true) { state, _ in
            OverlayCommands.openHelp(&state)
            return []
        },
        KeyCommand(.appMessage, "Whole message", keys: [.character("!")], context: .global, inFooter: true,
                       unavailable: { $0.lastError == nil ? "No error to show." : nil }) { state, _ in
            state.overlay = .message
            return []
        },
        KeyCommand(.paneNext, "Next pane", keys: [.tab], context: .global) { state, _ in ConsoleReducer.switchPane(&state, by: 1) },
        KeyCommand(.panePrevious, "Previous pane", keys: [.backTab], context: .global) { state, _ in ConsoleReducer.switchPane(&state, by: -1) },
        // The tenth pane is 0, as the key after 9 on the keyboard.
        KeyCommand(.paneJump, "Go to pane 1-\(min(9, Panes.all.count))\(Panes.all.count > 9 ? ", 0" : "")",
                       keys: (0..<min(10, Panes.all.count)).map { .character(Character(String(($0 + 1) % 10))) },
                       context: .global, keyLabel: "1-\(min(9, Panes.all.count))\(Panes.all.count > 9 ? ",0" : "")") { state, key in
            guard case .character(let c) = key, let digit = Int(String(c)), Panes.all.indices.contains((digit + 9) % 10) else { return [] }
            state.pane = Panes.all[(digit + 9) % 10].pane
            return ConsoleReducer.paneOpened(&state)
        },
        KeyCommand(.appLookup, "Look up an ID", keys: [.character("i")], context: .global, inFooter: true) { state, _ in
            state.pane = .customer
            state.focus = .paneInput
            // A new lookup starts empty; ↑ brings back recent IDs.
            state.lookupInput = TextInputState(maxLength: 64)
            state.recallIndex = nil
            return []
        },
        KeyCommand(.appCommand, "Command line", keys: [.character(":")], context: .global, inFooter: true) { state, _ in
            state.focus = .commandLine
            state.commandInput = TextInputState(maxLength: ConsoleState.commandLineLength)
            return []
        },
        KeyCommand(.appCancel, "Back / cancel request", keys: [.escape], context: .global) { state, _ in
            if state.list(state.pane).detailOpen {
                state.lists[state.pane]?.detailOpen = false
            } else if !state.inFlight.isEmpty {
                return ConsoleReducer.cancelAll(&state)
            } else if state.filters[state.pane] != nil {
                RowFilter.clear(&state)
            }
            // Esc never enters a field: i and / do.
            return []
        },
        KeyCommand(.appRefresh, "Refresh", keys: [.character("r"), .control("r")], context: .global, inFooter: true) { state, _ in
            ConsoleReducer.refresh(&state)
        },
        // Ctrl-Z itself is taken before any command (ConsoleReducer.handleKey), as Ctrl-C is; another key can be bound here.
        KeyCommand(.appSuspend, "Suspend to the shell (fg resumes)", keys: [.control("z")], context: .global) { _, _ in [.suspend] },
    ]
}
