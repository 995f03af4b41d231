import DeskCore
import TerminalUI

extension ActionContext {
    public static let help = ActionContext("Help")
    public static let message = ActionContext("Whole message")
}

extension CommandID {
    public static let helpClose = CommandID("help.close")
    public static let helpMore = CommandID("help.more")
    public static let helpBack = CommandID("help.back")
    public static let messageClose = CommandID("message.close")
}

/// Keys while a dialog is open: its own commands, and nothing of the pane beneath.
enum OverlayCommands {
    static let all: [KeyCommand] = [
        KeyCommand(.helpClose, "Close help", keys: [.escape, .character("?"), .character("q"), .enter, .function(1)], context: .help,
                       inFooter: true, footerLabel: "Close", perform: close),
        KeyCommand(.helpMore, "Next page", keys: [.pageDown, .down, .character("j"), .character(" ")], context: .help, inFooter: true,
                       footerLabel: "Pages", unavailable: { $0.helpPage + 1 >= HelpOverlay.pageCount($0) ? "This is the last page." : nil }) { state, _ in
            state.helpPage += 1
            return []
        },
        KeyCommand(.helpBack, "Previous page", keys: [.pageUp, .up, .character("k")], context: .help, inFooter: true,
                       footerLabel: "Pages", unavailable: { $0.helpPage == 0 ? "This is the first page." : nil }) { state, _ in
            state.helpPage -= 1
            return []
        },
        KeyCommand(.messageClose, "Close the message", keys: [.escape, .character("!"), .character("q"), .enter], context: .message,
                       inFooter: true, footerLabel: "Close", perform: close),
    ] + ExtendReducer.commands + FinishReducer.commands + ConsumptionReducer.commands + UnresolvedWritesReducer.commands + DoctorReducer.commands
        + RetentionReducer.commands

    /// The context of the dialog on screen.
    static func context(_ state: ConsoleState) -> ActionContext? {
        switch state.overlay {
        case .help?: return .help
        case .message?: return .message
        case .doctor?: return .doctor
        case .retention?: return .retention
        case .extend?: return state.extendForm?.confirming == true ? .extendConfirm : .extendForm
        case .finishTransaction?: return .finishConfirm
        case .consumption?: return state.consumptionForm?.confirming == true ? .consumptionConfirm : .consumptionForm
        case .unresolvedWrite?: return .unresolvedWrite
        case nil: return nil
        }
    }

    static func openHelp(_ state: inout ConsoleState) {
        state.overlay = .help
        state.helpPage = 0
    }

    static func handle(_ state: inout ConsoleState, _ key: Key) -> [ConsoleEffect] {
        guard let context = context(state) else { return [] }
        if state.overlay == .unresolvedWrite, state.unresolvedWrites.isEmpty {
            state.overlay = nil
            return []
        }
        guard let command = state.keymap.lookup(key, in: [context]) else {
            switch context {
            case .extendForm: return ExtendReducer.type(&state, key)
            case .consumptionForm: return ConsumptionReducer.type(&state, key)
            default: return []
            }
        }
        return ConsoleReducer.perform(&state, command, key)
    }

    private static func close(_ state: inout ConsoleState, _ key: Key) -> [ConsoleEffect] {
        state.overlay = nil
        return []
    }
}
