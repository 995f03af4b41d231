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
}

public struct AdvancedCommerceTransactionItem: Codable, Sendable, Equatable {
    public var sku: String?
    public var description: String?
    public var displayName: String?
    public var offer: AdvancedCommerceOffer?
    public var price: Int64?
    public var refunds: [AdvancedCommerceRefund]?
    public var revocationDate: Date?

    enum CodingKeys: String, CodingKey {
        case sku = "SKU", description, displayName, offer, price, refunds, revocationDate
    }
}

public struct AdvancedCommerceRefund: Codable, Sendable, Equatable {
    public var refundAmount: Int64?
    public var refundDate: Date?
    public var refundReason: String?
    public var refundType: String?
}

public struct AdvancedCommerceRenewalInfo: Codable, Sendable, Equatable {
    public var consistencyToken: String?
    public var descriptors: AdvancedCommerceDescriptors?
    public var items: [AdvancedCommerceRenewalItem]?
    public var period: String?
    public var requestReferenceId: String?
    public var taxCode: String?
}

public struct AdvancedCommerceRenewalItem: Codable, Sendable, Equatable {
    public var sku: String?
    public var description: String?
    public var displayName: String?
    public var offer: AdvancedCommerceOffer?
    public var price: Int64?
    public var priceIncreaseInfo: AdvancedCommercePriceIncreaseInfo?

    enum CodingKeys: String, CodingKey {
        case sku = "SKU", description, displayName, offer, price, priceIncreaseInfo
    }
}

public struct AdvancedCommerceDescriptors: Codable, Sendable, Equatable {
    public var description: String?
    public var displayName: String?
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
