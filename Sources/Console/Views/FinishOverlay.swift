import AppStoreServerAPI
import DeskCore
import Foundation
import TerminalUI

/// The confirmation of a Finish Transaction: the transaction, the account it goes to, and the
/// exact request, read from the value that is sent.
enum FinishOverlay: ModalOverlay {
    static func modal(_ state: ConsoleState, _ theme: Theme) -> Modal? {
        guard let target = state.finishConfirmation else { return nil }
        var lines: [[Paragraph.Span]] = []
        func row(_ name: String, _ value: String) {
            lines.append([.init(name.padding(toLength: 14, withPad: " ", startingAt: 0), theme[.muted]), .init(value, theme[.modal])])
        }
        let environment = target.environment ?? state.environment
        let environmentLabel = state.isDemo ? "Demo (\(environment.label))" : environment.label
        row("Transaction", target.transactionId)
        row("Product", "\(target.productId) · \(target.productType)")
        row("Purchased", DisplayFormat.date(target.purchaseDate))
        row("Customer", target.subject)
        row("Account", "profile \(state.profileName) · \(environmentLabel) · \(state.bundleId)")
        lines.append([])
        let endpoint = target.endpoint
        lines.append([.init("This exact request will be sent to \(environmentLabel):", theme[.warning])])
        lines.append([.init("\(endpoint.method) \(endpoint.path)", theme[.modal])])
        lines.append([.init("(no body)", theme[.muted])])
        lines.append([.init("Marks the content delivered, as finish() in the app does.", theme[.muted])])
        lines.append([.init("Enter/y send · Esc/n cancel", theme[.footerKey])])
        return Modal(title: "Confirm Finish Transaction", lines: lines, style: theme[.modal], borderStyle: theme[.warning], width: 76)
    }
}
