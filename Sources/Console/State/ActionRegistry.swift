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

/// Every command's identity: a typo does not compile, and a switch over them is checked.
public enum CommandID: String, Sendable, CaseIterable {
    case appQuit = "app.quit"
    case appHelp = "app.help"
    case appMessage = "app.message"
    case paneNext = "pane.next"
    case panePrevious = "pane.previous"
    case paneJump = "pane.jump"
    case appLookup = "app.lookup"
    case appCommand = "app.command"
    case appCancel = "app.cancel"
    case appRefresh = "app.refresh"
    case listDown = "list.down"
    case listUp = "list.up"
    case listPageDown = "list.pageDown"
    case listPageUp = "list.pageUp"
    case listTop = "list.top"
    case listBottom = "list.bottom"
    case listOpen = "list.open"
    case listFilter = "list.filter"
    case listCopy = "list.copy"
    case subscriptionsExtend = "subscriptions.extend"
    case notificationsTest = "notifications.test"
    case notificationsFailures = "notifications.failures"
    case notificationsRange = "notifications.range"
    case detailFold = "detail.fold"
    case inputSubmit = "input.submit"
    case inputClear = "input.clear"
    case inputRecall = "input.recall"
}

/// One thing the user can do: the single source for key dispatch, footer hints, the help overlay
/// and docs/keybindings.md.
public struct ConsoleCommand: Sendable {
    public let id: CommandID
    public let title: String
    public var keys: [Key]
    public let context: ActionContext
    public let dangerous: Bool
    /// Shown in the footer when its context is active.
    public let inFooter: Bool
}

public enum ActionRegistry {
    public static let all: [ConsoleCommand] = [
        ConsoleCommand(id: .appQuit, title: "Quit", keys: [.character("q"), .control("c")], context: .global, dangerous: false, inFooter: true),
        ConsoleCommand(id: .appHelp, title: "Help", keys: [.character("?"), .function(1)], context: .global, dangerous: false, inFooter: true),
        ConsoleCommand(id: .appMessage, title: "Whole message", keys: [.character("!")], context: .global, dangerous: false, inFooter: true),
        ConsoleCommand(id: .paneNext, title: "Next pane", keys: [.tab], context: .global, dangerous: false, inFooter: false),
        ConsoleCommand(id: .panePrevious, title: "Previous pane", keys: [.backTab], context: .global, dangerous: false, inFooter: false),
        ConsoleCommand(id: .paneJump, title: "Go to pane 1-7", keys: (1...7).map { .character(Character(String($0))) }, context: .global, dangerous: false, inFooter: false),
        ConsoleCommand(id: .appLookup, title: "Look up an ID", keys: [.character("i")], context: .global, dangerous: false, inFooter: true),
        ConsoleCommand(id: .appCommand, title: "Command line", keys: [.character(":")], context: .global, dangerous: false, inFooter: true),
        ConsoleCommand(id: .appCancel, title: "Back / cancel request", keys: [.escape], context: .global, dangerous: false, inFooter: false),
        ConsoleCommand(id: .appRefresh, title: "Refresh", keys: [.character("r"), .control("r")], context: .global, dangerous: false, inFooter: true),
        ConsoleCommand(id: .listDown, title: "Down", keys: [.down, .character("j")], context: .list, dangerous: false, inFooter: false),
        ConsoleCommand(id: .listUp, title: "Up", keys: [.up, .character("k")], context: .list, dangerous: false, inFooter: false),
        ConsoleCommand(id: .listPageDown, title: "Page down", keys: [.pageDown, .scrollDown], context: .list, dangerous: false, inFooter: false),
        ConsoleCommand(id: .listPageUp, title: "Page up", keys: [.pageUp, .scrollUp], context: .list, dangerous: false, inFooter: false),
        ConsoleCommand(id: .listTop, title: "First row", keys: [.character("g"), .home], context: .list, dangerous: false, inFooter: false),
        ConsoleCommand(id: .listBottom, title: "Last row", keys: [.character("G"), .end], context: .list, dangerous: false, inFooter: false),
        ConsoleCommand(id: .listOpen, title: "Details", keys: [.enter], context: .list, dangerous: false, inFooter: true),
        ConsoleCommand(id: .listFilter, title: "Filter rows", keys: [.character("/")], context: .list, dangerous: false, inFooter: true),
        ConsoleCommand(id: .listCopy, title: "Copy ID", keys: [.character("y")], context: .list, dangerous: false, inFooter: true),
        ConsoleCommand(id: .subscriptionsExtend, title: "Extend renewal", keys: [.character("e")], context: .subscriptions, dangerous: true, inFooter: true),
        ConsoleCommand(id: .notificationsTest, title: "Test notification", keys: [.character("t")], context: .notifications, dangerous: false, inFooter: true),
        ConsoleCommand(id: .notificationsFailures, title: "Failures only", keys: [.character("f")], context: .notifications, dangerous: false, inFooter: true),
        ConsoleCommand(id: .notificationsRange, title: "Range 1d/7d/30d/max", keys: [.character("d")], context: .notifications, dangerous: false, inFooter: true),
        ConsoleCommand(id: .detailFold, title: "Fold / unfold", keys: [.character(" "), .right, .left], context: .detail, dangerous: false, inFooter: true),
        ConsoleCommand(id: .inputSubmit, title: "Submit", keys: [.enter], context: .input, dangerous: false, inFooter: true),
        ConsoleCommand(id: .inputClear, title: "Clear", keys: [.control("u")], context: .input, dangerous: false, inFooter: true),
        ConsoleCommand(id: .inputRecall, title: "Recent IDs", keys: [.up, .down], context: .input, dangerous: false, inFooter: false),
    ]

    public static func command(_ id: CommandID) -> ConsoleCommand { all.first { $0.id == id }! }

    public static func keyNames(_ command: ConsoleCommand) -> String {
        if command.id == .paneJump { return "1-7" }
        return command.keys.map(\.name).joined(separator: "/")
    }

    /// docs/keybindings.md, generated so it always matches the code.
    public static func markdown() -> String {
        var lines = [
            "# Key bindings", "", "Generated from the console's action registry (`ActionRegistry.all`).", "",
            "Any command can be given other keys in the config file, by its ID; the console refuses to start when two",
            "commands of one context would share a key:", "", "```toml", "[keys]", "\"list.down\" = [\"n\", \"Down\"]",
            "\"list.up\" = \"p\"", "```", "",
            "Key names: a character, Space, Enter, Esc, Tab, Shift-Tab, Up, Down, Left, Right, PgUp, PgDn, Home, End, F1-F12, Ctrl-A to Ctrl-Z.", "",
        ]
        for context in ActionContext.allCases {
            let commands = all.filter { $0.context == context }
            guard !commands.isEmpty else { continue }
            lines += ["## \(context.rawValue)", "", "| Keys | Action | ID |", "| --- | --- | --- |"]
            for command in commands {
                lines.append("| \(keyNames(command).replacingOccurrences(of: "|", with: "\\|")) | \(command.title)\(command.dangerous ? " (changes data; disabled in read-only profiles)" : "") | `\(command.id.rawValue)` |")
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
