import AppStoreServerAPI
import Foundation

/// Notification history, test notifications, and publishing new notifications (with real delivery).
struct NotificationRoutes: Sendable {
    let store: DemoStore
    let sender: WebhookSender
    /// Told of each notification added to the history.
    var activity: DemoActivityFeed?
    static let pageSize = 20
    /// Apple does not say how long a pagination token lives; the demo's last a day.
    static let tokenLifetime: TimeInterval = 86_400

    func history(_ request: DemoRequest, _ environment: AppStoreEnvironment) throws(DemoAPIError) -> DemoResponse {
        try RouteValidation.checkFields(request.body, [
            "startDate": (.integer, .invalidStartDate), "endDate": (.integer, .invalidEndDate),
            "notificationType": (.string, .invalidNotificationType), "notificationSubtype": (.string, .invalidNotificationType),
            "transactionId": (.string, .invalidTransactionId), "onlyFailures": (.boolean, .generalBadRequest),
        ])
        let body = try RouteValidation.decodeBody(NotificationHistoryRequest.self, request.body)
        let now = store.clock()
        guard let start = body.startDate else { throw DemoAPIError(4_000_015, "Invalid request. The start date is required.") }
        guard let requestedEnd = body.endDate else { throw DemoAPIError(4_000_016, "Invalid request. The end date is required.") }
        guard start < requestedEnd else { throw .startDateAfterEndDate }
        guard start >= now.addingTimeInterval(-environment.notificationHistoryRetention) else {
            throw DemoAPIError(4_000_012, "Invalid request. The start date is earlier than the allowed history (\(environment.notificationHistoryRetentionDays) days).")
        }
        guard start <= now else { throw DemoAPIError(4_000_015, "Invalid request. The start date is in the future.") }
        // A future end date is allowed and read as now.
        let end = min(requestedEnd, now)
        if let type = body.notificationType, !type.isKnown { throw .invalidNotificationType }
        if let subtype = body.notificationSubtype {
            guard let type = body.notificationType, subtype.isKnown, type.allowedSubtypes.subtypes.contains(subtype) else {
                throw .invalidNotificationType
            }
        }
        if body.transactionId != nil && body.notificationType != nil { throw .multipleFiltersSupplied }
        let filters = String(decoding: (try? AppStoreJSON.encoder().encode(body)) ?? Data(), as: UTF8.self)
        let (items, next) = try store.read(environment) { data throws(DemoAPIError) -> ([NotificationHistoryResponseItem], String?) in
            var customer: Int?
            if let transactionId = body.transactionId {
                customer = try RouteValidation.customer(for: transactionId, in: data)
            }
            let matching = data.notifications.filter { note in
                note.signedDate >= start && note.signedDate < end
                    && (body.notificationType == nil || note.type == body.notificationType)
                    && (body.notificationSubtype == nil || note.subtype == body.notificationSubtype)
                    && (customer == nil || note.customer == customer)
                    && (body.onlyFailures != true || !note.delivered)
            }
            var offset = 0
            if let token = request.queryValue("paginationToken") {
                guard let decoded = PagingCursor.read(token, kind: "nh", filters: filters), let issued = decoded.issued else {
                    throw .invalidPaginationToken
                }
                guard now.timeIntervalSince(issued) <= Self.tokenLifetime else { throw .paginationTokenExpired }
                offset = min(decoded.offset, matching.count)
            }
            let upper = min(offset + Self.pageSize, matching.count)
            let page = matching[offset..<upper].map {
                NotificationHistoryResponseItem(signedPayload: store.servedNotification($0.signedPayload), sendAttempts: $0.attempts)
            }
            return (page, upper < matching.count ? PagingCursor.make(kind: "nh", offset: upper, filters: filters, issued: now) : nil)
        }
        var response = NotificationHistoryResponse()
        response.notificationHistory = items
        response.hasMore = next != nil
        response.paginationToken = next
        return .json(response)
    }

    func requestTest(_ environment: AppStoreEnvironment) throws(DemoAPIError) -> DemoResponse {
        guard let url = store.webhook else {
            throw .serverNotificationUrlNotFound
        }
        var payload = NotificationPayload.demo(.test, nil, uuid: UUID().uuidString.lowercased(), signedDate: store.clock())
        payload.data = .demoApp(environment)
        let signed = store.signed(payload)
        let token = UUID().uuidString.lowercased()
        let note = DemoNotification(
            uuid: payload.notificationUUID!, type: .test, subtype: nil, signedDate: payload.signedDate!, signedPayload: signed,
            attempts: [], customer: nil)
        try store.write(environment) { data throws(DemoAPIError) in
            var entry = DemoJournalEntry(.testNotification, environment, at: note.signedDate, id: token)
            entry.notification = JournaledNotification(note)
            try store.keep(entry)
            data.testNotifications[token] = note
        }
        deliver(signed, to: url, environment: environment, target: .test(token))
        return .json(SendTestNotificationResponse(testNotificationToken: token))
    }

    func testStatus(_ token: String, _ environment: AppStoreEnvironment) throws(DemoAPIError) -> DemoResponse {
        guard RouteValidation.isTestNotificationToken(token) else { throw .invalidTestNotificationToken }
        let note = try store.read(environment) { data throws(DemoAPIError) in data.testNotifications[token.lowercased()] }
        guard let note, !note.attempts.isEmpty else { throw .testNotificationNotFound }
        return .json(CheckTestNotificationResponse(signedPayload: store.servedNotification(note.signedPayload), sendAttempts: note.attempts))
    }

    /// Signs a new notification about a customer's transaction, adds it to the history and
    /// delivers it to the webhook when one is configured.
    func publish(
        _ type: NotificationType, _ subtype: NotificationSubtype?, environment: AppStoreEnvironment, customer: Int,
        transactionId: String
    ) {
        let now = store.clock()
        guard let (transaction, renewal, status) = try? store.read(environment, { data throws(DemoAPIError) in
            let transaction = data.transactions[transactionId]?.payload
            let subscription = data.subscriptions[transaction?.originalTransactionId ?? ""]
            return (transaction, subscription?.renewal, subscription?.status)
        }) else { return }
        var payload = NotificationPayload.demo(type, subtype, uuid: UUID().uuidString.lowercased(), signedDate: now)
        var body = NotificationData.demoApp(environment)
        body.bundleVersion = DemoCatalog.bundleVersion
        body.signedTransactionInfo = transaction.map(store.signedNow)
        body.signedRenewalInfo = renewal.map(store.signedNow)
        body.status = status
        payload.data = body
        append(payload, environment: environment, customer: customer)
    }

    func publishSummary(_ summary: NotificationSummary, environment: AppStoreEnvironment, uuid: String) {
        var payload = NotificationPayload.demo(.renewalExtension, .summary, uuid: uuid, signedDate: store.clock())
        payload.summary = summary
        append(payload, environment: environment, customer: nil)
    }

    private func append(_ payload: NotificationPayload, environment: AppStoreEnvironment, customer: Int?) {
        let signed = store.signed(payload)
        let uuid = payload.notificationUUID!
        let note = DemoNotification(
            uuid: uuid, type: payload.notificationType!, subtype: payload.subtype, signedDate: payload.signedDate!,
            signedPayload: signed, attempts: [], customer: customer)
        let added = try? store.write(environment) { data throws(DemoAPIError) -> Bool in
            // Published twice (a summary by two processes sharing the kept state): kept once.
            guard !data.notifications.contains(where: { $0.uuid == uuid }) else { return false }
            var entry = DemoJournalEntry(.notification, environment, at: note.signedDate, id: uuid)
            entry.notification = JournaledNotification(note)
            try store.keep(entry)
            data.addNotification(note)
            return true
        }
        guard added == true else { return }
        activity?.report(.published(notificationType: payload.notificationType?.rawValue ?? "", notificationUUID: uuid))
        guard let url = store.webhook else { return }
        deliver(signed, to: url, environment: environment, target: .notification(uuid), fault: store.deliveryFaults.next())
    }

    /// Whose send attempts a delivery adds to.
    enum AttemptTarget {
        case notification(String)
        case test(String)
    }

    /// POSTs in the background and records the real outcome as a send attempt.
    private func deliver(
        _ signed: String, to url: URL, environment: AppStoreEnvironment, target: AttemptTarget, fault: DeliveryFault = .none
    ) {
        let store = self.store
        let sender = self.sender
        store.track {
            let attemptDate = store.clock()
            let result: SendAttemptResult
            switch fault {
            case .none:
                result = await sender.deliver(signedPayload: store.servedNotification(signed), to: url)
            case .serverError:
                result = .unsuccessfulHTTPResponseCode
            case .timedOutAfterArrival:
                _ = await sender.deliver(signedPayload: store.servedNotification(signed), to: url)
                result = .timedOut
            case .slowSuccess:
                try? await Task.sleep(for: .seconds(2))
                result = await sender.deliver(signedPayload: store.servedNotification(signed), to: url)
            }
            let attempt = SendAttemptItem(attemptDate: attemptDate, sendAttemptResult: result)
            try? store.write(environment) { data throws(DemoAPIError) in
                var entry = DemoJournalEntry(.sendAttempt, environment, at: attemptDate)
                entry.attempt = attempt
                switch target {
                case .notification(let uuid):
                    entry.id = uuid
                    data.recordAttempt(attempt, notification: uuid)
                case .test(let token):
                    entry.id = token
                    entry.isTest = true
                    data.recordAttempt(attempt, testToken: token)
                }
                // The attempt happened: it stays in this run even if it cannot be kept.
                try? store.keep(entry)
            }
        }
    }
}
