import Foundation

/// The limits Apple's libraries and endpoint pages set on Advanced Commerce request bodies, checked
/// before anything is sent: each problem names the field, the limit and the error Apple would answer.
public enum AdvancedCommerceLimits {
    public static let maximumSKULength = 128
    public static let maximumDescriptionLength = 45
    public static let maximumDisplayNameLength = 30
    /// An offer's `periodCount` (no server action carries an offer; in-app requests do).
    public static let periodCountRange = 1...12

    /// Every problem of a request, in field order; empty when it may be sent.
    public static func problems(_ request: some AdvancedCommerceCheckable) -> [String] {
        var found = Problems()
        request.check(&found)
        return found.list
    }

    static func check(_ info: AdvancedCommerceRequestInfo, _ found: inout Problems) {
        if UUID(uuidString: info.requestReferenceId) == nil || info.requestReferenceId.utf8.count != 36 {
            found.add("requestInfo.requestReferenceId \"\(info.requestReferenceId)\" is not a UUID (InvalidRequestReferenceIDError 4000081)")
        }
        if let token = info.appAccountToken, !token.isEmpty, UUID(uuidString: token) == nil {
            found.add("requestInfo.appAccountToken \"\(token)\" is not a UUID (InvalidAppAccountTokenError 4000033)")
        }
    }

    static func checkStorefront(_ storefront: String?, _ found: inout Problems) {
        guard let storefront else { return }
        if storefront.utf8.count != 3 || !storefront.utf8.allSatisfy({ (0x41...0x5A).contains($0) }) {
            found.add("storefront \"\(storefront)\" is not a three-letter storefront code such as USA (InvalidStorefrontError 4000028)")
        }
    }

    static func checkCurrency(_ currency: String?, _ found: inout Problems) {
        guard let currency else { return }
        if currency.utf8.count != 3 || !currency.utf8.allSatisfy({ (0x41...0x5A).contains($0) }) {
            found.add("currency \"\(currency)\" is not an ISO 4217 code such as USD (InvalidCurrencyError 4000053)")
        }
    }

    static func checkSKU(_ sku: String, _ field: String, _ found: inout Problems) {
        if sku.isEmpty { found.add("\(field) is empty (NullSKUError 4000105)") }
        if sku.count > maximumSKULength {
            found.add("\(field) is \(sku.count) characters; Apple allows at most \(maximumSKULength) (SKULengthExceededError 4000087)")
        }
    }

    static func checkDisplayName(_ name: String?, _ field: String, _ found: inout Problems) {
        guard let name else { return }
        if name.isEmpty { found.add("\(field) is empty (InvalidDisplayNameError 4000118)") }
        if name.count > maximumDisplayNameLength {
            found.add("\(field) is \(name.count) characters; Apple allows at most \(maximumDisplayNameLength) (DisplayNameLengthExceededError 4000089)")
        }
    }

    static func checkDescription(_ text: String?, _ field: String, _ found: inout Problems) {
        guard let text else { return }
        if text.isEmpty { found.add("\(field) is empty (InvalidDescriptionError 4000119)") }
        if text.count > maximumDescriptionLength {
            found.add("\(field) is \(text.count) characters; Apple allows at most \(maximumDescriptionLength) (DescriptionLengthExceededError 4000088)")
        }
    }

    static func checkKnown<E: OpenEnum>(_ value: E, _ field: String, _ error: String, _ found: inout Problems) {
        if !value.isKnown { found.add("\(field) \"\(value.rawValue)\" is not one of \(E.knownValues.map { "\($0.rawValue)" }.joined(separator: ", ")) (\(error))") }
    }

    static func checkNoRepeats(_ skus: [String], _ field: String, _ found: inout Problems) {
        var seen: Set<String> = []
        for sku in skus where !seen.insert(sku).inserted {
            found.add("\(field) names SKU \(sku) twice (ItemCannotBeSpecifiedMultipleTimesError 4000194)")
        }
    }

    public struct Problems {
        var list: [String] = []
        mutating func add(_ problem: String) { list.append(problem) }
    }
}

/// A request body whose fields Apple limits.
public protocol AdvancedCommerceCheckable: Sendable {
    func check(_ found: inout AdvancedCommerceLimits.Problems)
}

extension AdvancedCommerceSubscriptionCancelRequest: AdvancedCommerceCheckable {
    public func check(_ found: inout AdvancedCommerceLimits.Problems) {
        AdvancedCommerceLimits.check(requestInfo, &found)
        AdvancedCommerceLimits.checkStorefront(storefront, &found)
    }
}

extension AdvancedCommerceSubscriptionRevokeRequest: AdvancedCommerceCheckable {
    public func check(_ found: inout AdvancedCommerceLimits.Problems) {
        AdvancedCommerceLimits.check(requestInfo, &found)
        AdvancedCommerceLimits.checkKnown(refundReason, "refundReason", "InvalidRefundReasonError 4000124", &found)
        AdvancedCommerceLimits.checkKnown(refundType, "refundType", "InvalidRefundTypeError 4000123", &found)
        AdvancedCommerceLimits.checkStorefront(storefront, &found)
    }
}

extension AdvancedCommerceRequestRefundRequest: AdvancedCommerceCheckable {
    public func check(_ found: inout AdvancedCommerceLimits.Problems) {
        AdvancedCommerceLimits.check(requestInfo, &found)
        if items.isEmpty { found.add("items is empty: name at least one SKU to refund (AtLeastOneItemError 4000160)") }
        for (index, item) in items.enumerated() {
            let field = "items[\(index)]"
            AdvancedCommerceLimits.checkSKU(item.sku, "\(field).SKU", &found)
            AdvancedCommerceLimits.checkKnown(item.refundReason, "\(field).refundReason", "InvalidRefundReasonError 4000124", &found)
            AdvancedCommerceLimits.checkKnown(item.refundType, "\(field).refundType", "InvalidRefundTypeError 4000123", &found)
            switch (item.refundType, item.refundAmount) {
            case (.custom, nil): found.add("\(field) is a CUSTOM refund without refundAmount (NullRefundAmountError 4000153)")
            case (.custom, let amount?) where amount <= 0:
                found.add("\(field).refundAmount \(amount) is not a positive amount (NegativeRefundAmountError 4000154)")
            case (.custom, _), (_, nil): break
            case (_, .some): found.add("\(field) gives refundAmount with refundType \(item.refundType.rawValue): only CUSTOM takes an amount (RefundAmountWithoutCustomError 4000155)")
            }
        }
        let simulated = items.filter { $0.refundReason == .simulateRefundDecline }.count
        if simulated > 0 && simulated < items.count {
            found.add("only some items have refundReason SIMULATE_REFUND_DECLINE: all or none must (PartialSimulateRefundDeclineError 4000184)")
        }
        AdvancedCommerceLimits.checkNoRepeats(items.map(\.sku), "items", &found)
        AdvancedCommerceLimits.checkCurrency(currency, &found)
        AdvancedCommerceLimits.checkStorefront(storefront, &found)
    }
}

extension AdvancedCommerceSubscriptionChangeMetadataRequest: AdvancedCommerceCheckable {
    public func check(_ found: inout AdvancedCommerceLimits.Problems) {
        AdvancedCommerceLimits.check(requestInfo, &found)
        if descriptors == nil && (items ?? []).isEmpty {
            found.add("nothing to change: give the subscription's descriptors or at least one item (AtLeastOneItemError 4000160)")
        }
        if let descriptors {
            AdvancedCommerceLimits.checkKnown(descriptors.effective, "descriptors.effective", "NullEffectiveError 4000111", &found)
            if descriptors.displayName == nil && descriptors.description == nil {
                found.add("descriptors change neither displayName nor description (AtLeastOneOfDisplayNameOrDescriptionError 4000165)")
            }
            AdvancedCommerceLimits.checkDisplayName(descriptors.displayName, "descriptors.displayName", &found)
            AdvancedCommerceLimits.checkDescription(descriptors.description, "descriptors.description", &found)
        }
        for (index, item) in (items ?? []).enumerated() {
            let field = "items[\(index)]"
            AdvancedCommerceLimits.checkSKU(item.currentSku, "\(field).currentSKU", &found)
            AdvancedCommerceLimits.checkKnown(item.effective, "\(field).effective", "NullEffectiveError 4000111", &found)
            if let sku = item.sku { AdvancedCommerceLimits.checkSKU(sku, "\(field).SKU", &found) }
            if item.sku == nil && item.displayName == nil && item.description == nil {
                found.add("\(field) changes neither SKU, displayName nor description (AtLeastOneOfDisplayNameOrDescriptionError 4000165)")
            }
            AdvancedCommerceLimits.checkDisplayName(item.displayName, "\(field).displayName", &found)
            AdvancedCommerceLimits.checkDescription(item.description, "\(field).description", &found)
        }
        AdvancedCommerceLimits.checkNoRepeats((items ?? []).map(\.currentSku), "items", &found)
        AdvancedCommerceLimits.checkStorefront(storefront, &found)
        if let taxCode, taxCode.isEmpty { found.add("taxCode is empty (InvalidTaxProductCodeError 4000127)") }
    }
}

extension AdvancedCommerceSubscriptionPriceChangeRequest: AdvancedCommerceCheckable {
    public func check(_ found: inout AdvancedCommerceLimits.Problems) {
        AdvancedCommerceLimits.check(requestInfo, &found)
        if items.isEmpty { found.add("items is empty: name at least one SKU and its new price (AtLeastOneItemError 4000160)") }
        for (index, item) in items.enumerated() {
            AdvancedCommerceLimits.checkSKU(item.sku, "items[\(index)].SKU", &found)
            if item.price < 0 { found.add("items[\(index)].price \(item.price) is negative (NegativePriceError 4000086)") }
            for (position, dependent) in (item.dependentSKUs ?? []).enumerated() {
                AdvancedCommerceLimits.checkSKU(dependent, "items[\(index)].dependentSKUs[\(position)]", &found)
            }
        }
        AdvancedCommerceLimits.checkNoRepeats(items.map(\.sku), "items", &found)
        AdvancedCommerceLimits.checkCurrency(currency, &found)
        AdvancedCommerceLimits.checkStorefront(storefront, &found)
    }
}

extension AdvancedCommerceSubscriptionMigrateRequest: AdvancedCommerceCheckable {
    public func check(_ found: inout AdvancedCommerceLimits.Problems) {
        AdvancedCommerceLimits.check(requestInfo, &found)
        if targetProductId.isEmpty { found.add("targetProductId is empty (NullTargetProductIDError 4000166)") }
        if taxCode.isEmpty { found.add("taxCode is empty (NullTaxCodeError 4000099)") }
        AdvancedCommerceLimits.checkDisplayName(descriptors.displayName, "descriptors.displayName", &found)
        AdvancedCommerceLimits.checkDescription(descriptors.description, "descriptors.description", &found)
        if items.isEmpty { found.add("items is empty: name at least one SKU (AtLeastOneItemError 4000160)") }
        for (list, name) in [(items, "items"), (renewalItems ?? [], "renewalItems")] {
            for (index, item) in list.enumerated() {
                AdvancedCommerceLimits.checkSKU(item.sku, "\(name)[\(index)].SKU", &found)
                AdvancedCommerceLimits.checkDisplayName(item.displayName, "\(name)[\(index)].displayName", &found)
                AdvancedCommerceLimits.checkDescription(item.description, "\(name)[\(index)].description", &found)
            }
            AdvancedCommerceLimits.checkNoRepeats(list.map(\.sku), name, &found)
        }
        if let renewalItems, renewalItems.isEmpty { found.add("renewalItems is empty: leave it out when the items renew as they are (AtLeastOneItemError 4000160)") }
        AdvancedCommerceLimits.checkStorefront(storefront, &found)
    }
}
