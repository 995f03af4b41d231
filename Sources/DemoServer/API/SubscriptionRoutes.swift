import AppStoreServerAPI
import Crypto
import Foundation

/// Subscription statuses, order lookup, renewal date extensions (single and mass).
struct SubscriptionRoutes {
    let store: DemoStore
    let notifications: NotificationRoutes
    static let maxExtensionsPerYear = 2

    func statuses(_ id: String, _ request: DemoRequest, _ environment: AppStoreEnvironment) throws(DemoAPIError) -> DemoResponse {
        var wanted: Set<SubscriptionStatus> = []
        for text in request.queryValues("status") {
            guard let raw = Int(text), let status = Optional(SubscriptionStatus(raw)), status.isKnown else {
                throw .invalidStatus
            }
            wanted.insert(status)
        }
        let chains = try store.read(environment) { data throws(DemoAPIError) -> [(DemoSubscription, TransactionPayload)] in
            let customer = try RouteValidation.customer(for: id, in: data)
            return data.subscriptions.values
                .filter { $0.customer == customer && (wanted.isEmpty || wanted.contains($0.status)) }
                .sorted { $0.originalTransactionId < $1.originalTransactionId }
                .compactMap { subscription in data.transactions[subscription.latestTransactionId].map { (subscription, $0.payload) } }
        }
        var groups: [String: [LastTransactionsItem]] = [:]
        for (subscription, transaction) in chains {
            var item = LastTransactionsItem()
            item.status = subscription.status
            item.originalTransactionId = subscription.originalTransactionId
            item.signedTransactionInfo = store.sign(transaction)
            item.signedRenewalInfo = store.sign(subscription.renewal)
            groups[subscription.groupId, default: []].append(item)
        }
        var response = StatusResponse()
        response.environment = environment
        response.bundleId = DemoCatalog.bundleId
        response.appAppleId = environment == .production ? DemoCatalog.appAppleId : nil
        response.data = groups.keys.sorted().map { SubscriptionGroupIdentifierItem(subscriptionGroupIdentifier: $0, lastTransactions: groups[$0]) }
        return .json(response)
    }

    func lookUpOrder(_ orderId: String, _ environment: AppStoreEnvironment) throws(DemoAPIError) -> DemoResponse {
        guard environment == .production else {
            throw DemoAPIError(4_000_000, "Invalid request. Look Up Order ID is available in Production only.")
        }
        let shape = orderId.utf8.allSatisfy { ($0 >= 0x30 && $0 <= 0x39) || ($0 >= 0x41 && $0 <= 0x5A) }
        guard shape, (6...20).contains(orderId.count) else {
            throw DemoAPIError(4_000_000, "Invalid request. The order ID is invalid.")
        }
        let transactions = try store.read(environment) { data throws(DemoAPIError) in
            (data.orders[orderId] ?? []).compactMap { data.transactions[$0]?.payload }
        }
        guard !transactions.isEmpty else { return .json(OrderLookupResponse(status: .invalid)) }
        return .json(OrderLookupResponse(status: .valid, signedTransactions: transactions.map(store.sign)))
    }

    func extend(_ id: String, _ request: DemoRequest, _ environment: AppStoreEnvironment) throws(DemoAPIError) -> DemoResponse {
        guard RouteValidation.isDigits(id) else { throw .invalidOriginalTransactionId }
        try RouteValidation.checkFields(request.body, Self.extensionFields)
        let body = try RouteValidation.decodeBody(ExtendRenewalDateRequest.self, request.body)
        let (days, _, requestIdentifier) = try Self.validate(body)
        let now = store.clock()
        let (response, latest, customer, replay) = try store.write(environment) { data throws(DemoAPIError) -> (ExtendRenewalDateResponse, String, Int, Bool) in
            guard let subscription = data.subscriptions[id] else {
                if data.transactions[id] != nil || data.appTransactions[id] != nil {
                    throw DemoAPIError(4_040_005, "Original transaction id not found: the ID is not an original transaction ID.")
                }
                throw .originalTransactionIdNotFound
            }
            if let earlier = subscription.extensions.first(where: { $0.requestIdentifier == requestIdentifier }) {
                return (earlier.response, subscription.latestTransactionId, subscription.customer, true)
            }
            guard let latest = data.transactions[subscription.latestTransactionId] else { throw .originalTransactionIdNotFound }
            if latest.payload.inAppOwnershipType == .familyShared {
                throw .familySharedSubscriptionExtensionIneligible
            }
            guard subscription.status == .active, !subscription.inFreeOffer, let expires = latest.payload.expiresDate, expires > now else {
                throw .subscriptionExtensionIneligible
            }
            let lastYear = subscription.extensions.filter { $0.date > now.addingTimeInterval(-365 * 86_400) }
            guard lastYear.count < Self.maxExtensionsPerYear else {
                throw .subscriptionMaxExtension
            }
            var entry = DemoJournalEntry(.renewalExtension, environment, at: now, id: id)
            entry.days = days
            entry.requestIdentifier = requestIdentifier
            try store.keep(entry)
            guard let response = data.extendRenewal(id, days: days, requestIdentifier: requestIdentifier, at: now) else {
                throw .subscriptionExtensionIneligible
            }
            return (response, subscription.latestTransactionId, subscription.customer, false)
        }
        if !replay {
            notifications.publish(.renewalExtended, nil, environment: environment, customer: customer, transactionId: latest)
        }
        return .json(response)
    }

    /// The body fields of both extension requests, with the error a wrong type gets.
    static let extensionFields: [String: (FieldType, DemoAPIError)] = [
        "extendByDays": (.integer, .invalidExtendByDays), "extendReasonCode": (.integer, .invalidExtendReasonCode),
        "requestIdentifier": (.string, .invalidRequestIdentifier), "productId": (.string, .invalidProductId),
        "storefrontCountryCodes": (.strings, .invalidStorefrontCountryCode),
    ]

    /// Checks the fields both extension requests share; a mass extension's identifier must be a UUID.
    static func validate(_ body: ExtendRenewalDateRequest, identifierIsUUID: Bool = false) throws(DemoAPIError) -> (Int, ExtendReasonCode, String) {
        guard let days = body.extendByDays, (1...90).contains(days) else { throw .invalidExtendByDays }
        guard let reason = body.extendReasonCode, reason.isKnown else { throw .invalidExtendReasonCode }
        guard let requestIdentifier = body.requestIdentifier, !requestIdentifier.isEmpty, requestIdentifier.count <= 128,
              !identifierIsUUID || RouteValidation.isUUID(requestIdentifier)
        else { throw .invalidRequestIdentifier }
        return (Int(days), reason, requestIdentifier)
    }

    func massExtend(_ request: DemoRequest, _ environment: AppStoreEnvironment) throws(DemoAPIError) -> DemoResponse {
        try RouteValidation.checkFields(request.body, Self.extensionFields)
        let body = try RouteValidation.decodeBody(MassExtendRenewalDateRequest.self, request.body)
        _ = try Self.validate(
            ExtendRenewalDateRequest(extendByDays: body.extendByDays, extendReasonCode: body.extendReasonCode, requestIdentifier: body.requestIdentifier),
            identifierIsUUID: true)
        guard let productId = body.productId, let product = DemoCatalog.product(productId), product.type == .autoRenewableSubscription else {
            throw .invalidProductId
        }
        if let codes = body.storefrontCountryCodes {
            guard !codes.isEmpty else { throw .invalidEmptyStorefrontCountryCodeList }
            guard codes.allSatisfy(RouteValidation.isStorefront) else { throw .invalidStorefrontCountryCode }
        }
        let key = Self.massKey(productId, body.requestIdentifier!)
        let now = store.clock()
        let isNew = try store.write(environment) { data throws(DemoAPIError) -> Bool in
            guard data.massExtensions[key] == nil else { return false }
            var entry = DemoJournalEntry(.massExtension, environment, at: now, id: key)
            entry.massExtension = body
            try store.keep(entry)
            data.requestMassExtension(body, at: now)
            return true
        }
        if isNew { scheduleCompletion(key: key, environment: environment, after: Self.massExtensionDuration) }
        return .json(MassExtendRenewalDateResponse(requestIdentifier: body.requestIdentifier))
    }

    /// Apple takes hours; the demo takes two seconds so a walkthrough can watch it complete.
    static let massExtensionDuration: TimeInterval = 2

    func scheduleCompletion(key: String, environment: AppStoreEnvironment, after delay: TimeInterval) {
        let store = self.store
        let notifications = self.notifications
        // One whose time has come is completed before the next request is answered.
        guard delay > 0 else {
            return Self.completeMassExtension(key: key, environment: environment, store: store, notifications: notifications)
        }
        Task.detached {
            try? await Task.sleep(nanoseconds: UInt64(delay * 1_000_000_000))
            Self.completeMassExtension(key: key, environment: environment, store: store, notifications: notifications)
        }
    }

    /// Completes the mass extensions an earlier run accepted but did not see through (it ended
    /// first): at once when their time has come, else when it does.
    func resumeMassExtensions() {
        let now = store.clock()
        for environment in [AppStoreEnvironment.production, .sandbox] {
            let pending = (try? store.read(environment) { data throws(DemoAPIError) in
                data.massExtensions.filter { !$0.value.complete }.map { ($0.key, $0.value.requested) }
            }) ?? []
            for (key, requested) in pending.sorted(by: { $0.0 < $1.0 }) {
                scheduleCompletion(key: key, environment: environment, after: requested.addingTimeInterval(Self.massExtensionDuration).timeIntervalSince(now))
            }
        }
    }

    /// UUIDs are compared without regard to case (Apple's Swift library sends them uppercase).
    static func massKey(_ productId: String, _ requestIdentifier: String) -> String { "\(productId)\n\(requestIdentifier.lowercased())" }

    static func completeMassExtension(key: String, environment: AppStoreEnvironment, store: DemoStore, notifications: NotificationRoutes) {
        let now = store.clock()
        let summary = try? store.write(environment) { data throws(DemoAPIError) -> NotificationSummary? in
            guard let job = data.massExtensions[key], !job.complete else { return nil }
            // Another process sharing the kept state may complete it too: replaying both is the same.
            try store.keep(DemoJournalEntry(.massExtensionCompleted, environment, at: now, id: key))
            return data.completeMassExtension(key: key, at: now)
        }
        if let summary = summary ?? nil {
            notifications.publishSummary(summary, environment: environment, uuid: Self.summaryUUID(key, environment))
        }
    }

    /// The summary's notificationUUID follows from the job, so a summary published twice (by two
    /// processes sharing the kept state) is one notification.
    static func summaryUUID(_ key: String, _ environment: AppStoreEnvironment) -> String {
        var bytes = Array(SHA256.hash(data: Data("\(environment.rawValue)\n\(key)".utf8)).prefix(16))
        bytes[6] = (bytes[6] & 0x0F) | 0x40
        bytes[8] = (bytes[8] & 0x3F) | 0x80
        let hex = bytes.map { String(format: "%02x", $0) }.joined()
        let parts = [hex.prefix(8), hex.dropFirst(8).prefix(4), hex.dropFirst(12).prefix(4), hex.dropFirst(16).prefix(4), hex.dropFirst(20)]
        return parts.map(String.init).joined(separator: "-")
    }

    func massExtendStatus(_ productId: String, _ requestIdentifier: String, _ environment: AppStoreEnvironment) throws(DemoAPIError) -> DemoResponse {
        guard RouteValidation.isProductId(productId), DemoCatalog.product(productId) != nil else { throw .invalidProductId }
        // Mass extensions are keyed by UUID; anything else cannot name one.
        guard RouteValidation.isUUID(requestIdentifier) else { throw .invalidRequestIdentifier }
        let job = try store.read(environment) { data throws(DemoAPIError) in data.massExtensions[Self.massKey(productId, requestIdentifier)] }
        guard let job else { throw .statusRequestNotFound }
        var response = MassExtendRenewalDateStatusResponse()
        response.requestIdentifier = requestIdentifier
        response.complete = job.complete
        response.completeDate = job.completeDate
        response.succeededCount = job.complete ? job.succeeded : nil
        response.failedCount = job.complete ? job.failed : nil
        return .json(response)
    }
}
