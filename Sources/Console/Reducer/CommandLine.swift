import AppStoreServerAPI
import DeskCore
import Foundation
import TerminalUI

/// The `:` command line.
enum CommandLine {
    /// The console's own `:` commands; each pane adds its own in its description.
    static let appCommands: [ColonCommand] = [
        ColonCommand(["order", "o"], usage: ":order ID", "Look up an order ID", example: "MK5TTTVWJH", perform: lookUp),
        ColonCommand(["tx", "transaction", "id"], usage: ":tx ID", "Look up a transaction ID", example: "2000000123456789", perform: lookUp),
        ColonCommand(["env", "environment"], usage: ":env production|sandbox", "Switch environment", example: "sandbox") { state, _, argument in
            switch argument.lowercased() {
            case "production", "prod": return [.switchEnvironment(.production)]
            case "sandbox": return [.switchEnvironment(.sandbox)]
            default:
                ConsoleReducer.fail(&state, DisplayError(summary: ":env takes production or sandbox."))
                return []
            }
        },
        ColonCommand(["theme"], usage: ":theme NAME", "Switch theme", example: "light") { _, _, argument in [.setTheme(argument)] },
        ColonCommand(["writes", "pending"], usage: ":writes", "Earlier writes with no known outcome") { state, _, _ in
            UnresolvedWritesReducer.reopen(&state)
            return []
        },
        DoctorReducer.colonCommand,
        RetentionReducer.colonCommand,
        ColonCommand(["help"], usage: ":help", "Keys and commands") { state, _, _ in
            OverlayCommands.openHelp(&state)
            return []
        },
        ColonCommand(["quit", "q", "exit"], usage: ":quit", "Quit", unavailable: GlobalCommands.writeInFlight) { state, _, _ in
            state.shouldQuit = true
            return [.quit]
        },
    ]

    /// Every command's name, for Tab completion and the message about an unknown one.
    static var verbs: [String] { ActionRegistry.colonCommands.map(\.name) }

    static func lookUp(_ state: inout ConsoleState, _ verb: String, _ argument: String) -> [ConsoleEffect] {
        state.pane = .customer
        return CustomerReducer.submit(&state, argument)
    }

    /// The verbs that start with what was typed; Tab fills in their common start.
    static func complete(_ text: String) -> (completed: String, candidates: [String]) {
        guard !text.contains(" ") else { return (text, []) }
        let prefix = text.lowercased()
        let candidates = verbs.filter { $0.hasPrefix(prefix) }.sorted()
        guard let first = candidates.first else { return (text, []) }
        var common = first
        for candidate in candidates.dropFirst() {
            while !candidate.hasPrefix(common) { common.removeLast() }
        }
        return (candidates.count == 1 ? common + " " : common, candidates)
    }

    static func handleKey(_ state: inout ConsoleState, _ key: Key) -> [ConsoleEffect] {
        if TextFields.command(state, key) == .inputHelp {
            OverlayCommands.openHelp(&state)
            return []
        }
        switch key {
        case .tab:
            let (completed, candidates) = complete(state.commandInput.text)
            state.commandInput = TextInputState(text: completed, maxLength: ConsoleState.commandLineLength)
            if candidates.count > 1 { ConsoleReducer.toast(&state, candidates.map { ":" + $0 }.joined(separator: "  ")) }
            if candidates.isEmpty, !state.commandInput.text.contains(" ") {
                ConsoleReducer.toast(&state, "No command starts with :\(state.commandInput.text).", isError: true)
            }
            return []
        case .escape:
            state.focus = state.pane == .customer && state.customer == nil ? .paneInput : .content
            return []
        case .enter:
            let text = state.commandInput.text.trimmingCharacters(in: .whitespaces)
            state.focus = .content
            return execute(&state, text)
        default:
            _ = state.commandInput.handle(key)
            return []
        }
    }

    static func execute(_ state: inout ConsoleState, _ text: String) -> [ConsoleEffect] {
        let parts = text.split(separator: " ", maxSplits: 1).map(String.init)
        guard let verb = parts.first?.lowercased() else { return [] }
        // A new command replaces the last one's error; a failing one sets its own.
        state.lastError = nil
        state.toasts.removeAll(where: \.isError)
        let argument = parts.count > 1 ? parts[1].trimmingCharacters(in: .whitespaces) : ""
        guard let command = ActionRegistry.colonCommand(named: verb) else {
            ConsoleReducer.fail(&state, DisplayError(
                summary: "Unknown command :\(verb).", hint: "Commands: " + verbs.map { ":" + $0 }.joined(separator: " ") + ". Tab completes."))
            return []
        }
        if let example = command.example, argument.isEmpty {
            ConsoleReducer.fail(&state, DisplayError(summary: ":\(verb) needs an argument, such as :\(verb) \(example)"))
            return []
        }
        if let reason = command.unavailable(state) {
            ConsoleReducer.fail(&state, DisplayError(summary: reason))
            return []
        }
        return command.perform(&state, verb, argument)
    }

    static func day(_ text: String) -> Date? {
        let parts = text.split(separator: "-").compactMap { Int($0) }
        guard parts.count == 3, (1...12).contains(parts[1]), (1...31).contains(parts[2]) else { return nil }
        var components = DateComponents()
        components.year = parts[0]
        components.month = parts[1]
        components.day = parts[2]
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        return calendar.date(from: components)
    }

    /// A span such as 24h, 7d or 30m (`TimeSpan`); the console's filters take none of zero.
    static func duration(_ text: String) -> TimeInterval? {
        TimeSpan.seconds(text).flatMap { $0 > 0 ? $0 : nil }
    }
}
