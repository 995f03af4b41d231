import AppStoreServerAPI
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
            guard var subscription = data.subscriptions[id] else {
                if data.transactions[id] != nil || data.appTransactions[id] != nil {
                    throw DemoAPIError(4_040_005, "Original transaction id not found: the ID is not an original transaction ID.")
                }
                throw .originalTransactionIdNotFound
            }
            if let earlier = subscription.extensions.first(where: { $0.requestIdentifier == requestIdentifier }) {
                return (earlier.response, subscription.latestTransactionId, subscription.customer, true)
            }
            guard var latest = data.transactions[subscription.latestTransactionId] else { throw .originalTransactionIdNotFound }
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
            let newExpiry = expires.addingTimeInterval(Double(days) * 86_400)
            latest.payload.expiresDate = newExpiry
            data.transactions[subscription.latestTransactionId] = latest
            if subscription.renewal.renewalDate != nil { subscription.renewal.renewalDate = newExpiry }
            var response = ExtendRenewalDateResponse()
            response.originalTransactionId = id
            response.webOrderLineItemId = latest.payload.webOrderLineItemId
            response.success = true
            response.effectiveDate = newExpiry
            subscription.extensions.append(DemoExtension(date: now, days: days, requestIdentifier: requestIdentifier, response: response))
            data.subscriptions[id] = subscription
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
        let isNew = try store.write(environment) { data throws(DemoAPIError) -> Bool in
            guard data.massExtensions[key] == nil else { return false }
            data.massExtensions[key] = DemoMassExtension(request: body, requested: store.clock(), complete: false, completeDate: nil, succeeded: 0, failed: 0)
            return true
        }
        if isNew {
            let store = self.store
            let notifications = self.notifications
            Task.detached {
                // Apple takes hours; the demo takes two seconds so a walkthrough can watch it complete.
                try? await Task.sleep(nanoseconds: 2_000_000_000)
                Self.completeMassExtension(key: key, environment: environment, store: store, notifications: notifications)
            }
        }
        return .json(MassExtendRenewalDateResponse(requestIdentifier: body.requestIdentifier))
    }

    /// UUIDs are compared without regard to case (Apple's Swift library sends them uppercase).
    static func massKey(_ productId: String, _ requestIdentifier: String) -> String { "\(productId)\n\(requestIdentifier.lowercased())" }

    static func completeMassExtension(key: String, environment: AppStoreEnvironment, store: DemoStore, notifications: NotificationRoutes) {
        let now = store.clock()
        let summary = try? store.write(environment) { data throws(DemoAPIError) -> NotificationSummary? in
            guard var job = data.massExtensions[key], !job.complete else { return nil }
            let days = Double(job.request.extendByDays ?? 0)
            for (id, var subscription) in data.subscriptions {
                guard let latest = data.transactions[subscription.latestTransactionId], latest.payload.productId == job.request.productId else { continue }
                if let codes = job.request.storefrontCountryCodes, !codes.contains(latest.payload.storefront ?? "") { continue }
                let recent = subscription.extensions.filter { $0.date > now.addingTimeInterval(-365 * 86_400) }.count
                guard subscription.status == .active, !subscription.inFreeOffer, latest.payload.inAppOwnershipType != .familyShared,
                      recent < maxExtensionsPerYear, let expires = latest.payload.expiresDate, expires > now
                else {
                    job.failed += 1
                    continue
                }
                let newExpiry = expires.addingTimeInterval(days * 86_400)
                data.transactions[subscription.latestTransactionId]?.payload.expiresDate = newExpiry
                if subscription.renewal.renewalDate != nil { subscription.renewal.renewalDate = newExpiry }
                var response = ExtendRenewalDateResponse()
                response.originalTransactionId = id
                response.success = true
                response.effectiveDate = newExpiry
                subscription.extensions.append(DemoExtension(date: now, days: Int(days), requestIdentifier: job.request.requestIdentifier!, response: response))
                data.subscriptions[id] = subscription
                job.succeeded += 1
            }
            job.complete = true
            job.completeDate = now
            data.massExtensions[key] = job
            var summary = NotificationSummary()
            summary.environment = environment
            summary.appAppleId = environment == .production ? DemoCatalog.appAppleId : nil
            summary.bundleId = DemoCatalog.bundleId
            summary.productId = job.request.productId
            summary.requestIdentifier = job.request.requestIdentifier
            summary.storefrontCountryCodes = job.request.storefrontCountryCodes
            summary.succeededCount = job.succeeded
            summary.failedCount = job.failed
            return summary
        }
        if let summary = summary ?? nil {
            notifications.publishSummary(summary, environment: environment)
        }
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
