import AppStoreServerAPI
import DeskCore
import Foundation

// The `advancedCommerceInfo` of a transaction or renewal info: as `--json` writes it (Apple's
// names, `SKU` upper-case, dates as pairs) and as text lines.

struct AdvancedCommerceRecord: Encodable {
    var displayName: String?
    var description: String?
    var period: String?
    var taxCode: String?
    var taxRate: String?
    var estimatedTax: Int64?
    var taxExclusivePrice: Int64?
    var requestReferenceId: String?
    var consistencyToken: String?
    var items: [AdvancedCommerceItemRecord]

    init(_ info: AdvancedCommerceTransactionInfo) {
        (displayName, description) = (info.descriptors?.displayName, info.descriptors?.description)
        (period, taxCode, taxRate, estimatedTax) = (info.period, info.taxCode, info.taxRate, info.estimatedTax)
        (taxExclusivePrice, requestReferenceId) = (info.taxExclusivePrice, info.requestReferenceId)
        items = (info.items ?? []).map(AdvancedCommerceItemRecord.init)
    }

    init(_ info: AdvancedCommerceRenewalInfo) {
        (displayName, description) = (info.descriptors?.displayName, info.descriptors?.description)
        (period, taxCode, requestReferenceId, consistencyToken) = (info.period, info.taxCode, info.requestReferenceId, info.consistencyToken)
        items = (info.items ?? []).map(AdvancedCommerceItemRecord.init)
    }
}

struct AdvancedCommerceItemRecord: Encodable {
    var sku: String?
    var displayName: String?
    var description: String?
    var price: Int64?
    var offer: AdvancedCommerceOffer?
    var priceIncreaseInfo: AdvancedCommercePriceIncreaseInfo?
    var revocationDate: String?
    var revocationDateMs: Int64?
    var refunds: [AdvancedCommerceRefundRecord]?

    enum CodingKeys: String, CodingKey {
        case sku = "SKU", displayName, description, price, offer, priceIncreaseInfo, revocationDate, revocationDateMs, refunds
    }

    init(_ item: AdvancedCommerceTransactionItem) {
        (sku, displayName, description, price, offer) = (item.sku, item.displayName, item.description, item.price, item.offer)
        (revocationDate, revocationDateMs) = DatePair.of(item.revocationDate)
        refunds = item.refunds.map { $0.map(AdvancedCommerceRefundRecord.init) }
    }

    init(_ item: AdvancedCommerceRenewalItem) {
        (sku, displayName, description, price, offer) = (item.sku, item.displayName, item.description, item.price, item.offer)
        priceIncreaseInfo = item.priceIncreaseInfo
    }
}

struct AdvancedCommerceRefundRecord: Encodable {
    var refundAmount: Int64?
    var refundReason: String?
    var refundType: String?
    var refundDate: String?
    var refundDateMs: Int64?

    init(_ refund: AdvancedCommerceRefund) {
        (refundAmount, refundReason, refundType) = (refund.refundAmount, refund.refundReason, refund.refundType)
        (refundDate, refundDateMs) = DatePair.of(refund.refundDate)
    }
}

extension Records {
    /// Why a transaction was revoked. An Advanced Commerce refund names its own reason (LEGAL,
    /// UNINTENDED_PURCHASE...), which Apple's two-valued revocationReason cannot: it is shown first.
    static func revocationReasonLabel(_ t: TransactionPayload) -> String? {
        let refunds = (t.advancedCommerceInfo?.items ?? []).flatMap { $0.refunds ?? [] }
        guard t.revocationDate != nil || t.revocationReason != nil,
              let latest = refunds.max(by: { ($0.refundDate ?? .distantPast) < ($1.refundDate ?? .distantPast) })?.refundReason
        else { return t.revocationReason?.label }
        return "\(AdvancedCommerceRefundReason(latest).label) (Advanced Commerce refund reason)"
    }

    /// "Studio: the plan (P1M, tax code C003-00-1)" and one line per item, for a field list.
    static func advancedCommerceLines(_ record: AdvancedCommerceRecord, currency: String?) -> [(String, String)] {
        var heading = record.displayName ?? "(no display name)"
        if let description = record.description { heading += ": " + description }
        let details = [record.period, record.taxCode.map { "tax code \($0)" }].compactMap { $0 }
        if !details.isEmpty { heading += " (" + details.joined(separator: ", ") + ")" }
        var lines = [("Advanced Commerce", heading)]
        for item in record.items {
            var line = "\(item.sku ?? "?") \(item.displayName ?? "") \(DisplayFormat.money(item.price, currency))"
            if let increase = item.priceIncreaseInfo, let price = increase.price {
                line += ", then \(DisplayFormat.money(price, currency)) (\(increase.status ?? "price increase"))"
            }
            if let ms = item.revocationDateMs { line += ", revoked \(DisplayFormat.date(Date(epochMilliseconds: ms)))" }
            for refund in item.refunds ?? [] {
                line += ", refunded \(DisplayFormat.money(refund.refundAmount, currency)) \(refund.refundType ?? "") \(refund.refundReason ?? "")"
            }
            lines.append(("  item", line))
        }
        return lines
    }
}
