import AppStoreServerAPI
import DeskCore
import Foundation
import TerminalUI

extension Pane {
    public static let customer = Pane("customer")
}

extension ActionContext {
    public static let customer = ActionContext("Customer")
}

extension CommandID {
    public static let customerCaseFile = CommandID("customer.case-file")
}

/// What the customer's reads and the summary's own tasks answer.
enum CustomerAnswer: PaneAnswer {
    /// A part of the customer being looked up.
    case part(CustomerPart)
    /// What the account index holds under the app account token typed.
    case accountLinks(AccountLookup.Found)
    case caseFile(CaseFileTask.Written)
    case notesRead(CaseNotes.Read)
    case noteAdded(CaseNotes.Added)
    /// Others' writes and notes about the customer since the lookup.
    case watched(CustomerWatch.Found)
}

/// One field for any ID, then everything about the customer on one screen. Its lookup loads what
/// the Order, Refunds, Subscriptions and Transactions panes show.
enum CustomerPane {
    static let description = PaneDescription(
        pane: .customer, title: "Customer", shortTitle: "Cust",
        commands: [
            KeyCommand(.customerCaseFile, "Case file", keys: [.character("x")], context: .customer, inFooter: true,
                           unavailable: { state in
                               guard let customer = state.customer, customer.environment != nil else { return "Look up a customer first." }
                               return state.inFlight.isEmpty ? nil : "The customer is still loading; the case file waits for all of it."
                           },
                           perform: { state, _ in CaseFileTask.start(&state) }),
            CaseNotes.command,
        ],
        colonCommands: [CaseNotes.colonCommand],
        selectedID: { $0.customer?.anchorId ?? $0.customer?.query },
        render: CustomerView.render,
        opened: { state in
            state.focus = state.customer == nil ? .paneInput : .content
            return []
        },
        refresh: { state in
            guard let customer = state.customer else { return [] }
            return CustomerReducer.submit(&state, customer.query)
        },
        answers: .of(CustomerAnswer.self) { state, request, answer in
            switch answer {
            case .part(let part): return CustomerReducer.receive(&state, request: request, part)
            case .accountLinks(let found): return AccountLookup.receive(&state, request: request, found)
            case .caseFile(let written): return CaseFileTask.written(&state, written)
            case .notesRead(let read): CaseNotes.receive(&state, read)
            case .noteAdded(let added): CaseNotes.receive(&state, added)
            case .watched(let found): CustomerWatch.receive(&state, found)
            }
            return []
        },
        cancelled: { state in
            CustomerReducer.markCancelled(&state)
            // A note cancelled with Esc may or may not have been kept: the next read of the notes says.
            state.caseNotes.adding = 0
            state.caseNotes.stale = true
        },
        tick: { CaseNotes.tick(&$0) + CustomerWatch.tick(&$0) },
        input: handleLookupKey,
        intercept: { state, key, command in
            // The summary is text, not rows: the list keys scroll it, a page being the lines it shows.
            let screen = Rect(x: 0, y: 0, width: state.screenWidth, height: state.screenHeight)
            let visible = max(1, PaneLayout.inner(PaneLayout.rows(screen)[3]).height - 2)
            guard let command, let delta = ListNavigation.scroll(command.id, key: key, page: visible), !state.list(.customer).detailOpen else { return nil }
            var list = state.list(.customer)
            let last = max(0, CustomerView.summaryLineCount(state) - visible)
            list.offset = min(max(0, list.offset + delta), last)
            state.lists[.customer] = list
            return []
        }
    )

    /// Every printable key is text here, `:` `?` `/` `q` included: an ID read out from a receipt
    /// ("Order ID: MK5TTTVWJH") is typed as it is written. Esc leaves the field for the commands.
    static func handleLookupKey(_ state: inout ConsoleState, _ key: Key) -> [ConsoleEffect] {
        if TextFields.command(state, key) == .inputRecall { return recall(&state, key) }
        switch key {
        case .escape:
            if !state.inFlight.isEmpty { return ConsoleReducer.cancelAll(&state) }
            state.focus = .content
            showTheCustomersID(&state)
            return []
        case .tab, .backTab:
            showTheCustomersID(&state)
            return TextFields.handle(&state, key, field: \.lookupInput) { _ in [] }
        case .character("i") where state.lookupInput.text.isEmpty || state.lookupInput.text == state.customer?.query:
            // `i` is "look up an ID" everywhere: pressed in the field when it is empty, or still holds
            // the ID just looked up, it starts a new lookup rather than typing an i in front of the next ID.
            state.lookupInput = TextInputState(maxLength: state.lookupInput.maxLength)
            state.recallIndex = nil
            return []
        case .paste(let text) where AppReceiptReader.looksLikeReceipt(text):
            return ReceiptPaste.lookUp(&state, text)
        case .paste(let text) where text.count > state.lookupInput.maxLength:
            // No ID is that long: a cut-off piece of it would only be looked up by mistake.
            ConsoleReducer.toast(&state, "Nothing pasted: \(text.count) characters is no ID (order IDs have up to 20, transaction IDs up to 40).", isError: true)
            return []
        default:
            return TextFields.handle(&state, key, field: \.lookupInput) { state in CustomerReducer.submit(&state, state.lookupInput.text) }
        }
    }

    /// Leaving the field without Enter: it names the customer on screen again, never an ID typed
    /// over it that was not looked up.
    static func showTheCustomersID(_ state: inout ConsoleState) {
        guard let customer = state.customer, IDKind.classify(state.lookupInput.text) != IDKind.classify(customer.query) else { return }
        state.lookupInput = TextInputState(text: customer.query, maxLength: state.lookupInput.maxLength)
    }

    /// ↑ walks back through recent IDs, ↓ forward (and out of the field past the newest).
    static func recall(_ state: inout ConsoleState, _ key: Key) -> [ConsoleEffect] {
        // The command's first key goes back in time, the others forward.
        let keys = state.keymap.commands.first { $0.id == .inputRecall }?.keys ?? [.up, .down]
        if key == keys.first {
            guard !state.recentLookups.isEmpty else { return [] }
            let index = min((state.recallIndex ?? -1) + 1, state.recentLookups.count - 1)
            state.recallIndex = index
            state.lookupInput = TextInputState(text: state.recentLookups[index], maxLength: 64)
            return []
        }
        guard let index = state.recallIndex else {
            state.focus = .content
            showTheCustomersID(&state)
            return []
        }
        state.recallIndex = index > 0 ? index - 1 : nil
        state.lookupInput = TextInputState(text: state.recallIndex.map { state.recentLookups[$0] } ?? "", maxLength: 64)
        return []
    }
}
