import AppStoreServerAPI
import DeskCore
import Foundation
import TerminalUI

extension ActionContext {
    public static let extendForm = ActionContext("Renewal extension form")
    public static let extendConfirm = ActionContext("Renewal extension confirmation")
}

extension CommandID {
    public static let extendReview = CommandID("extend.review")
    public static let extendCancel = CommandID("extend.cancel")
    public static let extendLonger = CommandID("extend.longer")
    public static let extendShorter = CommandID("extend.shorter")
    public static let extendPreviousReason = CommandID("extend.previousReason")
    public static let extendNextReason = CommandID("extend.nextReason")
    public static let extendSend = CommandID("extend.send")
    public static let extendBack = CommandID("extend.back")
}

/// The renewal extension: the form, the confirmation showing the exact request, then the write.
enum ExtendReducer {
    static func open(_ state: inout ConsoleState) -> [ConsoleEffect] {
        guard !state.readOnly else {
            ConsoleReducer.toast(&state, "Read-only profile: renewal extensions are disabled.", isError: true)
            return []
        }
        let rows = SubscriptionsPane.rows(state)
        let index = state.list(.subscriptions).selected
        guard let customer = state.customer, rows.indices.contains(index) else {
            ConsoleReducer.toast(&state, "Select a subscription first.", isError: true)
            return []
        }
        let row = rows[index]
        if let refusal = SubscriptionOffer.extensionRefusal(row) {
            ConsoleReducer.fail(&state, DisplayError(summary: "Not extendable: \(refusal)"))
            return []
        }
        let request = CustomerReducer.start(&state, "Count extensions of \(row.originalTransactionId)")
        state.extendForm = ExtendForm(
            originalTransactionId: row.originalTransactionId, productId: row.transaction?.payload?.productId ?? "-",
            currentRenewal: row.renewal?.payload?.renewalDate ?? row.transaction?.payload?.expiresDate,
            days: TextInputState(text: "7", maxLength: 2, selected: true), earlier: .loading,
            requestIdentifier: "", customerLookup: customer.lookup, environment: customer.environment,
            subject: customer.subject(originalTransactionId: row.originalTransactionId), countRequest: request)
        state.overlay = .extend
        return [.countExtensions(request: request, originalTransactionId: row.originalTransactionId, environment: customer.environment)]
    }

    static func receiveCount(_ state: inout ConsoleState, request: Int, _ result: Result<ExtensionCount, DisplayError>) {
        guard CustomerReducer.isCurrent(state, request), state.extendForm?.countRequest == request else { return }
        state.inFlight[request] = nil
        state.extendForm?.earlier = Loadable(result)
        if let count = result.value, count.total >= 2 {
            state.extendForm?.error = "Refused here: \(ExtensionRules.limitReached(count))"
        }
    }

    static let commands: [KeyCommand] = [
        KeyCommand(.extendReview, "Review the request", keys: [.enter], context: .extendForm, inFooter: true, footerLabel: "Review",
                       unavailable: { state in
                           // Apple allows two a year: the count must be known (or known to be unknown) first.
                           if state.extendForm?.earlier.isLoading == true { return "Counting earlier extensions first; Enter works once they are counted." }
                           return state.extendForm?.reviewRequest != nil ? "Reading the subscription again from Apple; the confirmation follows." : nil
                       }) { state, _ in review(&state) },
        KeyCommand(.extendCancel, "Cancel", keys: [.escape], context: .extendForm, inFooter: true) { state, _ in cancel(&state) },
        KeyCommand(.extendLonger, "One day more", keys: [.up], context: .extendForm, inFooter: true, footerLabel: "Days") { state, _ in
            edit(&state) { form in form.days = TextInputState(text: String(min(90, max(0, form.typedDays ?? 0) + 1)), maxLength: 2); return [] }
        },
        KeyCommand(.extendShorter, "One day fewer", keys: [.down], context: .extendForm, inFooter: true, footerLabel: "Days") { state, _ in
            edit(&state) { form in form.days = TextInputState(text: String(max(1, min(91, form.typedDays ?? 2) - 1)), maxLength: 2); return [] }
        },
        KeyCommand(.extendPreviousReason, "Previous reason", keys: [.left, .character("[")], context: .extendForm, inFooter: true, footerLabel: "Reason") { state, _ in
            edit(&state) { form in form.reason = cycled(form.reason, by: -1); return [] }
        },
        KeyCommand(.extendNextReason, "Next reason", keys: [.right, .character("]")], context: .extendForm, inFooter: true, footerLabel: "Reason") { state, _ in
            edit(&state) { form in form.reason = cycled(form.reason, by: 1); return [] }
        },
        KeyCommand(.extendSend, "Send the extension", keys: [.enter, .character("y")], context: .extendConfirm, dangerous: true, inFooter: true,
                       footerLabel: "Send",
                       unavailable: { state in
                           ExtendOverlay.fits(state) ? nil : "Not sent: the confirmation does not fit this \(state.screenWidth)x\(state.screenHeight) terminal. Enlarge it to read what would be sent."
                       }) { state, _ in send(&state) },
        KeyCommand(.extendBack, "Back to the form", keys: [.escape, .character("n")], context: .extendConfirm, inFooter: true, footerLabel: "Back") { state, _ in
            // Back to change the days: what is typed next replaces them, as when the form opened.
            edit(&state) { form in form.confirming = false; form.days.select(); return [] }
        },
    ]

    /// Keys no command takes: digits and editing keys type into the days field. `i` is the agent
    /// reaching for the lookup field: the form closes (nothing sent) and the field opens, so the
    /// digits of the next ID never land in Days.
    static func type(_ state: inout ConsoleState, _ key: Key) -> [ConsoleEffect] {
        if case .character("i") = key, state.extendForm?.confirming != true {
            let effects = cancel(&state)
            ConsoleReducer.toast(&state, "Extension form closed: nothing was sent.")
            state.pane = .customer
            state.focus = .paneInput
            state.lookupInput = TextInputState(maxLength: 64)
            state.recallIndex = nil
            return effects
        }
        if case .character(let c) = key, !(c.isASCII && c.isNumber), state.extendForm?.confirming != true {
            state.extendForm?.error = "Days takes digits only. Esc closes the form (nothing is sent); i looks up another ID."
            return []
        }
        return edit(&state) { form in
            guard !form.confirming else { return [] }
            switch key {
            case .character(let c) where c.isASCII && c.isNumber:
                let before = form.days
                _ = form.days.handle(key)
                if form.days == before {
                    // A third digit does not fit; said, so no keystroke is dropped without a word.
                    form.error = "Days is one or two digits, at most 90: Backspace first, or ↑ ↓ by a day."
                } else {
                    form.error = form.dayCount == nil ? "Days must be a number from 1 to 90." : nil
                }
            case .backspace, .delete, .paste:
                _ = form.days.handle(key)
                form.error = form.dayCount == nil && !form.days.text.isEmpty ? "Days must be a number from 1 to 90." : nil
            default: break
            }
            return []
        }
    }

    private static func edit(_ state: inout ConsoleState, _ change: (inout ExtendForm) -> [ConsoleEffect]) -> [ConsoleEffect] {
        guard var form = state.extendForm else {
            state.overlay = nil
            return []
        }
        let effects = change(&form)
        state.extendForm = form
        return effects
    }

    private static func cycled(_ reason: ExtendReasonCode, by delta: Int) -> ExtendReasonCode {
        let reasons = ExtendReasonCode.knownValues
        let index = reasons.firstIndex(of: reason) ?? 0
        return reasons[(index + delta + reasons.count) % reasons.count]
    }

    /// A confirmation is drawn from what is true when it is drawn: the subscription and every
    /// earlier extension of it are read again first (another agent, or Apple's own renewal, may
    /// have moved the date since the form opened).
    private static func review(_ state: inout ConsoleState) -> [ConsoleEffect] {
        guard var form = state.extendForm else { return [] }
        if let count = form.earlier.value, count.total >= ExtensionRules.maxPerYear {
            form.error = "Refused here: \(ExtensionRules.limitReached(count))"
            state.extendForm = form
            ConsoleReducer.toast(&state, "Not extended: \(ExtensionRules.limitReached(count))", isError: true, lasting: 80)
            return []
        }
        guard form.dayCount != nil else {
            form.error = "Days must be a number from 1 to 90."
            state.extendForm = form
            return []
        }
        form.error = nil
        let request = CustomerReducer.start(&state, "Read \(form.originalTransactionId) again before confirming")
        form.reviewRequest = request
        state.extendForm = form
        // The identifier is made by the runner's clock-and-UUID source, never here.
        return [.reviewExtension(request: request, originalTransactionId: form.originalTransactionId, environment: form.environment)]
    }

    private static func cancel(_ state: inout ConsoleState) -> [ConsoleEffect] {
        state.overlay = nil
        let open = [state.extendForm?.countRequest, state.extendForm?.reviewRequest].compactMap { $0 }.filter { state.inFlight[$0] != nil }
        for request in open { state.inFlight[request] = nil }
        return open.map { .cancel(request: $0) }
    }

    /// The confirmed request goes out, only while the customer it was made for is on screen.
    private static func send(_ state: inout ConsoleState) -> [ConsoleEffect] {
        guard var form = state.extendForm, let target = form.target else { return [] }
        guard state.customer?.lookup == form.customerLookup else {
            form.confirming = false
            form.error = "Not sent: the customer on screen changed. Close this form and open it again."
            state.extendForm = form
            return []
        }
        state.overlay = nil
        return send(&state, target, customerLookup: form.customerLookup)
    }

    /// Sends an extension and remembers what it was for, to report its result in words.
    static func send(_ state: inout ConsoleState, _ target: ExtendTarget, customerLookup: Int?) -> [ConsoleEffect] {
        let request = customerLookup == nil
            ? ConsoleReducer.start(&state, "Re-send extension \(target.body.requestIdentifier ?? "")")
            : CustomerReducer.start(&state, "Extend \(target.originalTransactionId)")
        state.extensionsInFlight[request] = SentExtension(target: target, customerLookup: customerLookup)
        if let identifier = target.body.requestIdentifier { state.customerWatch.ownWrites.insert(identifier) }
        return [.extend(request: request, target)]
    }

    /// The confirmation opens with what Apple and the ledger said just now, unless that makes the
    /// extension one Apple would refuse.
    static func reviewed(_ state: inout ConsoleState, request: Int, _ result: Result<ExtensionReview, DisplayError>) {
        guard CustomerReducer.isCurrent(state, request), var form = state.extendForm, form.reviewRequest == request else { return }
        state.inFlight[request] = nil
        form.reviewRequest = nil
        defer { state.extendForm = form }
        let review: ExtensionReview
        switch result {
        case .failure(let error):
            form.error = "Not confirmed: the subscription could not be read again (\(error.summary)). Enter tries again."
            return
        case .success(let value): review = value
        }
        let renews = ExtensionRules.renewalDate(review.subscription)
        form.renewalBeforeReview = renews == form.currentRenewal ? nil : form.currentRenewal
        form.currentRenewal = renews
        form.earlier = .loaded(review.count)
        if let refusal = review.refusal {
            form.error = "Refused here: \(refusal)"
            // Said in the status line too: on a small terminal the form may not show its last lines.
            ConsoleReducer.toast(&state, "Not extended: \(refusal)", isError: true, lasting: 80)
            return
        }
        guard state.overlay == .extend, form.dayCount != nil else { return }
        form.requestIdentifier = review.requestIdentifier
        form.confirming = true
    }
}

