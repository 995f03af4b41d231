import DeskCore
import TerminalUI

/// Where a command applies: everywhere, in lists, in one pane, in one dialog.
public struct ActionContext: Hashable, Sendable {
    /// As help and docs/keybindings.md title it.
    public let name: String

    public init(_ name: String) { self.name = name }

    public static let global = ActionContext("Everywhere")
    public static let list = ActionContext("Lists")
    public static let detail = ActionContext("Detail views")
    public static let input = ActionContext("Text fields")
}

/// A command's identity: each is declared once as a static member beside its handler, so a
/// typo does not compile; the raw value names it in the config file's `[keys]`.
public struct CommandID: Hashable, Sendable, CustomStringConvertible {
    public let rawValue: String

    public init(_ rawValue: String) { self.rawValue = rawValue }

    public var description: String { rawValue }
}

/// One thing the user can do, with its keys, where it applies, when it cannot be used and what
/// it does: the single source for key dispatch, footer hints, the help overlay and
/// docs/keybindings.md.
public struct KeyCommand: Sendable {
    public typealias Perform = @Sendable (inout ConsoleState, Key) -> [ConsoleEffect]

    public let id: CommandID
    public let title: String
    public var keys: [Key]
    public let context: ActionContext
    /// Changes data at Apple: unavailable on a read-only profile.
    public let dangerous: Bool
    /// Shown in the footer when its context is active.
    public let inFooter: Bool
    /// How help and the footer write its keys, when not one by one ("1-7").
    let keyLabel: String?
    /// The footer's shorter word for it; neighbours with the same word share one hint ("←/→ Reason").
    let footerLabel: String?
    let unavailable: @Sendable (ConsoleState) -> String?
    /// Nil for the keys of a text field: the focused field interprets them by ID.
    let perform: Perform?

    public init(
        _ id: CommandID, _ title: String, keys: [Key], context: ActionContext, dangerous: Bool = false, inFooter: Bool = false,
        keyLabel: String? = nil, footerLabel: String? = nil, unavailable: @escaping @Sendable (ConsoleState) -> String? = { _ in nil }, perform: Perform?
    ) {
        self.id = id
        self.title = title
        self.keys = keys
        self.context = context
        self.dangerous = dangerous
        self.inFooter = inFooter
        self.keyLabel = keyLabel
        self.footerLabel = footerLabel
        self.unavailable = unavailable
        self.perform = perform
    }

    /// Why the command cannot be used now, shown when its key is pressed; nil when it can.
    public func unavailableReason(_ state: ConsoleState) -> String? {
        if dangerous && state.readOnly { return "Read-only profile \(state.profileName): \(title.lowercased()) is disabled." }
        return unavailable(state)
    }

    public var keyNames: String { keyLabel ?? keys.map(\.name).joined(separator: "/") }
}

/// A `:` command: its names (the first is completed and listed), an example, and its handler.
public struct ColonCommand: Sendable {
    public typealias Perform = @Sendable (inout ConsoleState, _ verb: String, _ argument: String) -> [ConsoleEffect]

    public let names: [String]
    /// ":since 24h": how help and docs show it.
    public let usage: String
    public let title: String
    /// An example argument; the command refuses to run without one when set.
    public let example: String?
    let unavailable: @Sendable (ConsoleState) -> String?
    let perform: Perform

    public init(
        _ names: [String], usage: String, _ title: String, example: String? = nil,
        unavailable: @escaping @Sendable (ConsoleState) -> String? = { _ in nil }, perform: @escaping Perform
    ) {
        self.names = names
        self.usage = usage
        self.title = title
        self.example = example
        self.unavailable = unavailable
        self.perform = perform
    }

    public var name: String { names[0] }
}

/// Every command of the console, gathered from where each is handled.
public enum ActionRegistry {
    public static let all: [KeyCommand] =
        GlobalCommands.all + ListNavigation.commands + TextFields.commands
        + Panes.all.flatMap(\.commands) + OverlayCommands.all

    public static let colonCommands: [ColonCommand] = CommandLine.appCommands + Panes.all.flatMap(\.colonCommands)

    /// The contexts in the order help and docs list them.
    public static var contexts: [ActionContext] {
        var seen: [ActionContext] = []
        for command in all where !seen.contains(command.context) { seen.append(command.context) }
        return seen
    }

    public static func colonCommand(named verb: String) -> ColonCommand? {
        colonCommands.first { $0.names.contains(verb) }
    }

    /// docs/keybindings.md, generated so it always matches the code.
    public static func markdown() -> String {
        var lines = [
            "# Key bindings", "", "Generated from the console's command registry (`ActionRegistry`).", "",
            "Any command can be given other keys in the config file, by its ID; the console refuses to start when two",
            "commands of one context would share a key:", "", "```toml", "[keys]", "\"list.down\" = [\"n\", \"Down\"]",
            "\"list.up\" = \"p\"", "```", "",
            "Key names: a character, Space, Enter, Esc, Tab, Shift-Tab, Up, Down, Left, Right, PgUp, PgDn, Home, End, F1-F12, Ctrl-A to Ctrl-Z.", "",
        ]
        for context in contexts {
            lines += ["## \(context.name)", "", "| Keys | Action | ID |", "| --- | --- | --- |"]
            for command in all where command.context == context {
                lines.append("| \(command.keyNames.replacingOccurrences(of: "|", with: "\\|")) | \(command.title)\(command.dangerous ? " (changes data; disabled in read-only profiles)" : "") | `\(command.id.rawValue)` |")
            }
            lines.append("")
        }
        lines += ["## Command line (`:`)", "", "Tab completes a command's name.", "", "| Command | Action | Also |", "| --- | --- | --- |"]
        for command in colonCommands {
            let aliases = command.names.dropFirst().map { "`:\($0)`" }.joined(separator: ", ")
            lines.append("| `\(command.usage.replacingOccurrences(of: "|", with: "\\|"))` | \(command.title) | \(aliases) |")
        }
        lines.append("")
        return lines.joined(separator: "\n")
    }
}
