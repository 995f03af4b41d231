import AppStoreServerAPI
import DeskCore
import Foundation
import TerminalUI

/// The outcome of an extension, in words, and a reload of the customer it changed.
enum WriteResultReducer {
    /// How the ledger words a refusal because another write to the same subscription came first.
    static let changedMeanwhile = "changed meanwhile: "

    static func extended(_ state: inout ConsoleState, request: Int, _ result: WriteResult<ExtendRenewalDateResponse>) -> [ConsoleEffect] {
        state.inFlight[request] = nil
        guard let sent = state.extensionsInFlight.removeValue(forKey: request) else { return [] }
        let subject = sent.target.subject
        let identifier = sent.target.body.requestIdentifier ?? "-"
        if state.extendForm?.customerLookup == sent.customerLookup { state.extendForm = nil }
        // Refresh only the customer the write was for, if still on screen, to show what is true.
        let sameCustomer = sent.customerLookup != nil && state.customer?.lookup == sent.customerLookup
        var refresh = false
        switch result {
        case .applied(let response):
            if response.success == false {
                ConsoleReducer.toast(&state, "Apple answered but did not apply the extension of \(subject).", isError: true)
            } else {
                // A re-send at start reports as long as its announcement did. The date comes first:
                // at 80 columns the subject is what gets cut, not the date the customer is told.
                ConsoleReducer.toast(
                    &state,
                    "\(sent.target.isResend ? "Re-sent and applied" : "Extended") to \(DisplayFormat.date(response.effectiveDate)): \(subject).",
                    lasting: sent.target.isResend ? 100 : 80)
            }
            refresh = sameCustomer
        case .refused(let error):
            let shown = DisplayError(error)
            if case .server(let failure) = error, failure.code == .subscriptionMaxExtension {
                // An answer, not a fault: the yearly limit is reached.
                ConsoleReducer.toast(&state, "Not extended: Apple says the two yearly extensions are used (4030005). Nothing changed.", lasting: 150)
            } else {
                ConsoleReducer.fail(&state, DisplayError(summary: "Not extended (\(subject)): \(shown.summary)", hint: shown.hint))
            }
        case .notSent(let reason) where reason.hasPrefix(changedMeanwhile):
            // Another write came first: what the agent must do fits an 80-column status line, who
            // came first follows as the hint, and the subscription is reloaded as after a success.
            let detail = reason.dropFirst(changedMeanwhile.count).replacingOccurrences(of: "; review it again", with: "")
            ConsoleReducer.fail(&state, DisplayError(summary: "Not sent: changed meanwhile. Reloaded; review it again (e).",
                                                     hint: detail.prefix(1).uppercased() + detail.dropFirst() + "."))
            refresh = sameCustomer
        case .notSent(let reason):
            ConsoleReducer.fail(&state, DisplayError(summary: "Not sent (\(subject)): \(reason)."))
        case .unknown(let error):
            ConsoleReducer.fail(&state, DisplayError(
                summary: "The extension of \(subject) may have been applied: \(DisplayError(error).summary)",
                hint: "Request \(identifier) stays open in the audit ledger; the subscription is reloaded to show what is true, and a re-send reuses the identifier."))
            refresh = sameCustomer
        }
        if refresh, let anchor = state.customer?.anchorId {
            return CustomerReducer.loadCustomer(&state, anchor: anchor, includeTransaction: false)
        }
        return []
    }
}
