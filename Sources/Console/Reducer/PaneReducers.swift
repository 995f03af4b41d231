import AppStoreServerAPI
import Foundation
import TerminalUI

enum TransactionsReducer {
    static func load(_ state: inout ConsoleState, anchor: String) -> [ConsoleEffect] {
        state.transactionsPane = .loading
        let request = ConsoleReducer.start(&state, "Transaction history \(anchor)")
        return [.loadHistory(request: request, anchorId: anchor, query: state.historyFilters.query)]
    }
}

enum NotificationsReducer {
    static func load(_ state: inout ConsoleState) -> [ConsoleEffect] {
        state.notificationsPane = .loading
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
        case .enter:
            let text = state.inspectorInput.text.trimmingCharacters(in: .whitespacesAndNewlines)
            guard !text.isEmpty else {
                ConsoleReducer.toast(&state, "Paste a JWS first (a notification, transaction, renewal info or app transaction).", isError: true)
                return []
            }
            state.inspected = .loading
            state.focus = .content
            let request = ConsoleReducer.start(&state, "Verify JWS")
            return [.inspect(request: request, text: text)]
        case .escape, .tab, .backTab:
            state.focus = .content
            if key == .tab || key == .backTab { return ConsoleReducer.switchPane(&state, by: key == .tab ? 1 : -1) }
            return []
        default:
            _ = state.inspectorInput.handle(key)
            return []
        }
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
        guard rows.indices.contains(index) else {
            ConsoleReducer.toast(&state, "Select a subscription first.", isError: true)
            return []
        }
        let row = rows[index]
        let count = extensionsLastYear(state)
        state.extendForm = ExtendForm(
            originalTransactionId: row.originalTransactionId, productId: row.transaction?.payload?.productId ?? "-",
            currentRenewal: row.renewal?.payload?.renewalDate ?? row.transaction?.payload?.expiresDate,
            days: TextInputState(text: "7", maxLength: 2, selected: true), extensionsLastYear: count,
            requestIdentifier: UUID().uuidString.lowercased())
        if count >= 2 {
            state.extendForm?.error = "Apple allows two extensions per customer in 365 days; this one would be refused."
        }
        state.overlay = .extend
        return []
    }

    /// RENEWAL_EXTENDED notifications in the loaded history, plus extensions this console sent.
    static func extensionsLastYear(_ state: ConsoleState) -> Int {
        let yearAgo = Date().addingTimeInterval(-365 * 86_400)
        let notified = (state.customer?.notifications.value ?? []).filter {
            $0.payload?.notificationType == .renewalExtended && ($0.payload?.signedDate ?? .distantPast) > yearAgo
        }
        return notified.count
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
                state.overlay = nil
                let request = ConsoleReducer.start(&state, "Extend \(form.originalTransactionId)")
                return [.extend(request: request, originalTransactionId: form.originalTransactionId, body: body)]
            case .escape, .character("n"):
                form.confirming = false
            default: break
            }
            return []
        }
        switch key {
        case .escape:
            state.overlay = nil
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
            if form.extensionsLastYear >= 2 {
                form.error = "Refused here: this customer already had two extensions in the last 365 days."
                return []
            }
            guard form.dayCount != nil else {
                form.error = "Days must be a number from 1 to 90."
                return []
            }
            form.error = nil
            form.confirming = true
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
}

/// Results of writes and of the test notification round trip.
enum WriteResultReducer {
    static func receive(_ state: inout ConsoleState, _ action: ConsoleAction) -> [ConsoleEffect] {
        switch action {
        case .extended(let request, let result):
            state.inFlight[request] = nil
            switch result {
            case .success(let response):
                ConsoleReducer.toast(&state, "Extended: renews \(DisplayFormat.date(response.effectiveDate)).")
                state.extendForm = nil
                if let anchor = state.customer?.anchorId {
                    return CustomerReducer.loadCustomer(&state, anchor: anchor, includeTransaction: false)
                }
            case .failure(let error):
                ConsoleReducer.fail(&state, error)
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
                if error.summary.contains("4040008") && test.polls < 60 {
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
