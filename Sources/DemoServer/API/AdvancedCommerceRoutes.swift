import AppStoreServerAPI
import Foundation

/// The Advanced Commerce API's six server actions, served for the demo's Advanced Commerce products
/// with Apple's validation and codes; their effects are journaled like every write, and each sends
/// the notification Apple sends for it.
struct AdvancedCommerceRoutes {
    let store: DemoStore
    let notifications: NotificationRoutes

    func handle(_ action: DemoAdvancedCommerceAction, _ id: String, _ request: DemoRequest, _ environment: AppStoreEnvironment) throws(DemoAPIError) -> DemoResponse {
        guard RouteValidation.isDigits(id) else { throw .invalidTransactionId }
        let body = try Self.parse(action, request.body, environment)
        let now = store.clock()
        let outcome = try store.write(environment) { data throws(DemoAPIError) -> DemoAdvancedCommerceOutcome in
            // Checked and applied on a copy first: only an accepted request is journaled, then kept.
            var changed = data
            let outcome = try changed.applyAdvancedCommerce(body, to: id, at: now)
            var entry = DemoJournalEntry(.advancedCommerce, environment, at: now, id: id)
            entry.action = action.rawValue
            entry.body = String(decoding: request.body, as: UTF8.self)
            try store.keep(entry)
            data = changed
            return outcome
        }
        if let (type, subtype) = outcome.notification {
            notifications.publish(type, subtype, environment: environment, customer: outcome.customer, transactionId: outcome.transactionId)
        }
        let (transaction, renewal) = try store.read(environment) { data throws(DemoAPIError) in
            (data.transactions[outcome.transactionId]?.payload, data.subscriptions[outcome.originalTransactionId]?.renewal)
        }
        var response = AdvancedCommerceActionResponse()
        response.signedTransactionInfo = transaction.map(store.sign)
        if action != .requestRefund { response.signedRenewalInfo = renewal.map(store.sign) }
        return .json(response)
    }

    /// The body read with Apple's checks of its shape: a missing field gets its own code, a value of the
    /// wrong kind MalformedPayloadError.
    static func parse(_ action: DemoAdvancedCommerceAction, _ data: Data, _ environment: AppStoreEnvironment) throws(DemoAPIError) -> DemoAdvancedCommerceRequest {
        guard let json = try? JSONValue.parse(data), case .object = json else { throw .acMalformedPayload }
        guard let info = present(json["requestInfo"]) else { throw .acNullRequestInfo }
        guard case .object = info else { throw .acMalformedPayload }
        guard let reference = present(info["requestReferenceId"]) else { throw .acNullRequestReferenceId }
        guard let text = reference.stringValue, RouteValidation.isUUID(text) else { throw .acInvalidRequestReferenceId }
        if let token = present(info["appAccountToken"]) {
            guard let text = token.stringValue, text.isEmpty || RouteValidation.isUUID(text) else { throw .acInvalidAppAccountToken }
        }
        if let storefront = present(json["storefront"]) {
            guard let text = storefront.stringValue, RouteValidation.isStorefront(text) else { throw .acInvalidStorefront }
        }
        if let currency = present(json["currency"]) {
            guard let text = currency.stringValue, text.utf8.count == 3, text.utf8.allSatisfy({ (0x41...0x5A).contains($0) }) else { throw .acInvalidCurrency }
        }
        switch action {
        case .cancel:
            return .cancel(try decode(AdvancedCommerceSubscriptionCancelRequest.self, data))
        case .revoke:
            try require(json, ["refundReason": .acNullRefundReason, "refundType": .acNullRefundType, "refundRiskingPreference": .acNullRefundRisking])
            let body = try decode(AdvancedCommerceSubscriptionRevokeRequest.self, data)
            try checkReason(body.refundReason, environment)
            guard body.refundType == .full || body.refundType == .prorated else { throw .acInvalidRefundType }
            return .revoke(body)
        case .requestRefund:
            try require(json, ["items": .acNullItems, "refundRiskingPreference": .acNullRefundRisking])
            try requireEach(json["items"], ["SKU": .acNullSKU, "refundReason": .acNullRefundReason, "refundType": .acNullRefundType])
            let body = try decode(AdvancedCommerceRequestRefundRequest.self, data)
            guard !body.items.isEmpty else { throw .acAtLeastOneItem }
            for item in body.items {
                try checkSKU(item.sku)
                try checkReason(item.refundReason, environment)
                guard item.refundType.isKnown else { throw .acInvalidRefundType }
                switch (item.refundType, item.refundAmount) {
                case (.custom, nil): throw .acNullRefundAmount
                case (.custom, let amount?) where amount <= 0: throw .acNegativeRefundAmount
                case (.custom, _), (_, nil): break
                default: throw .acRefundAmountWithoutCustom
                }
            }
            let simulated = body.items.filter { $0.refundReason == .simulateRefundDecline }.count
            guard simulated == 0 || simulated == body.items.count else { throw .acPartialSimulateRefundDecline }
            try checkOnce(body.items.map(\.sku))
            return .refund(body)
        case .changeMetadata:
            guard present(json["descriptors"]) != nil || present(json["items"]) != nil else { throw .acAtLeastOneItem }
            if let descriptors = present(json["descriptors"]) { try require(descriptors, ["effective": .acNullEffective]) }
            try requireEach(json["items"], ["currentSKU": .acNullCurrentSKU, "effective": .acNullEffective])
            let body = try decode(AdvancedCommerceSubscriptionChangeMetadataRequest.self, data)
            if let descriptors = body.descriptors {
                guard descriptors.effective.isKnown else { throw .acMalformedPayload }
                guard descriptors.displayName != nil || descriptors.description != nil else { throw .acAtLeastOneOfDisplayNameOrDescription }
                try checkNames(descriptors.displayName, descriptors.description)
            }
            if let items = body.items {
                guard !items.isEmpty else { throw .acAtLeastOneItem }
                for item in items {
                    guard item.effective.isKnown else { throw .acMalformedPayload }
                    try checkSKU(item.currentSku)
                    if let sku = item.sku { try checkSKU(sku) }
                    guard item.sku != nil || item.displayName != nil || item.description != nil else { throw .acAtLeastOneOfDisplayNameOrDescription }
                    try checkNames(item.displayName, item.description)
                }
                try checkOnce(items.map(\.currentSku))
            }
            return .changeMetadata(body)
        case .changePrice:
            try require(json, ["items": .acNullItems])
            try requireEach(json["items"], ["SKU": .acNullSKU, "price": .acNullPrice])
            let body = try decode(AdvancedCommerceSubscriptionPriceChangeRequest.self, data)
            guard !body.items.isEmpty else { throw .acAtLeastOneItem }
            for item in body.items {
                try checkSKU(item.sku)
                guard item.price >= 0 else { throw .acNegativePrice }
            }
            try checkOnce(body.items.map(\.sku))
            return .changePrice(body)
        case .migrate:
            try require(json, ["targetProductId": .acNullTargetProductId, "taxCode": .acNullTaxCode, "descriptors": .acNullDescriptors, "items": .acNullItems])
            try require(json["descriptors"]!, ["displayName": .acNullDisplayName, "description": .acNullDescription])
            let itemFields: [String: DemoAPIError] = ["SKU": .acNullSKU, "displayName": .acNullDisplayName, "description": .acNullDescription]
            try requireEach(json["items"], itemFields)
            try requireEach(json["renewalItems"], itemFields)
            let body = try decode(AdvancedCommerceSubscriptionMigrateRequest.self, data)
            try checkNames(body.descriptors.displayName, body.descriptors.description)
            for list in [body.items, body.renewalItems].compactMap({ $0 }) {
                guard !list.isEmpty else { throw .acAtLeastOneItem }
                for item in list {
                    try checkSKU(item.sku)
                    try checkNames(item.displayName, item.description)
                }
                try checkOnce(list.map(\.sku))
            }
            guard !body.targetProductId.isEmpty else { throw .acNullTargetProductId }
            guard !body.taxCode.isEmpty else { throw .acNullTaxCode }
            return .migrate(body)
        }
    }

    private static func present(_ value: JSONValue?) -> JSONValue? {
        guard let value, value != .null else { return nil }
        return value
    }

    private static func require(_ object: JSONValue, _ fields: [String: DemoAPIError]) throws(DemoAPIError) {
        for key in fields.keys.sorted() where present(object[key]) == nil { throw fields[key]! }
    }

    private static func requireEach(_ list: JSONValue?, _ fields: [String: DemoAPIError]) throws(DemoAPIError) {
        guard let list = present(list) else { return }
        guard case .array(let items) = list else { throw .acMalformedPayload }
        for item in items { try require(item, fields) }
    }

    private static func decode<T: Decodable>(_ type: T.Type, _ data: Data) throws(DemoAPIError) -> T {
        try RouteValidation.decodeBody(type, data, invalid: .acMalformedPayload)
    }

    private static func checkReason(_ reason: AdvancedCommerceRefundReason, _ environment: AppStoreEnvironment) throws(DemoAPIError) {
        guard reason.isKnown else { throw .acInvalidRefundReason }
        if reason == .simulateRefundDecline && environment != .sandbox { throw .acSimulateRefundDeclineOnlyInSandbox }
    }

    private static func checkSKU(_ sku: String) throws(DemoAPIError) {
        guard !sku.isEmpty else { throw .acNullSKU }
        guard sku.count <= AdvancedCommerceLimits.maximumSKULength else { throw .acSKULengthExceeded }
    }

    private static func checkNames(_ displayName: String?, _ description: String?) throws(DemoAPIError) {
        if let displayName {
            guard !displayName.isEmpty else { throw .acNullDisplayName }
            guard displayName.count <= AdvancedCommerceLimits.maximumDisplayNameLength else { throw .acDisplayNameLengthExceeded }
        }
        if let description {
            guard !description.isEmpty else { throw .acNullDescription }
            guard description.count <= AdvancedCommerceLimits.maximumDescriptionLength else { throw .acDescriptionLengthExceeded }
        }
    }

    private static func checkOnce(_ skus: [String]) throws(DemoAPIError) {
        guard Set(skus).count == skus.count else { throw .acItemCannotBeSpecifiedMultipleTimes }
    }
}

/// The six actions, by the path segment Apple names them with.
enum DemoAdvancedCommerceAction: String, Sendable {
    case cancel, revoke, changeMetadata, changePrice, migrate, requestRefund

    /// `advancedCommerce/v1/subscription/{action}/{id}` or `advancedCommerce/v1/transaction/requestRefund/{id}`.
    init?(scope: String, _ segment: String) {
        guard let action = Self(rawValue: segment), (scope == "transaction") == (action == .requestRefund) else { return nil }
        self = action
    }
}

/// A request body as the demo accepted it.
enum DemoAdvancedCommerceRequest: Sendable {
    case cancel(AdvancedCommerceSubscriptionCancelRequest)
    case revoke(AdvancedCommerceSubscriptionRevokeRequest)
    case refund(AdvancedCommerceRequestRefundRequest)
    case changeMetadata(AdvancedCommerceSubscriptionChangeMetadataRequest)
    case changePrice(AdvancedCommerceSubscriptionPriceChangeRequest)
    case migrate(AdvancedCommerceSubscriptionMigrateRequest)

    var requestInfo: AdvancedCommerceRequestInfo {
        switch self {
        case .cancel(let body): return body.requestInfo
        case .revoke(let body): return body.requestInfo
        case .refund(let body): return body.requestInfo
        case .changeMetadata(let body): return body.requestInfo
        case .changePrice(let body): return body.requestInfo
        case .migrate(let body): return body.requestInfo
        }
    }

    var storefront: String? {
        switch self {
        case .cancel(let body): return body.storefront
        case .revoke(let body): return body.storefront
        case .refund(let body): return body.storefront
        case .changeMetadata(let body): return body.storefront
        case .changePrice(let body): return body.storefront
        case .migrate(let body): return body.storefront
        }
    }

    /// A body journaled as it was accepted; nil when it cannot be read.
    init?(action: String?, body: String?) {
        guard let action = action.flatMap(DemoAdvancedCommerceAction.init(rawValue:)), let data = body.map({ Data($0.utf8) }) else { return nil }
        func read<T: Decodable>(_ type: T.Type) -> T? { try? AppStoreJSON.decode(type, from: data) }
        switch action {
        case .cancel: guard let body = read(AdvancedCommerceSubscriptionCancelRequest.self) else { return nil }; self = .cancel(body)
        case .revoke: guard let body = read(AdvancedCommerceSubscriptionRevokeRequest.self) else { return nil }; self = .revoke(body)
        case .requestRefund: guard let body = read(AdvancedCommerceRequestRefundRequest.self) else { return nil }; self = .refund(body)
        case .changeMetadata: guard let body = read(AdvancedCommerceSubscriptionChangeMetadataRequest.self) else { return nil }; self = .changeMetadata(body)
        case .changePrice: guard let body = read(AdvancedCommerceSubscriptionPriceChangeRequest.self) else { return nil }; self = .changePrice(body)
        case .migrate: guard let body = read(AdvancedCommerceSubscriptionMigrateRequest.self) else { return nil }; self = .migrate(body)
        }
    }
}
