import Foundation

// Advanced Commerce details that can appear inside transactions and renewal info.
// Period and reason values are kept as strings: they are shown, never acted on.

public struct AdvancedCommerceTransactionInfo: Codable, Sendable, Equatable {
    public var descriptors: AdvancedCommerceDescriptors?
    public var estimatedTax: Int64?
    public var items: [AdvancedCommerceTransactionItem]?
    public var period: String?
    public var requestReferenceId: String?
    public var taxCode: String?
    public var taxExclusivePrice: Int64?
    public var taxRate: String?

    public init(
        descriptors: AdvancedCommerceDescriptors? = nil, estimatedTax: Int64? = nil,
        items: [AdvancedCommerceTransactionItem]? = nil, period: String? = nil, requestReferenceId: String? = nil,
        taxCode: String? = nil, taxExclusivePrice: Int64? = nil, taxRate: String? = nil
    ) {
        self.descriptors = descriptors
        self.estimatedTax = estimatedTax
        self.items = items
        self.period = period
        self.requestReferenceId = requestReferenceId
        self.taxCode = taxCode
        self.taxExclusivePrice = taxExclusivePrice
        self.taxRate = taxRate
    }
}

public struct AdvancedCommerceTransactionItem: Codable, Sendable, Equatable {
    public var sku: String?
    public var description: String?
    public var displayName: String?
    public var offer: AdvancedCommerceOffer?
    public var price: Int64?
    public var refunds: [AdvancedCommerceRefund]?
    public var revocationDate: Date?

    public init(
        sku: String? = nil, description: String? = nil, displayName: String? = nil, offer: AdvancedCommerceOffer? = nil,
        price: Int64? = nil, refunds: [AdvancedCommerceRefund]? = nil, revocationDate: Date? = nil
    ) {
        self.sku = sku
        self.description = description
        self.displayName = displayName
        self.offer = offer
        self.price = price
        self.refunds = refunds
        self.revocationDate = revocationDate
    }

    enum CodingKeys: String, CodingKey {
        case sku = "SKU", description, displayName, offer, price, refunds, revocationDate
    }
}

public struct AdvancedCommerceRefund: Codable, Sendable, Equatable {
    public var refundAmount: Int64?
    public var refundDate: Date?
    public var refundReason: String?
    public var refundType: String?

    public init(refundAmount: Int64? = nil, refundDate: Date? = nil, refundReason: String? = nil, refundType: String? = nil) {
        self.refundAmount = refundAmount
        self.refundDate = refundDate
        self.refundReason = refundReason
        self.refundType = refundType
    }
}

public struct AdvancedCommerceRenewalInfo: Codable, Sendable, Equatable {
    public var consistencyToken: String?
    public var descriptors: AdvancedCommerceDescriptors?
    public var items: [AdvancedCommerceRenewalItem]?
    public var period: String?
    public var requestReferenceId: String?
    public var taxCode: String?

    public init(
        consistencyToken: String? = nil, descriptors: AdvancedCommerceDescriptors? = nil,
        items: [AdvancedCommerceRenewalItem]? = nil, period: String? = nil, requestReferenceId: String? = nil,
        taxCode: String? = nil
    ) {
        self.consistencyToken = consistencyToken
        self.descriptors = descriptors
        self.items = items
        self.period = period
        self.requestReferenceId = requestReferenceId
        self.taxCode = taxCode
    }
}

public struct AdvancedCommerceRenewalItem: Codable, Sendable, Equatable {
    public var sku: String?
    public var description: String?
    public var displayName: String?
    public var offer: AdvancedCommerceOffer?
    public var price: Int64?
    public var priceIncreaseInfo: AdvancedCommercePriceIncreaseInfo?

    public init(
        sku: String? = nil, description: String? = nil, displayName: String? = nil, offer: AdvancedCommerceOffer? = nil,
        price: Int64? = nil, priceIncreaseInfo: AdvancedCommercePriceIncreaseInfo? = nil
    ) {
        self.sku = sku
        self.description = description
        self.displayName = displayName
        self.offer = offer
        self.price = price
        self.priceIncreaseInfo = priceIncreaseInfo
    }

    enum CodingKeys: String, CodingKey {
        case sku = "SKU", description, displayName, offer, price, priceIncreaseInfo
    }
}

public struct AdvancedCommerceDescriptors: Codable, Sendable, Equatable {
    public var description: String?
    public var displayName: String?

    public init(description: String? = nil, displayName: String? = nil) {
        self.description = description
        self.displayName = displayName
    }
}

public struct AdvancedCommerceOffer: Codable, Sendable, Equatable {
    public var period: String?
    public var periodCount: Int32?
    public var price: Int64?
    public var reason: String?
}

public struct AdvancedCommercePriceIncreaseInfo: Codable, Sendable, Equatable {
    public var dependentSKUs: [String]?
    public var price: Int64?
    public var status: String?

    public init(dependentSKUs: [String]? = nil, price: Int64? = nil, status: String? = nil) {
        self.dependentSKUs = dependentSKUs
        self.price = price
        self.status = status
    }
}

public struct TransactionCommitmentInfo: Codable, Sendable, Equatable {
    public var billingPeriodNumber: Int32?
    public var commitmentExpiresDate: Date?
    public var commitmentPrice: Int64?
    public var totalBillingPeriods: Int32?
}

public struct RenewalCommitmentInfo: Codable, Sendable, Equatable {
    public var commitmentAutoRenewProductId: String?
    public var commitmentAutoRenewStatus: AutoRenewStatus?
    public var commitmentRenewalBillingPlanType: BillingPlanType?
    public var commitmentRenewalDate: Date?
    public var commitmentRenewalPrice: Int64?
}
