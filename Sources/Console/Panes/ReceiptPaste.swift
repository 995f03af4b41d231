import AppStoreServerAPI
import DeskCore
import Foundation
import TerminalUI

extension ActionContext {
    public static let inspector = ActionContext("Inspector")
}

extension CommandID {
    public static let inspectorLookUpPurchase = CommandID("inspector.lookUpPurchase")
}

/// A legacy app receipt pasted into the lookup field or the Inspector (a long base64 starting
/// "MI"): read at once (not verified: it carries no signature iapdesk checks), its purchases
/// listed in the Inspector, and one looked up as a customer.
enum ReceiptPaste {
    /// The lookup field: the original transaction of the latest purchase is looked up; the
    /// Inspector lists every purchase, to pick another.
    static func lookUp(_ state: inout ConsoleState, _ text: String) -> [ConsoleEffect] {
        guard let receipt = read(&state, text) else { return [] }
        guard let id = receipt.originalTransactionIds.first else {
            ConsoleReducer.toast(&state, "Receipt read (not verified): it lists no in-app purchases, so nothing to look up. Its fields: pane 7 (Inspector).", isError: true)
            return []
        }
        let others = receipt.originalTransactionIds.count - 1
        let effects = lookUp(&state, id: id)
        // After the lookup began, which clears the toasts of the customer before.
        ConsoleReducer.toast(&state, "Receipt read (not verified): \(DisplayFormat.count(receipt.inAppPurchases.count, "purchase")); looking up the latest, \(id)."
            + (others > 0 ? " \(DisplayFormat.count(others, "other original transaction")): pane 7 (Inspector), l on one looks it up." : ""))
        return effects
    }

    /// The Inspector: the receipt as a tree.
    static func inspect(_ state: inout ConsoleState, _ text: String) -> [ConsoleEffect] {
        guard read(&state, text) != nil else {
            state.inspected = .idle
            return []
        }
        state.focus = .content
        return []
    }

    /// Reads the receipt into the Inspector; nil (and the reason said) when it cannot be read.
    static func read(_ state: inout ConsoleState, _ text: String) -> AppReceipt? {
        do {
            let receipt = try AppReceiptReader.read(text: text)
            let earlier = state.models[InspectorModel.self].request
            if let earlier { state.inFlight[earlier] = nil }
            state.models[InspectorModel.self].request = nil
            state.inspectorInput = TextInputState(text: text.trimmingCharacters(in: .whitespacesAndNewlines), maxLength: state.inspectorInput.maxLength)
            state.inspected = .loaded(InspectorResult(receipt: receipt))
            state.lists[.inspector] = ListState()
            state.lists[.inspector]?.detailOpen = true
            return receipt
        } catch {
            ConsoleReducer.fail(&state, DisplayError(summary: error.description, hint: "A signed transaction or notification (a JWS) is read by the Inspector (7) as it is."))
            return nil
        }
    }

    static func lookUp(_ state: inout ConsoleState, id: String) -> [ConsoleEffect] {
        state.pane = .customer
        state.lookupInput = TextInputState(text: id, maxLength: 64)
        return CustomerReducer.submit(&state, id)
    }

    /// The purchase the Inspector's selection is in, if a receipt is shown.
    static func selectedPurchase(_ state: ConsoleState) -> InAppPurchaseReceipt? {
        guard let receipt = state.inspected.value?.receipt,
              let path = DetailContent.path(state, .inspector, line: state.list(.inspector).detailSelected) else { return nil }
        let parts = path.split(separator: "/")
        guard parts.count >= 3, parts[0] == "receipt", parts[1] == "purchase", let index = Int(parts[2]) else { return nil }
        let purchases = receipt.newestFirst
        return purchases.indices.contains(index) ? purchases[index] : nil
    }

    static let lookUpCommand = KeyCommand(
        .inspectorLookUpPurchase, "Look up the selected receipt purchase", keys: [.character("l")], context: .inspector, inFooter: true,
        footerLabel: "Look up",
        unavailable: { state in
            guard state.inspected.value?.receipt != nil else { return "Paste a receipt first: l looks up one of its purchases." }
            guard let purchase = selectedPurchase(state), purchase.originalTransactionId ?? purchase.transactionId != nil else {
                return "Select one of the receipt's in-app purchases (↓ to it)."
            }
            return nil
        },
        perform: { state, _ in
            guard let purchase = selectedPurchase(state), let id = purchase.originalTransactionId ?? purchase.transactionId else { return [] }
            return lookUp(&state, id: id)
        })
}
