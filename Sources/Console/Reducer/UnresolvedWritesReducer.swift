import AppStoreServerAPI
import DeskCore
import Foundation
import TerminalUI

extension ActionContext {
    public static let unresolvedWrite = ActionContext("Unfinished write")
}

extension CommandID {
    public static let writesResend = CommandID("writes.resend")
    public static let writesResolve = CommandID("writes.resolve")
    public static let writesLater = CommandID("writes.later")
}

/// Writes of earlier sessions with no known outcome: shown one at a time until the agent re-sends
/// one, closes it after checking, or leaves it for later (it stays in the status line).
enum UnresolvedWritesReducer {
    /// The start-up plan: recent extensions are re-sent at once, the rest is asked about.
    static func start(_ state: inout ConsoleState, _ plan: WriteReconciler.Plan) -> [ConsoleEffect] {
        var effects: [ConsoleEffect] = []
        for write in plan.resend {
            guard let target = write.extend else { continue }
            ConsoleReducer.toast(&state, "Re-sending an unfinished extension of \(target.subject) with its request identifier \(write.record.requestIdentifier).", lasting: 100)
            effects += ExtendReducer.send(&state, target, customerLookup: nil)
        }
        state.unresolvedWrites = plan.ask
        if !plan.ask.isEmpty, state.overlay == nil { state.overlay = .unresolvedWrite }
        if !plan.otherAgents.isEmpty {
            let agents = Set(plan.otherAgents.compactMap(\.intent.agent)).sorted().joined(separator: ", ")
            ConsoleReducer.toast(
                &state, "\(plan.otherAgents.count) write\(plan.otherAgents.count == 1 ? "" : "s") of this account by \(agents) without an outcome yet: theirs to finish (iapdesk audit --unresolved)")
        }
        if !plan.otherAccounts.isEmpty {
            ConsoleReducer.toast(
                &state, "\(plan.otherAccounts.count) unfinished write\(plan.otherAccounts.count == 1 ? "" : "s") of other profiles or accounts left untouched: iapdesk audit --unresolved",
                isError: true, lasting: 100)
        }
        return effects
    }

    static let commands: [KeyCommand] = [
        KeyCommand(.writesResend, "Re-send with its request identifier", keys: [.character("s")], context: .unresolvedWrite, dangerous: true,
                       inFooter: true, footerLabel: "Re-send",
                       unavailable: { state in
                           state.unresolvedWrites.first.map { $0.extend == nil } == true
                               ? "Only extensions are re-sent here; run this write again from the command line (iapdesk audit --unresolved shows it)." : nil
                       }) { state, _ in
            guard let write = state.unresolvedWrites.first, let target = write.extend else { return [] }
            state.unresolvedWrites.removeFirst()
            close(&state)
            ConsoleReducer.toast(&state, "Re-sending the extension of \(target.subject) with its request identifier \(write.record.requestIdentifier).", lasting: 100)
            return ExtendReducer.send(&state, target, customerLookup: nil)
        },
        KeyCommand(.writesResolve, "Mark resolved after checking", keys: [.character("r")], context: .unresolvedWrite, inFooter: true,
                       footerLabel: "Mark resolved") { state, _ in
            guard let write = state.unresolvedWrites.first else { return [] }
            state.unresolvedWrites.removeFirst()
            close(&state)
            return [.resolveWrite(write, note: "closed in the console by the agent after checking")]
        },
        KeyCommand(.writesLater, "Decide later", keys: [.character("l"), .escape, .character("q")], context: .unresolvedWrite, inFooter: true,
                       footerLabel: "Later") { state, _ in
            // Left for later: it stays counted in the status line and comes back with :writes.
            state.overlay = nil
            return []
        },
    ]

    static func reopen(_ state: inout ConsoleState) {
        if state.unresolvedWrites.isEmpty {
            ConsoleReducer.toast(&state, "No unfinished writes of this account.")
        } else {
            state.overlay = .unresolvedWrite
        }
    }

    static func resolved(_ state: inout ConsoleState, requestIdentifier: String, _ result: Result<Void, DisplayError>) {
        switch result {
        case .success: ConsoleReducer.toast(&state, "Write \(requestIdentifier) marked resolved in the audit ledger.")
        case .failure(let error): ConsoleReducer.fail(&state, error)
        }
    }

    private static func close(_ state: inout ConsoleState) {
        state.overlay = state.unresolvedWrites.isEmpty ? nil : .unresolvedWrite
    }
}

extension ConsoleReducer {
    /// What the console does at start about earlier writes with no known outcome.
    public static func reconcile(_ state: inout ConsoleState, _ plan: WriteReconciler.Plan) -> [ConsoleEffect] {
        UnresolvedWritesReducer.start(&state, plan)
    }
}
