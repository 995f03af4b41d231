import AppStoreServerAPI
import DeskCore
import Foundation
import NotificationReconcile
import TerminalUI

extension Pane {
    public static let notifications = Pane("notifications")
}

extension ActionContext {
    public static let notifications = ActionContext("Notifications")
}

extension CommandID {
    public static let notificationsTest = CommandID("notifications.test")
    public static let notificationsFailures = CommandID("notifications.failures")
    public static let notificationsRange = CommandID("notifications.range")
}

/// The Notifications pane's own state: Apple's history, its filters, and a test round trip.
public struct NotificationsModel: PaneModel {
    public var rows: Loadable<[NotificationRow]> = .idle
    public var filters = NotificationFilterState()
    public var test: TestNotificationState?
    /// The load whose answer the rows are: only its answers are shown, whatever order they come in.
    public var request: Int?
    /// What that load asked Apple for.
    public var spec: NotificationRequestSpec?
    /// Whether any row has a subtype: worked out once per answer, not at every frame.
    public var hasSubtypes = false
    public init() {}
}

extension ConsoleState {
    public var notificationsPane: Loadable<[NotificationRow]> {
        get { models[NotificationsModel.self].rows }
        set {
            models[NotificationsModel.self].rows = newValue
            models[NotificationsModel.self].hasSubtypes = newValue.value?.contains { $0.payload?.subtype != nil } ?? false
        }
    }

    public var notificationFilters: NotificationFilterState {
        get { models[NotificationsModel.self].filters }
        set { models[NotificationsModel.self].filters = newValue }
    }

    public var testNotification: TestNotificationState? {
        get { models[NotificationsModel.self].test }
        set { models[NotificationsModel.self].test = newValue }
    }
}

/// What the Notifications pane's reads and its test notification answer.
enum NotificationsAnswer: PaneAnswer {
    /// Apple's notification history as far as it has arrived; `.history` follows.
    case historySoFar([NotificationRow], pages: Int)
    case history(Result<[NotificationRow], DisplayError>)
    /// Request a Test Notification: its token.
    case testRequested(Result<String, DisplayError>)
    case testStatus(Result<CheckTestNotificationResponse, DisplayError>)
}

/// Apple's notification history of the app with every send attempt, and test notifications.
enum NotificationsPane {
    static let description = PaneDescription(
        pane: .notifications, title: "Notifications", shortTitle: "Ntfs", rowNoun: "notifications", showsCustomer: false,
        commands: commands, colonCommands: colonCommands,
        rowCount: { rows($0).count },
        selectedID: { PaneRows.selected(rows($0), $0, .notifications)?.payload?.notificationUUID },
        rowIDs: { rows($0).map { $0.payload?.notificationUUID } },
        detail: { state in
            PaneRows.selected(rows(state), state, .notifications).map { row in
                let arrival = state.receivedHere.arrivals.map { arrivals in row.payload?.notificationUUID.flatMap { arrivals[$0.lowercased()] } }
                let verdict = row.payload?.notificationUUID.flatMap { state.receivedHere.verdicts[$0.lowercased()] }
                return DetailContent.notificationTree(row, environment: state.environment, arrival: arrival, verdict: verdict)
            }
        },
        table: { state, inner in
            var body = PaneLayout.belowHeading(inner)
            if state.testNotification != nil { body.height -= 5 }
            return body
        },
        render: NotificationsView.render,
        opened: { state in
            state.focus = .content
            if case .idle = state.notificationsPane { return load(&state) }
            return []
        },
        refresh: load,
        answers: .of(NotificationsAnswer.self, receive),
        cancelled: { state in
            if state.notificationsPane.isLoading { state.notificationsPane = .failed(PaneReducer.cancelled) }
            PaneReducer.markPartial(&state, .notifications, count: state.notificationsPane.value?.count ?? 0)
        },
        reset: { state in
            state.notificationsPane = .idle
            state.models[NotificationsModel.self].request = nil
        }
    )

    static func rows(_ state: ConsoleState) -> [NotificationRow] {
        PaneRows.filtered(state.notificationsPane.value ?? [], state.filters[.notifications]) { row in
            ([row.payload?.notificationType?.rawValue ?? "", row.payload?.subtype?.rawValue ?? "", row.payload?.notificationUUID ?? ""]
                + row.attempts.compactMap { $0.sendAttemptResult?.rawValue }).joined(separator: " ")
        }
    }

    static let commands: [KeyCommand] = [
        KeyCommand(.notificationsTest, "Test notification", keys: [.character("t")], context: .notifications, inFooter: true,
                       unavailable: { state in
                           state.testNotification.map { !$0.finished } == true ? "A test notification is on its way; its result shows below." : nil
                       },
                       perform: { state, _ in requestTest(&state) }),
        KeyCommand(.notificationsFailures, "Undelivered only", keys: [.character("f")], context: .notifications, inFooter: true) { state, _ in
            state.notificationFilters.onlyFailures.toggle()
            return load(&state)
        },
        KeyCommand(.notificationsRange, "Range 1d/7d/30d/max", keys: [.character("d")], context: .notifications, inFooter: true) { state, _ in
            let ranges: [TimeInterval] = [86_400, 7 * 86_400, 30 * 86_400, state.notificationRetention - 3600]
            let next = ranges.first { $0 > state.notificationFilters.since + 1 } ?? ranges[0]
            state.notificationFilters.since = min(next, state.notificationRetention - 3600)
            return load(&state)
        },
    ]

    static func load(_ state: inout ConsoleState) -> [ConsoleEffect] {
        state.notificationsPane = .loading
        state.partialNote[.notifications] = nil
        let f = state.notificationFilters
        let earlier = PaneReducer.supersede(&state, state.models[NotificationsModel.self].request)
        let request = ConsoleReducer.start(&state, "Notification history", owner: .notifications)
        state.models[NotificationsModel.self].request = request
        let since = min(f.since, state.notificationRetention - 3600)
        let spec = NotificationRequestSpec(since: since, type: f.type, subtype: f.subtype, transactionId: f.transactionId, onlyFailures: f.onlyFailures)
        state.models[NotificationsModel.self].spec = spec
        return [.task(PaneTask(request: request, name: "notification history") { services, progress in
            let result = await CustomerReads.notifications(spec, services) { rows, pages in
                progress(NotificationsAnswer.historySoFar(rows, pages: pages))
            }
            return NotificationsAnswer.history(result)
        })] + earlier
    }

    /// True for the latest load, still awaited: an earlier one's answer is of other filters.
    static func isCurrent(_ state: ConsoleState, _ request: Int) -> Bool {
        state.inFlight[request] != nil && state.models[NotificationsModel.self].request == request
    }

    static func requestTest(_ state: inout ConsoleState) -> [ConsoleEffect] {
        state.testNotification = TestNotificationState()
        let request = ConsoleReducer.start(&state, "Request a Test Notification", owner: .notifications)
        // The request stays in flight while its status is polled, so its task does not finish it.
        return [.task(PaneTask(request: request, name: "request a test notification", finishes: false) { services, _ in
            do {
                return NotificationsAnswer.testRequested(.success(try await services.client.requestTestNotification().testNotificationToken ?? ""))
            } catch {
                return NotificationsAnswer.testRequested(.failure(services.failure(error)))
            }
        })]
    }

    /// Asks for the test notification's status after `delay`, under the request that asked for it.
    static func pollTest(request: Int, token: String, delay: TimeInterval) -> [ConsoleEffect] {
        [.task(PaneTask(request: request, name: "poll test notification \(token)", finishes: false) { services, _ in
            try? await Task.sleep(nanoseconds: UInt64(delay * 1_000_000_000))
            guard !Task.isCancelled else { return nil }
            do {
                return NotificationsAnswer.testStatus(.success(try await services.client.getTestNotificationStatus(testNotificationToken: token)))
            } catch {
                return NotificationsAnswer.testStatus(.failure(services.failure(error)))
            }
        })]
    }

    static func receive(_ state: inout ConsoleState, request: Int, _ answer: NotificationsAnswer) -> [ConsoleEffect] {
        switch answer {
        case .historySoFar(let rows, let pages):
            guard isCurrent(state, request) else { return [] }
            state.notificationsPane = .loaded(rows)
            PaneReducer.pagingProgressed(&state, request, .notifications, rows: rows.count, pages: pages, noun: "notifications")
        case .history(let result):
            guard isCurrent(state, request) else { return [] }
            state.notificationsPane = Loadable(result)
            PaneReducer.pagingEnded(&state, request, .notifications)
            var list = state.list(.notifications)
            list.selected = min(list.selected, max(0, (result.value?.count ?? 1) - 1))
            list.detailOpen = false
            state.lists[.notifications] = list
            if case .failure(let error) = result { state.lastError = error }
        case .testRequested(let result):
            guard state.inFlight[request] != nil else { return [] }
            switch result {
            case .success(let token):
                state.testNotification?.token = token
                ConsoleReducer.toast(&state, "Test notification requested: \(token)")
                return pollTest(request: request, token: token, delay: 0.5)
            case .failure(let error):
                state.inFlight[request] = nil
                state.testNotification?.error = error
                state.testNotification?.finished = true
                ConsoleReducer.fail(&state, error)
            }
        case .testStatus(let result):
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
                return load(&state)
            case .failure(let error):
                // Apple answers "not found" until the notification has been sent: keep asking.
                if error.code == .testNotificationNotFound && test.polls < 60 {
                    state.testNotification = test
                    return pollTest(request: request, token: token, delay: 1)
                }
                test.error = error
                test.finished = true
                state.inFlight[request] = nil
                ConsoleReducer.fail(&state, error)
            }
            state.testNotification = test
        }
        return []
    }

    // MARK: `:` filters, sent to Get Notification History

    static let colonCommands: [ColonCommand] = [
        ColonCommand(["since"], usage: ":since 24h", "Notifications of the last hours or days", example: "24h", perform: filter),
        ColonCommand(["type"], usage: ":type DID_RENEW", "Notifications of one type", perform: filter),
        ColonCommand(["subtype"], usage: ":subtype GRACE_PERIOD", "Notifications of one subtype of the chosen type", perform: filter),
        ColonCommand(["txn"], usage: ":txn ID", "Notifications about one transaction", perform: filter),
        ColonCommand(["failures"], usage: ":failures", "Only notifications that never reached the server, retries pending included (toggles)", perform: filter),
        ColonCommand(["all"], usage: ":all", "Clear the notification filters", perform: filter),
    ]

    static func filter(_ state: inout ConsoleState, _ verb: String, _ argument: String) -> [ConsoleEffect] {
        var f = state.notificationFilters
        switch verb {
        case "since":
            guard let seconds = CommandLine.duration(argument) else {
                ConsoleReducer.fail(&state, DisplayError(summary: ":since takes a span such as 24h, 7d or 30d."))
                return []
            }
            if seconds > state.notificationRetention {
                ConsoleReducer.toast(&state, "\(state.environment.label) keeps \(Int(state.notificationRetention / 86_400)) days of history; showing that.")
            }
            f.since = min(seconds, state.notificationRetention - 3600)
        case "type":
            let type = NotificationType(argument.uppercased())
            guard argument.isEmpty || type.isKnown else {
                ConsoleReducer.fail(&state, DisplayError(summary: "\(argument) is not a notification type.", hint: "Such as DID_RENEW, EXPIRED, REFUND, TEST."))
                return []
            }
            f.type = argument.isEmpty ? nil : type
            f.subtype = nil
            f.transactionId = nil
        case "subtype":
            let subtype = NotificationSubtype(argument.uppercased())
            guard let type = f.type else {
                ConsoleReducer.fail(&state, DisplayError(summary: "Choose a :type first, then one of its subtypes."))
                return []
            }
            guard argument.isEmpty || type.allowedSubtypes.subtypes.contains(subtype) else {
                let allowed = type.allowedSubtypes.subtypes.map(\.rawValue)
                ConsoleReducer.fail(&state, DisplayError(
                    summary: "\(argument) is not a subtype of \(type.rawValue).",
                    hint: allowed.isEmpty ? "\(type.rawValue) has no subtypes." : "Its subtypes: \(allowed.joined(separator: ", "))."))
                return []
            }
            f.subtype = argument.isEmpty ? nil : subtype
        case "txn":
            if !argument.isEmpty {
                // Checked here as every ID is: Apple's 4000006 says less than the rule it broke.
                guard case .transactionId(let id) = IDKind.classify(argument) else {
                    if case .invalid(let reason) = IDKind.classify(argument) {
                        ConsoleReducer.fail(&state, DisplayError(summary: ":txn \(argument): \(reason)"))
                    } else {
                        ConsoleReducer.fail(&state, DisplayError(summary: ":txn takes a transaction ID (digits only); \(argument) is an order ID.", hint: ":order \(argument) looks it up."))
                    }
                    return []
                }
                f.transactionId = id
            } else {
                f.transactionId = nil
            }
            // One customer's notifications are few: look as far back as the summary does.
            if !argument.isEmpty { f.since = max(f.since, NotificationRequestSpec.customerSpan) }
            f.type = nil
            f.subtype = nil
        case "failures": f.onlyFailures.toggle()
        default: f = NotificationFilterState()
        }
        state.notificationFilters = f
        state.pane = .notifications
        state.focus = .content
        return load(&state)
    }
}
