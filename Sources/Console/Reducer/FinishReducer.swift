import AppStoreServerAPI
import DeskCore
import Foundation
import TerminalUI

extension ActionContext {
    public static let transactions = ActionContext("Transactions")
    public static let finishConfirm = ActionContext("Finish Transaction confirmation")
}

extension CommandID {
    public static let transactionsFinish = CommandID("transactions.finish")
    public static let finishSend = CommandID("finish.send")
    public static let finishCancel = CommandID("finish.cancel")
}

/// Finish Transaction from the Transactions pane: the selected transaction, a confirmation showing
/// the exact request and the account it goes to, then the write through the audit ledger.
enum FinishReducer {
    /// The pane's command: `f` on the selected transaction.
    static let paneCommand = KeyCommand(
        .transactionsFinish, "Finish transaction", keys: [.character("f")], context: .transactions, dangerous: true, inFooter: true,
        footerLabel: "Finish",
        unavailable: { state in
            guard let row = PaneRows.selected(TransactionsPane.rows(state), state, .transactions) else { return "Select a transaction first." }
            if let refusal = FinishTarget.refusal(row) { return "Not finishable: \(refusal)" }
            if state.finishesInFlight.values.contains(where: { $0.transactionId == row.payload?.transactionId }) {
                return "A Finish Transaction of this transaction is waiting for Apple's answer; its result shows here first."
            }
            return nil
        },
        perform: { state, _ in open(&state) })

    static let commands: [KeyCommand] = [
        KeyCommand(.finishSend, "Send Finish Transaction", keys: [.enter, .character("y")], context: .finishConfirm, dangerous: true,
                       inFooter: true, footerLabel: "Send",
                       unavailable: { state in
                           FinishOverlay.fits(state) ? nil : "Not sent: the confirmation does not fit this \(state.screenWidth)x\(state.screenHeight) terminal. Enlarge it to read what would be sent."
                       }) { state, _ in send(&state) },
        KeyCommand(.finishCancel, "Cancel", keys: [.escape, .character("n")], context: .finishConfirm, inFooter: true) { state, _ in
            state.overlay = nil
            state.finishConfirmation = nil
            return []
        },
    ]

    /// Opens the confirmation for the selected transaction (the command's availability checked it).
    static func open(_ state: inout ConsoleState) -> [ConsoleEffect] {
        guard let customer = state.customer,
              let row = PaneRows.selected(TransactionsPane.rows(state), state, .transactions),
              let payload = row.payload, let id = payload.transactionId
        else { return [] }
        let original = payload.originalTransactionId ?? id
        state.finishConfirmation = FinishTarget(
            transactionId: id, productId: payload.productId ?? "-", productType: payload.type?.label ?? "-",
            purchaseDate: payload.purchaseDate, environment: customer.environment,
            subject: id == original
                ? customer.subject(originalTransactionId: original)
                : "transaction \(id), \(customer.subject(originalTransactionId: original))",
            customerLookup: customer.lookup)
        state.overlay = .finishTransaction
        return []
    }

    /// The confirmed request goes out, only while the customer it was made for is on screen.
    static func send(_ state: inout ConsoleState) -> [ConsoleEffect] {
        guard let target = state.finishConfirmation else {
            state.overlay = nil
            return []
        }
        state.overlay = nil
        state.finishConfirmation = nil
        guard state.customer?.lookup == target.customerLookup else {
            ConsoleReducer.fail(&state, DisplayError(summary: "Not sent: the customer on screen changed. Select the transaction again."))
            return []
        }
        let request = ConsoleReducer.start(&state, "Finish transaction \(target.transactionId)")
        state.finishesInFlight[request] = target
        return [.finishTransaction(request: request, target)]
    }

    /// The outcome in words: what Apple now knows, or why nothing changed.
    static func finished(_ state: inout ConsoleState, request: Int, _ result: WriteResult<NoContent>) {
        state.inFlight[request] = nil
        guard let sent = state.finishesInFlight.removeValue(forKey: request) else { return }
        let subject = "transaction \(sent.transactionId) (\(sent.productId))"
        switch result {
        case .applied:
            ConsoleReducer.toast(&state, "Finished: Apple now knows the content of \(subject) was delivered.", lasting: 60)
        case .refused(let error):
            let shown = DisplayError(error)
            ConsoleReducer.fail(&state, DisplayError(summary: "Not finished (\(subject)): \(shown.summary)", hint: shown.hint))
        case .notSent(let reason):
            ConsoleReducer.fail(&state, DisplayError(summary: "Not sent (\(subject)): \(reason)."))
        case .unknown(let error):
            ConsoleReducer.fail(&state, DisplayError(
                summary: "Finish Transaction of \(subject) may have been applied: \(DisplayError(error).summary)",
                hint: "It stays open in the audit ledger; finishing a transaction again changes nothing, so it is safe to repeat."))
        }
    }
}
