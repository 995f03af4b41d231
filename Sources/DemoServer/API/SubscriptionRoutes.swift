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
                throw DemoAPIError(4_000_031, "Invalid request. The status parameter is invalid.")
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
        let body = try RouteValidation.decodeBody(ExtendRenewalDateRequest.self, request.body, invalid: DemoAPIError(4_000_000, "Invalid request."))
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
                throw DemoAPIError(4_030_007, "Forbidden. Family Sharing subscriptions can't be extended directly; extend the purchaser's.")
            }
            guard subscription.status == .active, !subscription.inFreeOffer, let expires = latest.payload.expiresDate, expires > now else {
                throw DemoAPIError(4_030_004, "Forbidden. The subscription isn't eligible for a renewal date extension.")
            }
            let lastYear = subscription.extensions.filter { $0.date > now.addingTimeInterval(-365 * 86_400) }
            guard lastYear.count < Self.maxExtensionsPerYear else {
                throw DemoAPIError(4_030_005, "Forbidden. The subscription has reached the maximum number of renewal date extensions.")
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

    static func validate(_ body: ExtendRenewalDateRequest) throws(DemoAPIError) -> (Int, ExtendReasonCode, String) {
        guard let days = body.extendByDays, (1...90).contains(days) else {
            throw DemoAPIError(4_000_009, "Invalid request. The extend by days value is invalid; use 1 to 90.")
        }
        guard let reason = body.extendReasonCode, reason.isKnown else {
            throw DemoAPIError(4_000_010, "Invalid request. The extend reason code is invalid.")
        }
        guard let requestIdentifier = body.requestIdentifier, !requestIdentifier.isEmpty, requestIdentifier.count <= 128 else {
            throw DemoAPIError(4_000_011, "Invalid request. The request identifier is invalid; use 1 to 128 characters.")
        }
        return (Int(days), reason, requestIdentifier)
    }

    func massExtend(_ request: DemoRequest, _ environment: AppStoreEnvironment) throws(DemoAPIError) -> DemoResponse {
        let body = try RouteValidation.decodeBody(MassExtendRenewalDateRequest.self, request.body, invalid: DemoAPIError(4_000_000, "Invalid request."))
        _ = try Self.validate(ExtendRenewalDateRequest(extendByDays: body.extendByDays, extendReasonCode: body.extendReasonCode, requestIdentifier: body.requestIdentifier))
        guard let productId = body.productId, let product = DemoCatalog.product(productId), product.type == .autoRenewableSubscription else {
            throw DemoAPIError(4_000_023, "Invalid request. The product id is invalid.")
        }
        if let codes = body.storefrontCountryCodes {
            guard !codes.isEmpty else { throw DemoAPIError(4_000_027, "Invalid request. The storefront country code list is empty.") }
            guard codes.allSatisfy({ $0.count == 3 && $0.allSatisfy(\.isUppercase) }) else {
                throw DemoAPIError(4_000_028, "Invalid request. A storefront country code is invalid.")
            }
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

    static func massKey(_ productId: String, _ requestIdentifier: String) -> String { "\(productId)\n\(requestIdentifier)" }

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
        guard DemoCatalog.product(productId) != nil else { throw DemoAPIError(4_000_023, "Invalid request. The product id is invalid.") }
        guard !requestIdentifier.isEmpty, requestIdentifier.count <= 128 else {
            throw DemoAPIError(4_000_011, "Invalid request. The request identifier is invalid.")
        }
        let job = try store.read(environment) { data throws(DemoAPIError) in data.massExtensions[Self.massKey(productId, requestIdentifier)] }
        guard let job else {
            throw DemoAPIError(4_040_009, "No renewal date extension request matches this request identifier and product ID.")
        }
        var response = MassExtendRenewalDateStatusResponse()
        response.requestIdentifier = requestIdentifier
        response.complete = job.complete
        response.completeDate = job.completeDate
        response.succeededCount = job.complete ? job.succeeded : nil
        response.failedCount = job.complete ? job.failed : nil
        return .json(response)
    }
}
