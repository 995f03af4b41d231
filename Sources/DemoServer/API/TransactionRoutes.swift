import AppStoreServerAPI
import Foundation

/// Transaction info, history, refunds, app transactions, consumption, account tokens, finishing.
struct TransactionRoutes {
    let store: DemoStore
    let decisions: RefundDecisionRoutes
    static let pageSize = 20

    func transactionInfo(_ id: String, _ environment: AppStoreEnvironment) throws(DemoAPIError) -> DemoResponse {
        let transaction = try store.read(environment) { data throws(DemoAPIError) in try RouteValidation.transaction(id, in: data) }
        return .json(TransactionInfoResponse(signedTransactionInfo: store.sign(transaction.payload)))
    }

    /// Get Transaction History; `v1` leaves out finished consumables as Apple's deprecated version does.
    func history(_ id: String, _ request: DemoRequest, _ environment: AppStoreEnvironment, v1: Bool) throws(DemoAPIError) -> DemoResponse {
        let filters = try HistoryFilters(request)
        let (page, revision, hasMore) = try store.read(environment) { data throws(DemoAPIError) in
            let customer = try RouteValidation.customer(for: id, in: data)
            var records = data.customerTransactions[customer, default: []].compactMap { data.transactions[$0] }
            if v1 { records.removeAll { $0.payload.type == .consumable && $0.finished } }
            records = records.filter(filters.matches)
            records.sort { lhs, rhs in
                lhs.modified == rhs.modified ? lhs.payload.transactionId! < rhs.payload.transactionId! : lhs.modified < rhs.modified
            }
            if filters.sort == .descending { records.reverse() }
            return try Self.page(records, cursor: request.queryValue("revision"), filters: filters.fingerprint)
        }
        var response = HistoryResponse()
        response.revision = revision
        response.hasMore = hasMore
        response.bundleId = DemoCatalog.bundleId
        response.appAppleId = environment == .production ? DemoCatalog.appAppleId : nil
        response.environment = environment
        response.signedTransactions = page.map { store.sign($0.payload) }
        return .json(response)
    }

    func refundHistory(_ id: String, _ request: DemoRequest, _ environment: AppStoreEnvironment) throws(DemoAPIError) -> DemoResponse {
        let (page, revision, hasMore) = try store.read(environment) { data throws(DemoAPIError) in
            let customer = try RouteValidation.customer(for: id, in: data)
            let refunded = data.customerTransactions[customer, default: []].compactMap { data.transactions[$0] }
                .filter { $0.payload.revocationDate != nil && $0.payload.revocationType != .familyRevoke }
                .sorted { $0.payload.revocationDate! < $1.payload.revocationDate! }
            return try Self.page(refunded, cursor: request.queryValue("revision"), filters: "refunds")
        }
        var response = RefundHistoryResponse()
        response.signedTransactions = page.map { store.sign($0.payload) }
        response.revision = revision
        response.hasMore = hasMore
        return .json(response)
    }

    static func page(_ records: [DemoTransaction], cursor: String?, filters: String) throws(DemoAPIError) -> ([DemoTransaction], String, Bool) {
        var offset = 0
        if let cursor {
            // Revisions do not expire: a stored one fetches what changed since.
            guard let decoded = PagingCursor.read(cursor, kind: "rev", filters: filters) else { throw .invalidRequestRevision }
            offset = min(decoded.offset, records.count)
        }
        let end = min(offset + pageSize, records.count)
        return (Array(records[offset..<end]), PagingCursor.make(kind: "rev", offset: end, filters: filters), end < records.count)
    }

    func appTransactionInfo(_ id: String, _ environment: AppStoreEnvironment) throws(DemoAPIError) -> DemoResponse {
        let app = try store.read(environment) { data throws(DemoAPIError) -> AppTransactionPayload in
            let customer = try RouteValidation.customer(for: id, in: data)
            guard let appId = data.customers[customer]?.appTransactionId, let app = data.appTransactions[appId] else {
                throw .appTransactionDoesNotExist
            }
            return app
        }
        return .json(AppTransactionInfoResponse(signedAppTransactionInfo: store.sign(app)))
    }

    func finish(_ id: String, _ environment: AppStoreEnvironment) throws(DemoAPIError) -> DemoResponse {
        let now = store.clock()
        try store.write(environment) { data throws(DemoAPIError) in
            _ = try RouteValidation.transaction(id, in: data)
            try store.keep(DemoJournalEntry(.finishTransaction, environment, at: now, id: id))
            data.finishTransaction(id)
        }
        return .empty
    }

    func consumption(_ id: String, _ request: DemoRequest, _ environment: AppStoreEnvironment) throws(DemoAPIError) -> DemoResponse {
        guard RouteValidation.isDigits(id) else { throw .invalidTransactionId }
        try RouteValidation.checkFields(request.body, [
            "customerConsented": (.boolean, .invalidCustomerConsented), "deliveryStatus": (.string, .invalidDeliveryStatus),
            "sampleContentProvided": (.boolean, .invalidSampleContentProvided), "refundPreference": (.string, .invalidRefundPreference),
            "consumptionPercentage": (.integer, .consumptionPercentageOutOfRange),
        ])
        let body = try RouteValidation.decodeBody(ConsumptionRequest.self, request.body)
        let transaction = try store.read(environment) { data throws(DemoAPIError) in try RouteValidation.transaction(id, in: data) }
        if transaction.payload.inAppOwnershipType == .familyShared { throw .familyTransactionNotSupported }
        guard body.customerConsented == true else { throw .invalidCustomerConsented }
        guard let status = body.deliveryStatus, status.isKnown else { throw .invalidDeliveryStatus }
        guard body.sampleContentProvided != nil else { throw .invalidSampleContentProvided }
        if let preference = body.refundPreference, !preference.isKnown { throw .invalidRefundPreference }
        if let percentage = body.consumptionPercentage {
            if transaction.payload.type == .autoRenewableSubscription { throw .consumptionPercentageOnSubscription }
            guard (0...100_000).contains(percentage) else { throw .consumptionPercentageOutOfRange }
            if status != .delivered && percentage != 0 { throw .undeliveredConsumptionPercentageNonZero }
        }
        try keepConsumption(id, request, environment, outcome: DemoRefundOutcome(body))
        return DemoResponse(status: 202)
    }

    func consumptionV1(_ id: String, _ request: DemoRequest, _ environment: AppStoreEnvironment) throws(DemoAPIError) -> DemoResponse {
        guard RouteValidation.isDigits(id) else { throw .invalidTransactionId }
        try RouteValidation.checkFields(request.body, Self.consumptionV1Fields)
        let body = try RouteValidation.decodeBody(ConsumptionRequestV1.self, request.body)
        _ = try store.read(environment) { data throws(DemoAPIError) in try RouteValidation.transaction(id, in: data) }
        let checks: [(Bool, Int64, String)] = [
            (body.customerConsented == true, 4_000_035, "customer consented"),
            (body.consumptionStatus?.isKnown ?? false, 4_000_034, "consumption status"),
            (body.platform?.isKnown ?? false, 4_000_039, "platform"),
            (body.sampleContentProvided != nil, 4_000_041, "sample content provided"),
            (body.deliveryStatus?.isKnown ?? false, 4_000_036, "delivery status"),
            (body.appAccountToken.map { $0.isEmpty || RouteValidation.isUUID($0) } ?? false, 4_000_033, "app account token"),
            (body.accountTenure?.isKnown ?? false, 4_000_032, "account tenure"),
            (body.playTime?.isKnown ?? false, 4_000_040, "play time"),
            (body.lifetimeDollarsRefunded?.isKnown ?? false, 4_000_038, "lifetime dollars refunded"),
            (body.lifetimeDollarsPurchased?.isKnown ?? false, 4_000_037, "lifetime dollars purchased"),
            (body.userStatus?.isKnown ?? false, 4_000_042, "user status"),
            (body.refundPreference.map(\.isKnown) ?? true, 4_000_044, "refund preference"),
        ]
        if let failed = checks.first(where: { !$0.0 }) {
            throw DemoAPIError(failed.1, "Invalid request. The \(failed.2) field is invalid.")
        }
        try keepConsumption(id, request, environment, outcome: DemoRefundOutcome(body))
        return DemoResponse(status: 202)
    }

    /// Consumption information is kept as it was accepted; Apple's decision on the refund request
    /// follows a few seconds later (none when Apple decided on the transaction before).
    private func keepConsumption(_ id: String, _ request: DemoRequest, _ environment: AppStoreEnvironment, outcome: DemoRefundOutcome) throws(DemoAPIError) {
        let now = store.clock()
        let due = try store.write(environment) { data throws(DemoAPIError) -> Bool in
            var entry = DemoJournalEntry(.consumption, environment, at: now, id: id)
            entry.body = String(decoding: request.body, as: UTF8.self)
            try store.keep(entry)
            return data.acceptConsumption(id, outcome, at: now)
        }
        if due { decisions.schedule(id, environment: environment, after: RefundDecisionRoutes.decisionDelay) }
    }

    /// Send Consumption Information V1: every field is an integer enum except three.
    static let consumptionV1Fields: [String: (FieldType, DemoAPIError)] = {
        let integers: [(String, Int64, String)] = [
            ("consumptionStatus", 4_000_034, "consumption status"), ("platform", 4_000_039, "platform"),
            ("deliveryStatus", 4_000_036, "delivery status"), ("accountTenure", 4_000_032, "account tenure"),
            ("playTime", 4_000_040, "play time"), ("lifetimeDollarsRefunded", 4_000_038, "lifetime dollars refunded"),
            ("lifetimeDollarsPurchased", 4_000_037, "lifetime dollars purchased"), ("userStatus", 4_000_042, "user status"),
            ("refundPreference", 4_000_044, "refund preference"),
        ]
        var fields = Dictionary(uniqueKeysWithValues: integers.map { ($0.0, (FieldType.integer, DemoAPIError($0.1, "Invalid request. The \($0.2) field is invalid."))) })
        fields["customerConsented"] = (.boolean, .invalidCustomerConsented)
        fields["sampleContentProvided"] = (.boolean, .invalidSampleContentProvided)
        fields["appAccountToken"] = (.string, DemoAPIError(4_000_033, "Invalid request. The app account token field is invalid."))
        return fields
    }()

    func setAppAccountToken(_ id: String, _ request: DemoRequest, _ environment: AppStoreEnvironment) throws(DemoAPIError) -> DemoResponse {
        guard RouteValidation.isDigits(id) else { throw .invalidTransactionId }
        try RouteValidation.checkFields(request.body, ["appAccountToken": (.string, .invalidAppAccountTokenUUID)])
        let body = try RouteValidation.decodeBody(UpdateAppAccountTokenRequest.self, request.body)
        guard let token = body.appAccountToken, RouteValidation.isUUID(token) else { throw .invalidAppAccountTokenUUID }
        let now = store.clock()
        try store.write(environment) { data throws(DemoAPIError) in
            if data.appTransactions[id] != nil { throw .appTransactionIdNotSupported }
            guard let transaction = data.transactions[id] else { throw .originalTransactionIdNotFound }
            guard transaction.payload.originalTransactionId == id else {
                throw .transactionIdNotOriginal
            }
            if transaction.payload.inAppOwnershipType == .familyShared { throw .familyTransactionNotSupported }
            var entry = DemoJournalEntry(.appAccountToken, environment, at: now, id: id)
            entry.appAccountToken = token.lowercased()
            try store.keep(entry)
            data.setAppAccountToken(token.lowercased(), originalTransactionId: id)
        }
        return .empty
    }
}

/// The filters of Get Transaction History, validated with Apple's error codes.
struct HistoryFilters {
    var startDate: Date?
    var endDate: Date?
    var productIds: [String]
    var productTypes: [HistoryProductType]
    var sort: HistorySortOrder
    var groups: [String]
    var ownership: InAppOwnershipType?
    var revoked: Bool?
    let fingerprint: String

    init(_ request: DemoRequest) throws(DemoAPIError) {
        func milliseconds(_ name: String, _ error: DemoAPIError) throws(DemoAPIError) -> Date? {
            let values = request.queryValues(name)
            guard let text = values.first else { return nil }
            guard values.count == 1, let value = Int64(text), value >= 0 else { throw error }
            return Date(epochMilliseconds: value)
        }
        startDate = try milliseconds("startDate", .invalidStartDate)
        endDate = try milliseconds("endDate", .invalidEndDate)
        if let startDate, let endDate, startDate >= endDate {
            throw DemoAPIError(4_000_016, "Invalid request. The end date must be after the start date.")
        }
        productIds = request.queryValues("productId")
        if !productIds.allSatisfy(RouteValidation.isProductId) { throw .invalidProductId }
        productTypes = request.queryValues("productType").map(HistoryProductType.init)
        if productTypes.contains(where: { !$0.isKnown }) { throw .invalidProductType }
        // A parameter that is not repeatable must not come twice.
        func single(_ name: String, _ error: DemoAPIError) throws(DemoAPIError) -> String? {
            let values = request.queryValues(name)
            guard values.count <= 1 else { throw error }
            return values.first
        }
        sort = HistorySortOrder(try single("sort", .invalidSort) ?? "ASCENDING")
        guard sort.isKnown else { throw .invalidSort }
        groups = request.queryValues("subscriptionGroupIdentifier")
        // Apple's subscription group identifiers are numbers.
        if !groups.allSatisfy(RouteValidation.isDigits) { throw .invalidSubscriptionGroupIdentifier }
        if let text = try single("inAppOwnershipType", .invalidInAppOwnershipType) {
            let value = InAppOwnershipType(text)
            guard value == .familyShared || value == .purchased else { throw .invalidInAppOwnershipType }
            ownership = value
        }
        if let text = try single("revoked", .invalidRevoked) {
            guard let value = RouteValidation.bool(text) else { throw .invalidRevoked }
            revoked = value
        }
        if let text = try single("excludeRevoked", .invalidExcludeRevoked) {
            guard let value = RouteValidation.bool(text) else { throw .invalidExcludeRevoked }
            if value && revoked == nil { revoked = false }
        }
        fingerprint = request.query.filter { $0.name != "revision" }.map { "\($0.name)=\($0.value)" }.sorted().joined(separator: "&")
    }

    func matches(_ record: DemoTransaction) -> Bool {
        let t = record.payload
        if let startDate, let purchase = t.purchaseDate, purchase < startDate { return false }
        if let endDate, let purchase = t.purchaseDate, purchase >= endDate { return false }
        if !productIds.isEmpty && !productIds.contains(t.productId ?? "") { return false }
        if !productTypes.isEmpty && !productTypes.contains(where: { Self.type(of: $0) == t.type }) { return false }
        if !groups.isEmpty && !groups.contains(t.subscriptionGroupIdentifier ?? "") { return false }
        if let ownership, t.inAppOwnershipType != ownership { return false }
        if let revoked, (t.revocationDate != nil) != revoked { return false }
        return true
    }

    static func type(of filter: HistoryProductType) -> ProductType? {
        switch filter {
        case .autoRenewable: return .autoRenewableSubscription
        case .nonRenewable: return .nonRenewingSubscription
        case .consumable: return .consumable
        case .nonConsumable: return .nonConsumable
        case .unknown: return nil
        }
    }
}
