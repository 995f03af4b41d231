import Foundation

/// Filters of Get Transaction History; sent as query parameters, repeated keys for lists.
public struct TransactionHistoryQuery: Sendable, Equatable {
    public var startDate: Date?
    public var endDate: Date?
    public var productIds: [String] = []
    public var productTypes: [HistoryProductType] = []
    public var sort: HistorySortOrder?
    public var subscriptionGroupIdentifiers: [String] = []
    public var inAppOwnershipType: InAppOwnershipType?
    public var revoked: Bool?

    public init(
        startDate: Date? = nil, endDate: Date? = nil, productIds: [String] = [],
        productTypes: [HistoryProductType] = [], sort: HistorySortOrder? = nil,
        subscriptionGroupIdentifiers: [String] = [], inAppOwnershipType: InAppOwnershipType? = nil,
        revoked: Bool? = nil
    ) {
        self.startDate = startDate
        self.endDate = endDate
        self.productIds = productIds
        self.productTypes = productTypes
        self.sort = sort
        self.subscriptionGroupIdentifiers = subscriptionGroupIdentifiers
        self.inAppOwnershipType = inAppOwnershipType
        self.revoked = revoked
    }

    var queryItems: [(String, String)] {
        var items: [(String, String)] = []
        if let startDate { items.append(("startDate", String(startDate.epochMilliseconds))) }
        if let endDate { items.append(("endDate", String(endDate.epochMilliseconds))) }
        items += productIds.map { ("productId", $0) }
        items += productTypes.map { ("productType", $0.rawValue) }
        if let sort { items.append(("sort", sort.rawValue)) }
        items += subscriptionGroupIdentifiers.map { ("subscriptionGroupIdentifier", $0) }
        if let inAppOwnershipType { items.append(("inAppOwnershipType", inAppOwnershipType.rawValue)) }
        if let revoked { items.append(("revoked", revoked ? "true" : "false")) }
        return items
    }
}

/// Body of Get Notification History.
public struct NotificationHistoryRequest: Codable, Sendable, Equatable {
    public var startDate: Date?
    public var endDate: Date?
    public var notificationType: NotificationType?
    public var notificationSubtype: NotificationSubtype?
    public var transactionId: String?
    public var onlyFailures: Bool?

    public init(
        startDate: Date? = nil, endDate: Date? = nil, notificationType: NotificationType? = nil,
        notificationSubtype: NotificationSubtype? = nil, transactionId: String? = nil, onlyFailures: Bool? = nil
    ) {
        self.startDate = startDate
        self.endDate = endDate
        self.notificationType = notificationType
        self.notificationSubtype = notificationSubtype
        self.transactionId = transactionId
        self.onlyFailures = onlyFailures
    }
}

/// Body of Extend a Subscription Renewal Date.
public struct ExtendRenewalDateRequest: Codable, Sendable, Equatable {
    public var extendByDays: Int32?
    public var extendReasonCode: ExtendReasonCode?
    /// Makes the request idempotent: the same identifier is never applied twice.
    public var requestIdentifier: String?

    public init(extendByDays: Int32?, extendReasonCode: ExtendReasonCode?, requestIdentifier: String?) {
        self.extendByDays = extendByDays
        self.extendReasonCode = extendReasonCode
        self.requestIdentifier = requestIdentifier
    }
}

/// Body of Extend Subscription Renewal Dates for All Active Subscribers.
public struct MassExtendRenewalDateRequest: Codable, Sendable, Equatable {
    public var extendByDays: Int32?
    public var extendReasonCode: ExtendReasonCode?
    public var requestIdentifier: String?
    public var storefrontCountryCodes: [String]?
    public var productId: String?

    public init(
        extendByDays: Int32?, extendReasonCode: ExtendReasonCode?, requestIdentifier: String?,
        storefrontCountryCodes: [String]? = nil, productId: String?
    ) {
        self.extendByDays = extendByDays
        self.extendReasonCode = extendReasonCode
        self.requestIdentifier = requestIdentifier
        self.storefrontCountryCodes = storefrontCountryCodes
        self.productId = productId
    }
}

/// Body of Send Consumption Information (v2).
public struct ConsumptionRequest: Codable, Sendable, Equatable {
    public var customerConsented: Bool?
    /// Milliunits of a percent, 0...100000.
    public var consumptionPercentage: Int32?
    public var deliveryStatus: DeliveryStatus?
    public var refundPreference: RefundPreference?
    public var sampleContentProvided: Bool?

    public init(
        customerConsented: Bool?, consumptionPercentage: Int32? = nil, deliveryStatus: DeliveryStatus?,
        refundPreference: RefundPreference? = nil, sampleContentProvided: Bool?
    ) {
        self.customerConsented = customerConsented
        self.consumptionPercentage = consumptionPercentage
        self.deliveryStatus = deliveryStatus
        self.refundPreference = refundPreference
        self.sampleContentProvided = sampleContentProvided
    }
}

/// Body of the deprecated Send Consumption Information V1.
public struct ConsumptionRequestV1: Codable, Sendable, Equatable {
    public var customerConsented: Bool?
    public var consumptionStatus: ConsumptionStatus?
    public var platform: ConsumptionPlatform?
    public var sampleContentProvided: Bool?
    public var deliveryStatus: DeliveryStatusV1?
    /// A UUID, or the empty string when the app set none.
    public var appAccountToken: String?
    public var accountTenure: AccountTenure?
    public var playTime: PlayTime?
    public var lifetimeDollarsRefunded: LifetimeDollars?
    public var lifetimeDollarsPurchased: LifetimeDollars?
    public var userStatus: UserStatus?
    public var refundPreference: RefundPreferenceV1?

    public init() {}
}

/// Body of Set App Account Token.
public struct UpdateAppAccountTokenRequest: Codable, Sendable, Equatable {
    public var appAccountToken: String?

    public init(appAccountToken: String?) {
        self.appAccountToken = appAccountToken
    }
}
