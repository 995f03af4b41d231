import DeskCore
import TerminalUI

extension CommandID {
    public static let inputSubmit = CommandID("input.submit")
    public static let inputClear = CommandID("input.clear")
    public static let inputRecall = CommandID("input.recall")
    public static let inputHelp = CommandID("input.help")
}

/// Keys of the focused text field (lookup, Inspector, `:` and `/`): the registry's field
/// commands by ID, then typing.
enum TextFields {
    static let commands: [KeyCommand] = [
        KeyCommand(.inputSubmit, "Submit", keys: [.enter], context: .input, inFooter: true, perform: nil),
        KeyCommand(.inputClear, "Clear", keys: [.control("u")], context: .input, inFooter: true, perform: nil),
        KeyCommand(.inputRecall, "Recent IDs", keys: [.up, .down], context: .input, perform: nil),
        // Every printable key is text in a field, ? included: help is a function key here.
        KeyCommand(.inputHelp, "Help", keys: [.function(1)], context: .input, inFooter: true, perform: nil),
    ]

    /// The field command a key triggers, if any.
    static func command(_ state: ConsoleState, _ key: Key) -> CommandID? {
        state.keymap.lookup(key, in: [.input])?.id
    }

    /// The common keys of a pane's field: submit, clear, Esc leaves it, Tab changes pane, F1
    /// opens help; anything else is typed.
    static func handle(
        _ state: inout ConsoleState, _ key: Key, field: WritableKeyPath<ConsoleState, TextInputState>,
        submit: (inout ConsoleState) -> [ConsoleEffect]
    ) -> [ConsoleEffect] {
        switch command(state, key) {
        case .inputSubmit?: return submit(&state)
        case .inputClear?:
            state[keyPath: field] = TextInputState(maxLength: state[keyPath: field].maxLength)
            return []
        case .inputHelp?:
            OverlayCommands.openHelp(&state)
            return []
        default: break
        }
        switch key {
        case .escape:
            state.focus = .content
            return []
        case .tab, .backTab:
            state.focus = .content
            return ConsoleReducer.switchPane(&state, by: key == .tab ? 1 : -1)
        default:
            _ = state[keyPath: field].handle(key)
            return []
        }
    }
}
