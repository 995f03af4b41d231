import Foundation

// Bodies and answers of the Advanced Commerce API's server actions (cancel, revoke, request a
// refund, change metadata, change price, migrate). Keys are Apple's: `SKU` and `currentSKU` upper-case.

/// Identifies one request; Apple refuses a `requestReferenceId` it has seen before (4000097).
public struct AdvancedCommerceRequestInfo: Codable, Sendable, Equatable {
    /// A UUID, new for each request.
    public var requestReferenceId: String
    public var appAccountToken: String?
    public var consistencyToken: String?

    public init(requestReferenceId: String, appAccountToken: String? = nil, consistencyToken: String? = nil) {
        self.requestReferenceId = requestReferenceId
        self.appAccountToken = appAccountToken
        self.consistencyToken = consistencyToken
    }
}

/// Why a refund is asked for (`refundReason`).
public enum AdvancedCommerceRefundReason: OpenEnum {
    case unintendedPurchase, fulfillmentIssue, unsatisfiedWithPurchase, legal, other, modifyItemsRefund, simulateRefundDecline
    case unknown(String)
    public typealias RawValue = String
    public static let catalog: [(value: Self, raw: String, label: String)] = [
        (.unintendedPurchase, "UNINTENDED_PURCHASE", "Unintended purchase"),
        (.fulfillmentIssue, "FULFILLMENT_ISSUE", "Fulfillment issue"),
        (.unsatisfiedWithPurchase, "UNSATISFIED_WITH_PURCHASE", "Unsatisfied with purchase"),
        (.legal, "LEGAL", "Legal"),
        (.other, "OTHER", "Other"),
        (.modifyItemsRefund, "MODIFY_ITEMS_REFUND", "Items modified"),
        (.simulateRefundDecline, "SIMULATE_REFUND_DECLINE", "Simulated decline (Sandbox only)"),
    ]
}

/// How much is refunded (`refundType`): all, the unused share, or `refundAmount`.
public enum AdvancedCommerceRefundType: OpenEnum {
    case full, prorated, custom
    case unknown(String)
    public typealias RawValue = String
    public static let catalog: [(value: Self, raw: String, label: String)] = [
        (.full, "FULL", "Full"),
        (.prorated, "PRORATED", "Prorated"),
        (.custom, "CUSTOM", "Custom amount"),
    ]
}

/// When a metadata change takes effect (`effective`).
public enum AdvancedCommerceEffective: OpenEnum {
    case immediately, nextBillCycle
    case unknown(String)
    public typealias RawValue = String
    public static let catalog: [(value: Self, raw: String, label: String)] = [
        (.immediately, "IMMEDIATELY", "Immediately"),
        (.nextBillCycle, "NEXT_BILL_CYCLE", "At the next bill cycle"),
    ]
}

/// Body of Cancel a Subscription: auto-renew off, access until the period ends.
public struct AdvancedCommerceSubscriptionCancelRequest: Codable, Sendable, Equatable {
    public var requestInfo: AdvancedCommerceRequestInfo
    public var storefront: String?

    public init(requestInfo: AdvancedCommerceRequestInfo, storefront: String? = nil) {
        self.requestInfo = requestInfo
        self.storefront = storefront
    }
}

/// Body of Revoke Subscription: ends the subscription now with a full or prorated refund.
public struct AdvancedCommerceSubscriptionRevokeRequest: Codable, Sendable, Equatable {
    public var requestInfo: AdvancedCommerceRequestInfo
    public var refundReason: AdvancedCommerceRefundReason
    public var refundRiskingPreference: Bool
    public var refundType: AdvancedCommerceRefundType
    public var storefront: String?

    public init(
        requestInfo: AdvancedCommerceRequestInfo, refundReason: AdvancedCommerceRefundReason, refundRiskingPreference: Bool,
        refundType: AdvancedCommerceRefundType, storefront: String? = nil
    ) {
        self.requestInfo = requestInfo
        self.refundReason = refundReason
        self.refundRiskingPreference = refundRiskingPreference
        self.refundType = refundType
        self.storefront = storefront
    }
}

/// One SKU of a transaction to refund.
public struct AdvancedCommerceRequestRefundItem: Codable, Sendable, Equatable {
    public var sku: String
    public var refundReason: AdvancedCommerceRefundReason
    public var refundType: AdvancedCommerceRefundType
    /// Also take the customer's access to the SKU away.
    public var revoke: Bool
    /// Milliunits; only with `CUSTOM`.
    public var refundAmount: Int64?

    public init(
        sku: String, refundReason: AdvancedCommerceRefundReason, refundType: AdvancedCommerceRefundType, revoke: Bool, refundAmount: Int64? = nil
    ) {
        self.sku = sku
        self.refundReason = refundReason
        self.refundType = refundType
        self.revoke = revoke
        self.refundAmount = refundAmount
    }

    enum CodingKeys: String, CodingKey {
        case sku = "SKU", refundReason, refundType, revoke, refundAmount
    }
}

/// Body of Request Transaction Refund.
public struct AdvancedCommerceRequestRefundRequest: Codable, Sendable, Equatable {
    public var requestInfo: AdvancedCommerceRequestInfo
    public var items: [AdvancedCommerceRequestRefundItem]
    public var refundRiskingPreference: Bool
    public var currency: String?
    public var storefront: String?

    public init(
        requestInfo: AdvancedCommerceRequestInfo, items: [AdvancedCommerceRequestRefundItem], refundRiskingPreference: Bool,
        currency: String? = nil, storefront: String? = nil
    ) {
        self.requestInfo = requestInfo
        self.items = items
        self.refundRiskingPreference = refundRiskingPreference
        self.currency = currency
        self.storefront = storefront
    }
}

/// The subscription's own display name and description, changed.
public struct AdvancedCommerceSubscriptionChangeMetadataDescriptors: Codable, Sendable, Equatable {
    public var effective: AdvancedCommerceEffective
    public var description: String?
    public var displayName: String?

    public init(effective: AdvancedCommerceEffective, description: String? = nil, displayName: String? = nil) {
        self.effective = effective
        self.description = description
        self.displayName = displayName
    }
}

/// One item's metadata, changed: found by `currentSku`, given a new SKU, name or description.
public struct AdvancedCommerceSubscriptionChangeMetadataItem: Codable, Sendable, Equatable {
    public var currentSku: String
    public var effective: AdvancedCommerceEffective
    public var description: String?
    public var displayName: String?
    public var sku: String?

    public init(
        currentSku: String, effective: AdvancedCommerceEffective, description: String? = nil, displayName: String? = nil, sku: String? = nil
    ) {
        self.currentSku = currentSku
        self.effective = effective
        self.description = description
        self.displayName = displayName
        self.sku = sku
    }

    enum CodingKeys: String, CodingKey {
        case currentSku = "currentSKU", effective, description, displayName, sku = "SKU"
    }
}

/// Body of Change Subscription Metadata.
public struct AdvancedCommerceSubscriptionChangeMetadataRequest: Codable, Sendable, Equatable {
    public var requestInfo: AdvancedCommerceRequestInfo
    public var descriptors: AdvancedCommerceSubscriptionChangeMetadataDescriptors?
    public var items: [AdvancedCommerceSubscriptionChangeMetadataItem]?
    public var storefront: String?
    public var taxCode: String?

    public init(
        requestInfo: AdvancedCommerceRequestInfo, descriptors: AdvancedCommerceSubscriptionChangeMetadataDescriptors? = nil,
        items: [AdvancedCommerceSubscriptionChangeMetadataItem]? = nil, storefront: String? = nil, taxCode: String? = nil
    ) {
        self.requestInfo = requestInfo
        self.descriptors = descriptors
        self.items = items
        self.storefront = storefront
        self.taxCode = taxCode
    }
}

/// One SKU's price from the next renewal.
public struct AdvancedCommerceSubscriptionPriceChangeItem: Codable, Sendable, Equatable {
    public var sku: String
    /// Milliunits of the subscription's currency.
    public var price: Int64
    public var dependentSKUs: [String]?

    public init(sku: String, price: Int64, dependentSKUs: [String]? = nil) {
        self.sku = sku
        self.price = price
        self.dependentSKUs = dependentSKUs
    }

    enum CodingKeys: String, CodingKey {
        case sku = "SKU", price, dependentSKUs
    }
}

/// Body of Change Subscription Price.
public struct AdvancedCommerceSubscriptionPriceChangeRequest: Codable, Sendable, Equatable {
    public var requestInfo: AdvancedCommerceRequestInfo
    public var items: [AdvancedCommerceSubscriptionPriceChangeItem]
    public var currency: String?
    public var storefront: String?

    public init(
        requestInfo: AdvancedCommerceRequestInfo, items: [AdvancedCommerceSubscriptionPriceChangeItem], currency: String? = nil,
        storefront: String? = nil
    ) {
        self.requestInfo = requestInfo
        self.items = items
        self.currency = currency
        self.storefront = storefront
    }
}

/// The migrated subscription's display name and description.
public struct AdvancedCommerceSubscriptionMigrateDescriptors: Codable, Sendable, Equatable {
    public var description: String
    public var displayName: String

    public init(description: String, displayName: String) {
        self.description = description
        self.displayName = displayName
    }
}

/// One SKU of a migrated subscription (`items`, and `renewalItems` when they differ at renewal).
public struct AdvancedCommerceSubscriptionMigrateItem: Codable, Sendable, Equatable {
    public var sku: String
    public var description: String
    public var displayName: String

    public init(sku: String, description: String, displayName: String) {
        self.sku = sku
        self.description = description
        self.displayName = displayName
    }

    enum CodingKeys: String, CodingKey {
        case sku = "SKU", description, displayName
    }
}

/// Body of Migrate a Subscription to Advanced Commerce API.
public struct AdvancedCommerceSubscriptionMigrateRequest: Codable, Sendable, Equatable {
    public var requestInfo: AdvancedCommerceRequestInfo
    public var descriptors: AdvancedCommerceSubscriptionMigrateDescriptors
    public var items: [AdvancedCommerceSubscriptionMigrateItem]
    public var renewalItems: [AdvancedCommerceSubscriptionMigrateItem]?
    public var storefront: String?
    /// The app's generic Advanced Commerce product the subscription moves to.
    public var targetProductId: String
    public var taxCode: String

    public init(
        requestInfo: AdvancedCommerceRequestInfo, descriptors: AdvancedCommerceSubscriptionMigrateDescriptors,
        items: [AdvancedCommerceSubscriptionMigrateItem], renewalItems: [AdvancedCommerceSubscriptionMigrateItem]? = nil,
        storefront: String? = nil, targetProductId: String, taxCode: String
    ) {
        self.requestInfo = requestInfo
        self.descriptors = descriptors
        self.items = items
        self.renewalItems = renewalItems
        self.storefront = storefront
        self.targetProductId = targetProductId
        self.taxCode = taxCode
    }
}

/// What every server action answers: the transaction and, for a subscription, its renewal info, as
/// they are after the action. (Apple names one response type per action; their fields are these.)
public struct AdvancedCommerceActionResponse: Codable, Sendable, Equatable {
    public var signedTransactionInfo: String?
    public var signedRenewalInfo: String?

    public init(signedTransactionInfo: String? = nil, signedRenewalInfo: String? = nil) {
        self.signedTransactionInfo = signedTransactionInfo
        self.signedRenewalInfo = signedRenewalInfo
    }
}
