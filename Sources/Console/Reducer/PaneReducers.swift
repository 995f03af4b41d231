import AppStoreServerAPI
import Foundation
import TerminalUI

enum TransactionsReducer {
    static func load(_ state: inout ConsoleState, anchor: String) -> [ConsoleEffect] {
        state.transactionsPane = .loading
        state.partialNote[.transactions] = nil
        let request = CustomerReducer.start(&state, "Transaction history \(anchor)")
        return [.loadHistory(request: request, anchorId: anchor, query: state.historyFilters.query, environment: state.customer?.environment)]
    }
}

enum NotificationsReducer {
    static func load(_ state: inout ConsoleState) -> [ConsoleEffect] {
        state.notificationsPane = .loading
        state.partialNote[.notifications] = nil
        let f = state.notificationFilters
        let request = ConsoleReducer.start(&state, "Notification history")
        let since = min(f.since, state.notificationRetention - 3600)
        return [.loadNotifications(request: request, filters: NotificationRequestSpec(
            since: since, type: f.type, subtype: f.subtype, transactionId: f.transactionId, onlyFailures: f.onlyFailures))]
    }

    static func requestTest(_ state: inout ConsoleState) -> [ConsoleEffect] {
        state.testNotification = TestNotificationState()
        let request = ConsoleReducer.start(&state, "Request a Test Notification")
        return [.requestTestNotification(request: request)]
    }
}

enum InspectorReducer {
    static func handleKey(_ state: inout ConsoleState, _ key: Key) -> [ConsoleEffect] {
        switch key {
        case .paste(let text):
            // A paste is a whole document: it replaces the field and is verified at once, so keys
            // typed meanwhile reach the report, not the pasted text.
            state.inspectorInput = TextInputState(maxLength: state.inspectorInput.maxLength)
            _ = state.inspectorInput.handle(.paste(text))
            return submit(&state)
        case .enter:
            return submit(&state)
        case .escape, .tab, .backTab:
            state.focus = .content
            if key == .tab || key == .backTab { return ConsoleReducer.switchPane(&state, by: key == .tab ? 1 : -1) }
            return []
        default:
            _ = state.inspectorInput.handle(key)
            return []
        }
    }

    static func submit(_ state: inout ConsoleState) -> [ConsoleEffect] {
        let text = state.inspectorInput.text
        guard text.utf8.contains(where: { $0 != UInt8(ascii: " ") }) else {
            ConsoleReducer.toast(&state, "Paste signed data first: a JWS, a webhook body or an API response.", isError: true)
            return []
        }
        state.inspected = .loading
        state.focus = .content
        let request = ConsoleReducer.start(&state, "Verify signed data")
        return [.inspect(request: request, text: text)]
    }
}

/// The renewal extension: the form, the confirmation showing the exact request, then the write.
enum ExtendReducer {
    static func open(_ state: inout ConsoleState) -> [ConsoleEffect] {
        guard !state.readOnly else {
            ConsoleReducer.toast(&state, "Read-only profile: renewal extensions are disabled.", isError: true)
            return []
        }
        let rows = PaneRows.subscriptions(state)
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
        state.extendForm?.earlier = CustomerReducer.loadable(result)
        if let count = result.value, count.total >= 2 {
            state.extendForm?.error = "Apple allows two extensions of a subscription in 365 days; this one would be refused (4030005)."
        }
    }

    static func handleKey(_ state: inout ConsoleState, _ key: Key) -> [ConsoleEffect] {
        guard var form = state.extendForm else {
            state.overlay = nil
            return []
        }
        defer { state.extendForm = form }
        if form.confirming {
            switch key {
            case .enter, .character("y"):
                guard let body = form.request else { return [] }
                // Only the customer on screen can be written to.
                guard state.customer?.lookup == form.customerLookup else {
                    form.confirming = false
                    form.error = "Not sent: the customer on screen changed. Close this form and open it again."
                    return []
                }
                state.overlay = nil
                let target = ExtendTarget(originalTransactionId: form.originalTransactionId, body: body, environment: form.environment, subject: form.subject)
                return ExtendReducer.send(&state, target, customerLookup: form.customerLookup)
            case .escape, .character("n"):
                form.confirming = false
            default: break
            }
            return []
        }
        switch key {
        case .escape:
            state.overlay = nil
            if let count = form.countRequest, state.inFlight[count] != nil {
                state.inFlight[count] = nil
                return [.cancel(request: count)]
            }
            return []
        case .left, .character("["):
            let reasons = ExtendReasonCode.knownValues
            let index = reasons.firstIndex(of: form.reason) ?? 0
            form.reason = reasons[(index + reasons.count - 1) % reasons.count]
        case .right, .character("]"):
            let reasons = ExtendReasonCode.knownValues
            let index = reasons.firstIndex(of: form.reason) ?? 0
            form.reason = reasons[(index + 1) % reasons.count]
        case .up:
            form.days = TextInputState(text: String(min(90, (form.dayCount ?? 0) + 1)), maxLength: 2)
        case .down:
            form.days = TextInputState(text: String(max(1, (form.dayCount ?? 2) - 1)), maxLength: 2)
        case .enter:
            if let count = form.earlier.value, count.total >= 2 {
                form.error = "Refused here: \(count.summary). Apple allows two in 365 days."
                return []
            }
            guard form.dayCount != nil else {
                form.error = "Days must be a number from 1 to 90."
                return []
            }
            form.error = nil
            // The identifier is made by the runner's clock-and-UUID source, never here.
            return [.prepareExtension]
        case .character(let c) where c.isASCII && c.isNumber:
            _ = form.days.handle(key)
            form.error = form.dayCount == nil ? "Days must be a number from 1 to 90." : nil
        case .backspace, .delete, .paste:
            _ = form.days.handle(key)
            form.error = form.dayCount == nil && !form.days.text.isEmpty ? "Days must be a number from 1 to 90." : nil
        default: break
        }
        return []
    }

    /// Sends an extension and remembers what it was for, to report its result in words.
    static func send(_ state: inout ConsoleState, _ target: ExtendTarget, customerLookup: Int?) -> [ConsoleEffect] {
        let request = customerLookup == nil
            ? ConsoleReducer.start(&state, "Re-send extension \(target.body.requestIdentifier ?? "")")
            : CustomerReducer.start(&state, "Extend \(target.originalTransactionId)")
        state.extensionsInFlight[request] = SentExtension(target: target, customerLookup: customerLookup)
        return [.extend(request: request, target)]
    }

    /// The confirmation opens once the request has its identifier.
    static func prepared(_ state: inout ConsoleState, requestIdentifier: String) {
        guard state.overlay == .extend, var form = state.extendForm, !form.confirming, form.dayCount != nil else { return }
        form.requestIdentifier = requestIdentifier
        form.confirming = true
        state.extendForm = form
    }
}

/// Results of writes and of the test notification round trip.
enum WriteResultReducer {
    static func receive(_ state: inout ConsoleState, _ action: ConsoleAction) -> [ConsoleEffect] {
        switch action {
        case .extended(let request, let result):
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
                    // A re-send at start reports as long as its announcement did.
                    ConsoleReducer.toast(
                        &state, "\(sent.target.isResend ? "Re-sent and applied" : "Extended"): \(subject) renews \(DisplayFormat.date(response.effectiveDate)).",
                        lasting: sent.target.isResend ? 100 : nil)
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
        case .testRequested(let request, let result):
            guard state.inFlight[request] != nil else { return [] }
            switch result {
            case .success(let token):
                state.testNotification?.token = token
                ConsoleReducer.toast(&state, "Test notification requested: \(token)")
                return [.pollTestNotification(request: request, token: token, delay: 0.5)]
            case .failure(let error):
                state.inFlight[request] = nil
                state.testNotification?.error = error
                state.testNotification?.finished = true
                ConsoleReducer.fail(&state, error)
            }
        case .testStatus(let request, let result):
            guard state.inFlight[request] != nil, var test = state.testNotification, let token = test.token else { return [] }
            test.polls += 1
            switch result {
            case .success(let status):
                test.attempts = status.sendAttempts ?? []
                test.finished = true
                state.inFlight[request] = nil
                let delivered = test.attempts.contains { $0.sendAttemptResult == .success }
                ConsoleReducer.toast(&state, delivered ? "Test notification delivered." : "Test notification not delivered: \(test.attempts.last?.sendAttemptResult?.rawValue ?? "no result").", isError: !delivered)
                state.testNotification = test
                return NotificationsReducer.load(&state)
            case .failure(let error):
                if error.code == .testNotificationNotFound && test.polls < 60 {
                    state.testNotification = test
                    return [.pollTestNotification(request: request, token: token, delay: 1)]
                }
                test.error = error
                test.finished = true
                state.inFlight[request] = nil
                ConsoleReducer.fail(&state, error)
            }
            state.testNotification = test
        default: break
        }
        return []
    }
}
