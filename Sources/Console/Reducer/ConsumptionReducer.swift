import AppStoreServerAPI
import DeskCore
import Foundation
import TerminalUI

extension ActionContext {
    public static let consumptionForm = ActionContext("Refund request answer form")
    public static let consumptionConfirm = ActionContext("Refund request answer confirmation")
}

extension CommandID {
    public static let transactionsAnswer = CommandID("transactions.answer")
    public static let consumptionReview = CommandID("consumption.review")
    public static let consumptionCancel = CommandID("consumption.cancel")
    public static let consumptionNextField = CommandID("consumption.nextField")
    public static let consumptionPreviousField = CommandID("consumption.previousField")
    public static let consumptionNextValue = CommandID("consumption.nextValue")
    public static let consumptionPreviousValue = CommandID("consumption.previousValue")
    public static let consumptionSend = CommandID("consumption.send")
    public static let consumptionBack = CommandID("consumption.back")
}

/// Answering Apple's refund request (Send Consumption Information v2): the form with values
/// suggested from what is known, `ConsumptionRules` before the confirmation, the confirmation
/// showing the exact request, then the write through the audit ledger.
enum ConsumptionReducer {
    /// The Transactions pane's command: `c` on the selected transaction.
    static let paneCommand = KeyCommand(
        .transactionsAnswer, "Answer Apple's refund request", keys: [.character("c")], context: .transactions, dangerous: true, inFooter: true,
        footerLabel: "Answer",
        unavailable: { state in
            guard let row = PaneRows.selected(TransactionsPane.rows(state), state, .transactions), row.payload?.transactionId != nil else {
                return "Select a transaction first."
            }
            if case .failed = row.status { return "Its signature did not verify: an answer is never based on unverified data." }
            return nil
        },
        perform: { state, _ in openFromTransactions(&state) })

    static let commands: [KeyCommand] = [
        KeyCommand(.consumptionReview, "Review the answer", keys: [.enter], context: .consumptionForm, inFooter: true, footerLabel: "Review",
                   unavailable: { state in
                       state.consumptionForm?.readingQueue == true ? "Reading Apple's refund requests first, for the deadline; Enter works once they are read." : nil
                   }) { state, _ in review(&state) },
        KeyCommand(.consumptionCancel, "Cancel", keys: [.escape], context: .consumptionForm, inFooter: true) { state, _ in
            state.overlay = nil
            state.consumptionForm = nil
            return []
        },
        KeyCommand(.consumptionNextField, "Next field", keys: [.down, .tab], context: .consumptionForm, inFooter: true, footerLabel: "Field") { state, _ in
            edit(&state) { form in form.field = ConsumptionForm.Field(rawValue: (form.field.rawValue + 1) % ConsumptionForm.Field.allCases.count)! }
        },
        KeyCommand(.consumptionPreviousField, "Previous field", keys: [.up, .backTab], context: .consumptionForm, inFooter: true, footerLabel: "Field") { state, _ in
            let count = ConsumptionForm.Field.allCases.count
            return edit(&state) { form in form.field = ConsumptionForm.Field(rawValue: (form.field.rawValue + count - 1) % count)! }
        },
        KeyCommand(.consumptionNextValue, "Next value", keys: [.right, .character(" ")], context: .consumptionForm, inFooter: true, footerLabel: "Value") { state, _ in
            edit(&state) { form in change(&form, by: 1) }
        },
        KeyCommand(.consumptionPreviousValue, "Previous value", keys: [.left], context: .consumptionForm, inFooter: true, footerLabel: "Value") { state, _ in
            edit(&state) { form in change(&form, by: -1) }
        },
        KeyCommand(.consumptionSend, "Send the answer", keys: [.enter, .character("y")], context: .consumptionConfirm, dangerous: true, inFooter: true,
                   footerLabel: "Send",
                   unavailable: { state in
                       ConsumptionOverlay.fits(state) ? nil : "Not sent: the confirmation does not fit this \(state.screenWidth)x\(state.screenHeight) terminal. Enlarge it to read what would be sent."
                   }) { state, _ in send(&state) },
        KeyCommand(.consumptionBack, "Back to the form", keys: [.escape, .character("n")], context: .consumptionConfirm, inFooter: true, footerLabel: "Back") { state, _ in
            edit(&state) { form in form.confirming = false }
        },
    ]

    // MARK: Opening

    /// From the queue: the selected pending request.
    static func open(_ state: inout ConsoleState, request: RefundRequest) -> [ConsoleEffect] {
        guard !state.readOnly else {
            ConsoleReducer.toast(&state, "Read-only profile: answers to refund requests are disabled.", isError: true)
            return []
        }
        guard let transactionId = request.transactionId else {
            ConsoleReducer.toast(&state, "This request carries no transaction ID to answer for.", isError: true)
            return []
        }
        let queue = state.refundRequests.queue
        var form = makeForm(state, transactionId: transactionId, transaction: request.transaction, productId: request.productId)
        form.request = request
        form.queueReadAt = queue?.readAt
        form.requestsComplete = queue?.complete ?? false
        form.environment = request.environment.map(AppStoreEnvironment.init) ?? state.environment
        state.consumptionForm = form
        state.overlay = .consumption
        return []
    }

    /// From a customer's transaction: the queue is read again first, to know whether Apple asked
    /// about it and until when.
    static func openFromTransactions(_ state: inout ConsoleState) -> [ConsoleEffect] {
        guard !state.readOnly else {
            ConsoleReducer.toast(&state, "Read-only profile: answers to refund requests are disabled.", isError: true)
            return []
        }
        guard let customer = state.customer, let row = PaneRows.selected(TransactionsPane.rows(state), state, .transactions),
              let payload = row.payload, let id = payload.transactionId
        else { return [] }
        var form = makeForm(state, transactionId: id, transaction: payload, productId: payload.productId)
        form.environment = customer.environment ?? state.environment
        form.subject = "transaction \(id), \(customer.subject(originalTransactionId: payload.originalTransactionId ?? id))"
        form.customerLookup = customer.lookup
        form.readingQueue = true
        state.consumptionForm = form
        state.overlay = .consumption
        return RefundRequestsPane.load(&state)
    }

    private static func makeForm(_ state: ConsoleState, transactionId: String, transaction: TransactionPayload?, productId: String?) -> ConsumptionForm {
        let suggested = ConsumptionRules.suggested(transaction: transaction, appRefundPreference: state.appRefundPreference, now: state.now)
        let percent = suggested.consumptionPercentage.map { DisplayFormat.percentage($0).replacingOccurrences(of: " %", with: "").replacingOccurrences(of: "%", with: "") } ?? ""
        return ConsumptionForm(
            transactionId: transactionId, productId: productId ?? "-", transaction: transaction, environment: state.environment,
            subject: "transaction \(transactionId)\(productId.map { " (\($0))" } ?? "")", answer: suggested,
            share: TextInputState(text: percent, maxLength: 6))
    }

    /// The queue read for a form opened from a transaction: the request it answers, if any.
    static func queueRead(_ state: inout ConsoleState, _ queue: RefundRequestQueue) {
        guard var form = state.consumptionForm, !form.confirming else { return }
        form.readingQueue = false
        form.queueReadAt = queue.readAt
        form.requestsComplete = queue.complete
        form.request = ConsumptionRules.request(for: form.transactionId, in: queue.requests)
        if case .refused(let refusal) = ConsumptionRules.requestState(form.transactionId, requests: queue.requests, complete: queue.complete, now: state.now) {
            form.refusals = [refusal]
        }
        state.consumptionForm = form
    }

    // MARK: Editing

    private static func edit(_ state: inout ConsoleState, _ change: (inout ConsumptionForm) -> Void) -> [ConsoleEffect] {
        guard var form = state.consumptionForm else {
            state.overlay = nil
            return []
        }
        change(&form)
        state.consumptionForm = form
        return []
    }

    /// ←→ (and space) step the selected field's value; the share field is typed.
    static func change(_ form: inout ConsumptionForm, by delta: Int) {
        form.error = nil
        switch form.field {
        case .delivery:
            form.answer.deliveryStatus = cycled(form.answer.deliveryStatus, DeliveryStatus.knownValues, by: delta)
        case .share:
            form.error = form.takesShare ? "Type the share used, 0 to 100 (%); leave it empty to send none." : "Apple works the share out itself for subscriptions: none is sent."
        case .sample:
            form.answer.sampleContentProvided.toggle()
        case .preference:
            let choices: [RefundPreference?] = [nil] + RefundPreference.knownValues.map { $0 }
            let index = choices.firstIndex(of: form.answer.refundPreference) ?? 0
            form.answer.refundPreference = choices[(index + delta + choices.count) % choices.count]
        case .consent:
            form.answer.customerConsented.toggle()
        }
    }

    private static func cycled<Value: Equatable>(_ value: Value, _ values: [Value], by delta: Int) -> Value {
        let index = values.firstIndex(of: value) ?? 0
        return values[(index + delta + values.count) % values.count]
    }

    /// Keys no command takes: digits type the share; `i` closes the form for a new lookup.
    static func type(_ state: inout ConsoleState, _ key: Key) -> [ConsoleEffect] {
        guard var form = state.consumptionForm, !form.confirming else { return [] }
        if case .character("i") = key {
            state.consumptionForm = nil
            state.overlay = nil
            ConsoleReducer.toast(&state, "Answer form closed: nothing was sent.")
            state.pane = .customer
            state.focus = .paneInput
            state.lookupInput = TextInputState(maxLength: 64)
            return []
        }
        guard form.field == .share else {
            if case .character = key { form.error = "↑↓ choose a field, ←→ or space change it; the share is typed on its own line." }
            state.consumptionForm = form
            return []
        }
        guard form.takesShare else {
            form.error = "Apple works the share out itself for auto-renewable subscriptions: none is sent."
            state.consumptionForm = form
            return []
        }
        switch key {
        case .character(let c) where c.isASCII && (c.isNumber || c == "."):
            _ = form.share.handle(key)
        case .backspace, .delete:
            _ = form.share.handle(key)
        default:
            form.error = "The share takes digits only: 0 to 100 (%)."
            state.consumptionForm = form
            return []
        }
        if case .failure(let refusal) = form.typedShare { form.error = refusal.reason } else { form.error = nil }
        state.consumptionForm = form
        return []
    }

    // MARK: Review and send

    /// Apple's rules first: an answer Apple would refuse or disregard stops here, with its reason
    /// and code; otherwise the confirmation shows the exact request.
    static func review(_ state: inout ConsoleState) -> [ConsoleEffect] {
        guard var form = state.consumptionForm else { return [] }
        defer { state.consumptionForm = form }
        switch form.typedShare {
        case .failure(let refusal):
            form.refusals = [refusal]
            form.error = refusal.reason
            return []
        case .success(let share):
            form.answer.consumptionPercentage = form.takesShare ? share : nil
        }
        // The queue the form was opened with, or the one read since (newer by the time it is confirmed).
        let requests = state.refundRequests.queue?.requests ?? form.request.map { [$0] } ?? []
        let verdict = ConsumptionRules.check(
            form.answer, transactionId: form.transactionId, transaction: form.transaction, requests: requests, requestsComplete: form.requestsComplete,
            now: state.now)
        switch verdict {
        case .refused(let refusals):
            form.refusals = refusals
            form.error = nil
            if let first = refusals.first {
                // Said in the status line too: on a small terminal the form may not show its last lines.
                ConsoleReducer.toast(&state, "Not sent: \(first.description)", isError: true, lasting: 80)
            }
        case .send(_, let request):
            // What an earlier Enter said is no longer so.
            state.toasts.removeAll { $0.isError && $0.text.hasPrefix("Not sent:") }
            form.refusals = []
            form.error = nil
            form.request = request
            form.confirming = true
        }
        return []
    }

    /// The answer the confirmation shows, built from the form's checked values.
    static func target(_ form: ConsumptionForm, seenAt: Date?) -> ConsumptionTarget? {
        guard let request = form.request, let seenAt else { return nil }
        return ConsumptionTarget(
            transactionId: form.transactionId, body: form.answer.body, environment: form.environment, subject: form.subject,
            notificationUUID: request.notificationUUID, deadline: request.deadline, seenLedgerAt: seenAt)
    }

    static func send(_ state: inout ConsoleState) -> [ConsoleEffect] {
        guard var form = state.consumptionForm, form.confirming, let target = target(form, seenAt: form.queueReadAt) else { return [] }
        if let lookup = form.customerLookup, state.customer?.lookup != lookup {
            form.confirming = false
            form.error = "Not sent: the customer on screen changed. Close this form and open it again."
            state.consumptionForm = form
            return []
        }
        state.overlay = nil
        state.consumptionForm = nil
        let request = ConsoleReducer.start(&state, "Answer the refund request for transaction \(target.transactionId)")
        state.consumptionsInFlight[request] = target
        return [.answerConsumption(request: request, target)]
    }

    /// The outcome in words, and the queue read again to show who answered.
    static func answered(_ state: inout ConsoleState, request: Int, _ result: WriteResult<NoContent>) -> [ConsoleEffect] {
        state.inFlight[request] = nil
        guard let sent = state.consumptionsInFlight.removeValue(forKey: request) else { return [] }
        let subject = sent.subject
        switch result {
        case .applied:
            ConsoleReducer.toast(&state, "Answered: Apple has the consumption information for \(subject); its 12 hours end \(DisplayFormat.relative(sent.deadline, now: state.now)).", lasting: 80)
        case .refused(let error):
            let shown = DisplayError(error)
            ConsoleReducer.fail(&state, DisplayError(summary: "Not answered (\(subject)): \(shown.summary)", hint: shown.hint))
        case .notSent(let reason):
            ConsoleReducer.fail(&state, DisplayError(summary: "Not sent (\(subject)): \(reason)."))
        case .unknown(let error):
            ConsoleReducer.fail(&state, DisplayError(
                summary: "The answer for \(subject) may have reached Apple: \(DisplayError(error).summary)",
                hint: "It stays open in the audit ledger: iapdesk consumption \(sent.transactionId) with the same values re-sends it with its identifier, or iapdesk audit resolve closes it after checking."))
        }
        return RefundRequestsPane.load(&state)
    }
}
