import TerminalUI

/// The commands with the keys that trigger them: the registry's defaults, with the config file's
/// `[keys]` rebindings applied. Dispatch, footer and help all read the same keymap.
public struct Keymap: Sendable {
    public private(set) var commands: [ConsoleCommand]

    public static let standard = Keymap(commands: ActionRegistry.all)

    /// The command a key triggers in the given contexts (first match wins).
    public func lookup(_ key: Key, in contexts: [ActionContext]) -> ConsoleCommand? {
        for context in contexts {
            if let command = commands.first(where: { $0.context == context && $0.keys.contains(key) }) { return command }
        }
        return nil
    }

    /// "list.down and list.up both use k in Lists": keys two commands of one context share.
    public var conflicts: [String] {
        var found: [String] = []
        var contexts: [ActionContext] = []
        for command in commands where !contexts.contains(command.context) { contexts.append(command.context) }
        for context in contexts {
            let inContext = commands.filter { $0.context == context }
            for (index, command) in inContext.enumerated() {
                for other in inContext[(index + 1)...] {
                    for key in command.keys where other.keys.contains(key) {
                        found.append("\(command.id.rawValue) and \(other.id.rawValue) both use \(key.name) in \(context.name)")
                    }
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
