import DeskCore
import TerminalUI

/// The commands with the keys that trigger them: the registry's defaults, with the config file's
/// `[keys]` rebindings applied. Dispatch, footer and help all read the same keymap.
public struct Keymap: Sendable {
    public private(set) var commands: [KeyCommand]

    public static let standard = Keymap(commands: ActionRegistry.all)

    /// The command a key triggers in the given contexts (first match wins).
    public func lookup(_ key: Key, in contexts: [ActionContext]) -> KeyCommand? {
        for context in contexts {
            if let command = commands.first(where: { $0.context == context && $0.keys.contains(key) }) { return command }
        }
        return nil
    }

    /// "list.down and list.top both use g (Lists)": keys two commands share where both can be
    /// active at once: in one context, or one of them in a context that is always on (everywhere,
    /// lists, detail views) and the other in a pane. A dialog's and a text field's keys are their own.
    public var conflicts: [String] {
        let dialogs = Set(OverlayCommands.all.map(\.context))
        let alwaysOn: Set<ActionContext> = [.global, .list, .detail]
        func together(_ a: ActionContext, _ b: ActionContext) -> Bool {
            if a == b { return true }
            if dialogs.contains(a) || dialogs.contains(b) || a == .input || b == .input { return false }
            return alwaysOn.contains(a) || alwaysOn.contains(b)
        }
        var found: [String] = []
        for (index, command) in commands.enumerated() {
            for other in commands[(index + 1)...] where together(command.context, other.context) {
                for key in command.keys where other.keys.contains(key) {
                    let place = command.context == other.context ? command.context.name : "\(command.context.name) and \(other.context.name)"
                    found.append("\(command.id.rawValue) and \(other.id.rawValue) both use \(key.name) (\(place))")
                }
            }
        }
        return found
    }

    /// The keymap with `bindings` ("list.down" = ["j", "Down"]) replacing the keys of those
    /// commands; an unknown command or key name, or two commands on one key, is an error.
    public func rebinding(_ bindings: [String: [String]]) throws(KeymapError) -> Keymap {
        var result = self
        for (id, names) in bindings.sorted(by: { $0.key < $1.key }) {
            guard let index = result.commands.firstIndex(where: { $0.id.rawValue == id }) else {
                throw KeymapError("[keys] has no command \"\(id)\"; commands: \(commands.map(\.id.rawValue).joined(separator: ", "))")
            }
            guard !names.isEmpty else { throw KeymapError("[keys] \"\(id)\" needs at least one key") }
            var keys: [Key] = []
            for name in names {
                guard let key = Key(name: name) else {
                    throw KeymapError("[keys] \"\(id)\": \"\(name)\" is not a key name (such as x, Space, Enter, Esc, Tab, Up, PgDn, F2, Ctrl-R)")
                }
                keys.append(key)
            }
            result.commands[index].keys = keys
        }
        if let conflict = result.conflicts.first { throw KeymapError("[keys]: \(conflict)") }
        return result
    }
}

public struct KeymapError: Error, Sendable, Equatable, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}
