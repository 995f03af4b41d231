import TerminalUI

/// Where an action applies.
public enum ActionContext: String, Sendable, CaseIterable {
    case global = "Everywhere"
    case list = "Lists"
    case subscriptions = "Subscriptions"
    case notifications = "Notifications"
    case detail = "Detail views"
    case input = "Text fields"
}

/// One thing the user can do: the single source for key dispatch, footer hints, the help overlay
/// and docs/keybindings.md.
public struct ConsoleCommand: Sendable {
    public let id: String
    public let title: String
    public let keys: [Key]
    public let context: ActionContext
    public let dangerous: Bool
    /// Shown in the footer when its context is active.
    public let inFooter: Bool
}

public enum ActionRegistry {
    public static let all: [ConsoleCommand] = [
        ConsoleCommand(id: "app.quit", title: "Quit", keys: [.character("q"), .control("c")], context: .global, dangerous: false, inFooter: true),
        ConsoleCommand(id: "app.help", title: "Help", keys: [.character("?"), .function(1)], context: .global, dangerous: false, inFooter: true),
        ConsoleCommand(id: "app.message", title: "Whole message", keys: [.character("!")], context: .global, dangerous: false, inFooter: true),
        ConsoleCommand(id: "pane.next", title: "Next pane", keys: [.tab], context: .global, dangerous: false, inFooter: false),
        ConsoleCommand(id: "pane.previous", title: "Previous pane", keys: [.backTab], context: .global, dangerous: false, inFooter: false),
        ConsoleCommand(id: "pane.jump", title: "Go to pane 1-7", keys: (1...7).map { .character(Character(String($0))) }, context: .global, dangerous: false, inFooter: false),
        ConsoleCommand(id: "app.lookup", title: "Look up an ID", keys: [.character("i")], context: .global, dangerous: false, inFooter: true),
        ConsoleCommand(id: "app.command", title: "Command line", keys: [.character(":")], context: .global, dangerous: false, inFooter: true),
        ConsoleCommand(id: "app.cancel", title: "Back / cancel request", keys: [.escape], context: .global, dangerous: false, inFooter: false),
        ConsoleCommand(id: "app.refresh", title: "Refresh", keys: [.character("r"), .control("r")], context: .global, dangerous: false, inFooter: true),
        ConsoleCommand(id: "list.down", title: "Down", keys: [.down, .character("j")], context: .list, dangerous: false, inFooter: false),
        ConsoleCommand(id: "list.up", title: "Up", keys: [.up, .character("k")], context: .list, dangerous: false, inFooter: false),
        ConsoleCommand(id: "list.pageDown", title: "Page down", keys: [.pageDown, .scrollDown], context: .list, dangerous: false, inFooter: false),
        ConsoleCommand(id: "list.pageUp", title: "Page up", keys: [.pageUp, .scrollUp], context: .list, dangerous: false, inFooter: false),
        ConsoleCommand(id: "list.top", title: "First row", keys: [.character("g"), .home], context: .list, dangerous: false, inFooter: false),
        ConsoleCommand(id: "list.bottom", title: "Last row", keys: [.character("G"), .end], context: .list, dangerous: false, inFooter: false),
        ConsoleCommand(id: "list.open", title: "Details", keys: [.enter], context: .list, dangerous: false, inFooter: true),
        ConsoleCommand(id: "list.filter", title: "Filter rows", keys: [.character("/")], context: .list, dangerous: false, inFooter: true),
        ConsoleCommand(id: "list.copy", title: "Copy ID", keys: [.character("y")], context: .list, dangerous: false, inFooter: true),
        ConsoleCommand(id: "subscriptions.extend", title: "Extend renewal", keys: [.character("e")], context: .subscriptions, dangerous: true, inFooter: true),
        ConsoleCommand(id: "notifications.test", title: "Test notification", keys: [.character("t")], context: .notifications, dangerous: false, inFooter: true),
        ConsoleCommand(id: "notifications.failures", title: "Failures only", keys: [.character("f")], context: .notifications, dangerous: false, inFooter: true),
        ConsoleCommand(id: "notifications.range", title: "Range 1d/7d/30d/max", keys: [.character("d")], context: .notifications, dangerous: false, inFooter: true),
        ConsoleCommand(id: "detail.fold", title: "Fold / unfold", keys: [.character(" "), .right, .left], context: .detail, dangerous: false, inFooter: true),
        ConsoleCommand(id: "input.submit", title: "Submit", keys: [.enter], context: .input, dangerous: false, inFooter: true),
        ConsoleCommand(id: "input.clear", title: "Clear", keys: [.control("u")], context: .input, dangerous: false, inFooter: true),
        ConsoleCommand(id: "input.recall", title: "Recent IDs", keys: [.up, .down], context: .input, dangerous: false, inFooter: false),
    ]

    public static func command(_ id: String) -> ConsoleCommand { all.first { $0.id == id }! }

    /// The command a key triggers in the given contexts (first match wins).
    public static func lookup(_ key: Key, in contexts: [ActionContext]) -> ConsoleCommand? {
        for context in contexts {
            if let command = all.first(where: { $0.context == context && $0.keys.contains(key) }) { return command }
        }
        return nil
    }

    public static func keyNames(_ command: ConsoleCommand) -> String {
        if command.id == "pane.jump" { return "1-7" }
        return command.keys.map(\.name).joined(separator: "/")
    }

    /// docs/keybindings.md, generated so it always matches the code.
    public static func markdown() -> String {
        var lines = ["# Key bindings", "", "Generated from the console's action registry (`ActionRegistry.all`).", ""]
        for context in ActionContext.allCases {
            let commands = all.filter { $0.context == context }
            guard !commands.isEmpty else { continue }
            lines += ["## \(context.rawValue)", "", "| Keys | Action |", "| --- | --- |"]
            for command in commands {
                lines.append("| \(keyNames(command).replacingOccurrences(of: "|", with: "\\|")) | \(command.title)\(command.dangerous ? " (changes data; disabled in read-only profiles)" : "") |")
            }
            lines.append("")
        }
        lines += [
            "## Command line (`:`)", "",
            "| Command | Action |", "| --- | --- |",
            "| `:order ID` | Look up an order ID |",
            "| `:tx ID` | Look up a transaction ID |",
            "| `:env production\\|sandbox` | Switch environment |",
            "| `:theme NAME` | Switch theme |",
            "| `:since 24h`, `:type DID_RENEW`, `:subtype GRACE_PERIOD`, `:txn ID`, `:failures` | Notification filters |",
            "| `:product ID`, `:kind consumable`, `:from 2026-11-01`, `:to 30d`, `:ownership family\\|purchased`, `:group ID`, `:sort asc\\|desc`, `:revoked yes\\|no\\|all`, `:clear` | Transaction filters |",
            "| `:quit`, `:q` | Quit |",
            "",
        ]
        return lines.joined(separator: "\n")
    }
}
