import AppStoreServerAPI
import Foundation
import TerminalUI

/// The `:` command line.
enum CommandLine {
    /// Every verb `execute` knows, for Tab completion and the message about an unknown one.
    static let verbs = [
        "order", "tx", "env", "theme", "writes", "help", "quit",
        "since", "type", "subtype", "txn", "failures", "all",
        "product", "kind", "sort", "revoked", "from", "to", "ownership", "group", "clear",
    ]

    /// The verbs that start with what was typed; Tab fills in their common start.
    static func complete(_ text: String) -> (completed: String, candidates: [String]) {
        guard !text.contains(" ") else { return (text, []) }
        let prefix = text.lowercased()
        let candidates = verbs.filter { $0.hasPrefix(prefix) }
        guard let first = candidates.first else { return (text, []) }
        var common = first
        for candidate in candidates.dropFirst() {
            while !candidate.hasPrefix(common) { common.removeLast() }
        }
        return (candidates.count == 1 ? common + " " : common, candidates)
    }

    static func handleKey(_ state: inout ConsoleState, _ key: Key) -> [ConsoleEffect] {
        switch key {
        case .tab:
            let (completed, candidates) = complete(state.commandInput.text)
            state.commandInput = TextInputState(text: completed, maxLength: 256)
            if candidates.count > 1 { ConsoleReducer.toast(&state, candidates.map { ":" + $0 }.joined(separator: "  ")) }
            if candidates.isEmpty, !state.commandInput.text.contains(" ") {
                ConsoleReducer.toast(&state, "No command starts with :\(state.commandInput.text).", isError: true)
            }
            return []
        case .escape:
            state.focus = state.pane == .customer && state.customer == nil ? .lookupInput : .content
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
        let argument = parts.count > 1 ? parts[1].trimmingCharacters(in: .whitespaces) : ""
        func needArgument(_ example: String) -> Bool {
            if argument.isEmpty { ConsoleReducer.fail(&state, DisplayError(summary: ":\(verb) needs an argument, such as :\(verb) \(example)")) }
            return !argument.isEmpty
        }
        switch verb {
        case "q", "quit", "exit":
            state.shouldQuit = true
            return [.quit]
        case "order", "o":
            guard needArgument("MK5TTTVWJH") else { return [] }
            state.pane = .customer
            return CustomerReducer.submit(&state, argument)
        case "tx", "transaction", "id":
            guard needArgument("2000000123456789") else { return [] }
            state.pane = .customer
            return CustomerReducer.submit(&state, argument)
        case "env", "environment":
            switch argument.lowercased() {
            case "production", "prod": return [.switchEnvironment(.production)]
            case "sandbox": return [.switchEnvironment(.sandbox)]
            default:
                ConsoleReducer.fail(&state, DisplayError(summary: ":env takes production or sandbox."))
                return []
            }
        case "theme":
            guard needArgument("light") else { return [] }
            return [.setTheme(argument)]
        case "help":
            state.overlay = .help
            return []
        case "writes", "pending":
            UnresolvedWritesReducer.reopen(&state)
            return []
        case "since", "type", "subtype", "txn", "failures", "all":
            return notificationFilter(&state, verb, argument)
        case "product", "kind", "sort", "revoked", "clear", "from", "to", "ownership", "group":
            return historyFilter(&state, verb, argument)
        default:
            ConsoleReducer.fail(&state, DisplayError(
                summary: "Unknown command :\(verb).", hint: "Commands: " + verbs.map { ":" + $0 }.joined(separator: " ") + ". Tab completes."))
            return []
        }
    }

    static func notificationFilter(_ state: inout ConsoleState, _ verb: String, _ argument: String) -> [ConsoleEffect] {
        var f = state.notificationFilters
        switch verb {
        case "since":
            guard let seconds = duration(argument) else {
                ConsoleReducer.fail(&state, DisplayError(summary: ":since takes a span such as 24h, 7d or 30d."))
                return []
            }
            if seconds > state.notificationRetention {
                ConsoleReducer.toast(&state, "\(state.environment.label) keeps \(Int(state.notificationRetention / 86_400)) days of history; showing that.")
            }
            f.since = min(seconds, state.notificationRetention - 3600)
        case "type":
            let type = NotificationType(argument.uppercased())
            guard argument.isEmpty || type.isKnown else {
                ConsoleReducer.fail(&state, DisplayError(summary: "\(argument) is not a notification type.", hint: "Such as DID_RENEW, EXPIRED, REFUND, TEST."))
                return []
            }
            f.type = argument.isEmpty ? nil : type
            f.subtype = nil
            f.transactionId = nil
        case "subtype":
            let subtype = NotificationSubtype(argument.uppercased())
            guard let type = f.type, argument.isEmpty || type.allowedSubtypes.subtypes.contains(subtype) else {
                ConsoleReducer.fail(&state, DisplayError(summary: "Choose a :type first, then one of its subtypes."))
                return []
            }
            f.subtype = argument.isEmpty ? nil : subtype
        case "txn":
            f.transactionId = argument.isEmpty ? nil : argument
            f.type = nil
            f.subtype = nil
        case "failures": f.onlyFailures.toggle()
        default: f = NotificationFilterState()
        }
        state.notificationFilters = f
        state.pane = .notifications
        state.focus = .content
        return NotificationsReducer.load(&state)
    }

    static func historyFilter(_ state: inout ConsoleState, _ verb: String, _ argument: String) -> [ConsoleEffect] {
        var q = state.historyFilters.query
        switch verb {
        case "product": q.productIds = argument.isEmpty ? [] : [argument]
        case "kind":
            let kind = HistoryProductType(argument.uppercased().replacingOccurrences(of: "-", with: "_"))
            guard argument.isEmpty || kind.isKnown else {
                ConsoleReducer.fail(&state, DisplayError(summary: ":kind takes auto-renewable, non-renewable, consumable or non-consumable."))
                return []
            }
            q.productTypes = argument.isEmpty ? [] : [kind]
        case "sort": q.sort = argument.lowercased().hasPrefix("asc") ? .ascending : .descending
        case "from", "to":
            var date: Date?
            if !argument.isEmpty {
                guard let parsed = day(argument) ?? duration(argument).map({ state.now.addingTimeInterval(-$0) }) else {
                    ConsoleReducer.fail(&state, DisplayError(summary: ":\(verb) takes a date such as 2026-11-01 or a span such as 30d."))
                    return []
                }
                date = parsed
            }
            if verb == "from" { q.startDate = date } else { q.endDate = date }
        case "ownership":
            switch argument.lowercased() {
            case "family", "family-shared": q.inAppOwnershipType = .familyShared
            case "purchased": q.inAppOwnershipType = .purchased
            default: q.inAppOwnershipType = nil
            }
        case "group": q.subscriptionGroupIdentifiers = argument.isEmpty ? [] : [argument]
        case "revoked":
            switch argument.lowercased() {
            case "yes", "true": q.revoked = true
            case "no", "false": q.revoked = false
            default: q.revoked = nil
            }
        default: q = TransactionHistoryQuery(sort: .descending)
        }
        state.historyFilters.query = q
        state.pane = .transactions
        state.focus = .content
        guard let anchor = state.customer?.anchorId else {
            ConsoleReducer.toast(&state, "Look up a customer first; the filter applies then.")
            return []
        }
        return TransactionsReducer.load(&state, anchor: anchor)
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

    static func duration(_ text: String) -> TimeInterval? {
        guard let unit = text.last, let amount = Double(text.dropLast()), amount > 0 else { return nil }
        switch unit {
        case "d": return amount * 86_400
        case "h": return amount * 3_600
        case "m": return amount * 60
        default: return nil
        }
    }
}
