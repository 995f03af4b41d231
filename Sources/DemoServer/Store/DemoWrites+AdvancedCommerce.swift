import AppStoreServerAPI
import Foundation

/// What an accepted Advanced Commerce action did: whose transaction to answer with, and the
/// notification Apple sends for it.
struct DemoAdvancedCommerceOutcome: Sendable {
    let customer: Int
    let transactionId: String
    let originalTransactionId: String
    var notification: (NotificationType, NotificationSubtype?)?
}

/// The Advanced Commerce actions' checks against the state (Apple's codes) and their effects, shared
/// by the routes and the replay of the journal.
extension DemoEnvironmentData {
    mutating func applyAdvancedCommerce(_ request: DemoAdvancedCommerceRequest, to id: String, at now: Date) throws(DemoAPIError) -> DemoAdvancedCommerceOutcome {
        guard let transaction = transactions[id] else { throw .transactionIdNotFound }
        if let storefront = request.storefront, storefront != transaction.payload.storefront { throw .acMismatchedStorefront }
        let reference = request.requestInfo.requestReferenceId.lowercased()
        // Apple's Cancel a Subscription page lists no RepeatedRequestReferenceIdError: a cancel sent
        // again is answered as a cancel (auto-renew is off already; no second notification).
        let isCancel = if case .cancel = request { true } else { false }
        guard isCancel || !advancedCommerceRequests.contains(reference) else { throw .acRepeatedRequestReferenceId }
        let outcome: DemoAdvancedCommerceOutcome
        switch request {
        case .refund(let body):
            outcome = try refundItems(body, of: id, at: now)
        case .migrate(let body):
            outcome = try migrate(try subscription(of: transaction), body, at: now)
        case .cancel, .revoke, .changeMetadata, .changePrice:
            var subscription = try subscription(of: transaction)
            // Only a subscription the app manages through the Advanced Commerce API: an ordinary
            // one can only be migrated (docs/advanced-commerce.md says why this code).
            guard subscription.renewal.advancedCommerceInfo != nil else { throw .acSubscriptionNotEligible }
            var latest = transactions[subscription.latestTransactionId]!
            var notification: (NotificationType, NotificationSubtype?)?
            switch request {
            case .cancel:
                guard [.active, .billingGracePeriod, .billingRetry].contains(subscription.status) else { throw .acSubscriptionNotEligible }
                if subscription.renewal.autoRenewStatus != .off { notification = (.didChangeRenewalStatus, .autoRenewDisabled) }
                subscription.renewal.autoRenewStatus = .off
            case .revoke(let body):
                guard subscription.status == .active else { throw .acRevokeOnInactiveSubscription }
                guard latest.payload.revocationDate == nil else { throw .acAlreadyRefunded }
                if body.refundReason == .simulateRefundDecline {
                    notification = (.refundDeclined, nil)
                    break
                }
                Self.revoke(&latest, type: body.refundType, reason: body.refundReason, share: Self.unusedShare(latest.payload, at: now), at: now)
                subscription.renewal.autoRenewStatus = .off
                subscription.status = .revoked
                notification = (.refund, nil)
            case .changeMetadata(let body):
                guard [.active, .billingGracePeriod].contains(subscription.status) else { throw .acInactiveACASub }
                try changeMetadata(body, renewal: &subscription.renewal, latest: &latest)
                notification = (.metadataUpdate, nil)
            case .changePrice(let body):
                guard subscription.status == .active else { throw .acSubscriptionNotEligible }
                if let currency = body.currency, currency != subscription.renewal.currency { throw .acInvalidCurrency }
                // A change to the prices the subscription renews at already changes nothing: no PRICE_CHANGE.
                if try changePrice(body, renewal: &subscription.renewal) { notification = (.priceChange, nil) }
            default:
                break
            }
            transactions[latest.payload.transactionId!] = latest
            subscriptions[subscription.originalTransactionId] = subscription
            outcome = DemoAdvancedCommerceOutcome(
                customer: subscription.customer, transactionId: subscription.latestTransactionId,
                originalTransactionId: subscription.originalTransactionId, notification: notification)
        }
        advancedCommerceRequests.insert(reference)
        return outcome
    }

    /// The auto-renewable subscription a transaction belongs to.
    private func subscription(of transaction: DemoTransaction) throws(DemoAPIError) -> DemoSubscription {
        guard transaction.payload.type == .autoRenewableSubscription, let original = transaction.payload.originalTransactionId,
              let subscription = subscriptions[original]
        else { throw .acSubscriptionDoesNotExist }
        return subscription
    }

    /// The share of the period not used yet, in milliunits of a percent (Apple's revocationPercentage).
    static func unusedShare(_ payload: TransactionPayload, at now: Date) -> Int32 {
        guard let start = payload.purchaseDate, let end = payload.expiresDate, end > start else { return 100_000 }
        let left = min(max(end.timeIntervalSince(now) / end.timeIntervalSince(start), 0), 1)
        return Int32((left * 100_000).rounded())
    }

    /// `share` (milliunits of a percent) of `price`, in whole cents as Apple refunds.
    static func prorated(_ price: Int64, _ share: Int32) -> Int64 {
        price * Int64(share) / 100_000 / 10 * 10
    }

    /// Apple's two revocation reasons: 1 for an actual or perceived issue in the app (a fulfillment
    /// issue, a customer unsatisfied), 0 for any other (an unintended purchase, legal, ...).
    static func revocationReason(_ reason: AdvancedCommerceRefundReason) -> RevocationReason {
        [.fulfillmentIssue, .unsatisfiedWithPurchase].contains(reason) ? .refundedDueToIssue : .refundedForOtherReason
    }

    /// Revokes a transaction and every item in it with a refund of `type`.
    static func revoke(
        _ transaction: inout DemoTransaction, type: AdvancedCommerceRefundType, reason: AdvancedCommerceRefundReason, share: Int32, at now: Date
    ) {
        transaction.payload.revocationDate = now
        transaction.payload.revocationReason = Self.revocationReason(reason)
        transaction.payload.revocationType = type == .full ? .refundFull : .refundProrated
        transaction.payload.revocationPercentage = type == .full ? nil : share
        transaction.modified = now
        guard var info = transaction.payload.advancedCommerceInfo else { return }
        info.items = info.items?.map { item in
            var item = item
            let amount = type == .full ? item.price : item.price.map { Self.prorated($0, share) }
            item.revocationDate = now
            item.refunds = (item.refunds ?? []) + [AdvancedCommerceRefund(refundAmount: amount, refundDate: now, refundReason: reason.rawValue, refundType: type.rawValue)]
            return item
        }
        transaction.payload.advancedCommerceInfo = info
    }

    /// Request Transaction Refund: each item named is refunded (and revoked when asked); the
    /// transaction is revoked once every item is.
    private mutating func refundItems(_ body: AdvancedCommerceRequestRefundRequest, of id: String, at now: Date) throws(DemoAPIError) -> DemoAdvancedCommerceOutcome {
        var transaction = transactions[id]!
        guard var info = transaction.payload.advancedCommerceInfo, var items = info.items else { throw .acTransactionNotRefundable }
        guard transaction.payload.revocationDate == nil else { throw .acAlreadyRefunded }
        if let currency = body.currency, currency != transaction.payload.currency { throw .acInvalidCurrency }
        let original = transaction.payload.originalTransactionId ?? id
        let latest = subscriptions[original]?.latestTransactionId
        let share = Self.unusedShare(transaction.payload, at: now)
        for item in body.items {
            guard let index = items.firstIndex(where: { $0.sku == item.sku }) else { throw .acInvalidSKU }
            guard items[index].revocationDate == nil, (items[index].refunds ?? []).isEmpty else { throw .acAlreadyRefunded }
            if item.refundType == .prorated, latest != id { throw .acProratedOnlyLatestTransaction }
            if let amount = item.refundAmount, amount > (items[index].price ?? 0) { throw .acInvalidAmount }
        }
        let customer = transaction.customer
        if body.items.first?.refundReason == .simulateRefundDecline {
            return DemoAdvancedCommerceOutcome(customer: customer, transactionId: id, originalTransactionId: original, notification: (.refundDeclined, nil))
        }
        for item in body.items {
            let index = items.firstIndex { $0.sku == item.sku }!
            let price = items[index].price ?? 0
            let amount: Int64 = switch item.refundType {
            case .full: price
            case .prorated: Self.prorated(price, share)
            default: item.refundAmount ?? 0
            }
            items[index].refunds = [AdvancedCommerceRefund(refundAmount: amount, refundDate: now, refundReason: item.refundReason.rawValue, refundType: item.refundType.rawValue)]
            if item.revoke { items[index].revocationDate = now }
        }
        info.items = items
        transaction.payload.advancedCommerceInfo = info
        transaction.modified = now
        if items.allSatisfy({ $0.revocationDate != nil }) {
            let refunded = items.compactMap { $0.refunds?.last?.refundAmount }.reduce(0, +)
            let paid = max(items.compactMap(\.price).reduce(0, +), 1)
            transaction.payload.revocationDate = now
            transaction.payload.revocationReason = body.items.contains { Self.revocationReason($0.refundReason) == .refundedDueToIssue }
                ? .refundedDueToIssue : .refundedForOtherReason
            transaction.payload.revocationType = refunded >= paid ? .refundFull : .refundProrated
            transaction.payload.revocationPercentage = refunded >= paid ? nil : Int32(refunded * 100_000 / paid)
            if latest == id, var subscription = subscriptions[original] {
                subscription.status = .revoked
                subscription.renewal.autoRenewStatus = .off
                subscriptions[original] = subscription
            }
        }
        transactions[id] = transaction
        return DemoAdvancedCommerceOutcome(customer: customer, transactionId: id, originalTransactionId: original, notification: (.refund, nil))
    }

    private func changeMetadata(
        _ body: AdvancedCommerceSubscriptionChangeMetadataRequest, renewal: inout RenewalInfoPayload, latest: inout DemoTransaction
    ) throws(DemoAPIError) {
        var next = renewal.advancedCommerceInfo!
        var current = latest.payload.advancedCommerceInfo
        if let descriptors = body.descriptors {
            func apply(_ target: inout AdvancedCommerceDescriptors?) {
                var changed = target ?? AdvancedCommerceDescriptors()
                if let name = descriptors.displayName { changed.displayName = name }
                if let text = descriptors.description { changed.description = text }
                target = changed
            }
            apply(&next.descriptors)
            if descriptors.effective == .immediately, current != nil { apply(&current!.descriptors) }
        }
        for item in body.items ?? [] {
            guard let index = next.items?.firstIndex(where: { $0.sku == item.currentSku }) else { throw .acInvalidSKU }
            if let sku = item.sku, sku != item.currentSku, next.items?.contains(where: { $0.sku == sku }) == true { throw .acInvalidSKU }
            next.items![index].sku = item.sku ?? item.currentSku
            if let name = item.displayName { next.items![index].displayName = name }
            if let text = item.description { next.items![index].description = text }
            if item.effective == .immediately, let position = current?.items?.firstIndex(where: { $0.sku == item.currentSku }) {
                current!.items![position].sku = item.sku ?? item.currentSku
                if let name = item.displayName { current!.items![position].displayName = name }
                if let text = item.description { current!.items![position].description = text }
            }
        }
        if let taxCode = body.taxCode { next.taxCode = taxCode }
        renewal.advancedCommerceInfo = next
        latest.payload.advancedCommerceInfo = current
    }

    /// New prices from the next renewal; an increase is marked SCHEDULED until it takes effect.
    /// Whether any price changed.
    private func changePrice(_ body: AdvancedCommerceSubscriptionPriceChangeRequest, renewal: inout RenewalInfoPayload) throws(DemoAPIError) -> Bool {
        var next = renewal.advancedCommerceInfo!
        var items = next.items ?? []
        let before = items
        for change in body.items {
            guard let index = items.firstIndex(where: { $0.sku == change.sku }) else { throw .acInvalidSKU }
            for dependent in change.dependentSKUs ?? [] where !items.contains(where: { $0.sku == dependent }) { throw .acInvalidSKU }
            guard change.price != items[index].price else { continue }
            let increase = change.price > (items[index].price ?? 0)
            items[index].priceIncreaseInfo = increase
                ? AdvancedCommercePriceIncreaseInfo(dependentSKUs: change.dependentSKUs, price: change.price, status: "SCHEDULED") : nil
            items[index].price = change.price
        }
        next.items = items
        renewal.advancedCommerceInfo = next
        renewal.renewalPrice = items.compactMap(\.price).reduce(0, +)
        return items != before
    }

    /// An In-App Purchase subscription becomes one the app manages: it renews as the target product
    /// with the items given, at the price it renews at now.
    private mutating func migrate(_ found: DemoSubscription, _ body: AdvancedCommerceSubscriptionMigrateRequest, at now: Date) throws(DemoAPIError) -> DemoAdvancedCommerceOutcome {
        var subscription = found
        guard subscription.renewal.advancedCommerceInfo == nil else { throw .acSubscriptionAlreadyMigrated }
        guard [.active, .billingGracePeriod].contains(subscription.status) else { throw .acInactiveACASub }
        var latest = transactions[subscription.latestTransactionId]!
        guard latest.payload.inAppOwnershipType != .familyShared else { throw .acSubscriptionNotEligible }
        guard subscription.renewal.priceIncreaseStatus != .customerHasNotResponded else { throw .acMigrationNotAllowedWhenPriceIncreaseCommunicated }
        guard let target = DemoCatalog.product(body.targetProductId) else { throw .acProductNotFound }
        guard target.isAdvancedCommerce, target.type == .autoRenewableSubscription else { throw .acInvalidTargetProductId }
        let period = DemoCatalog.product(latest.payload.productId ?? "")?.period.map(Self.isoPeriod)
        let descriptors = AdvancedCommerceDescriptors(description: body.descriptors.description, displayName: body.descriptors.displayName)
        func priced(_ items: [AdvancedCommerceSubscriptionMigrateItem], total: Int64) -> [(AdvancedCommerceSubscriptionMigrateItem, Int64)] {
            items.enumerated().map { ($1, $0 == 0 ? total : 0) }
        }
        let renewalPrice = subscription.renewal.renewalPrice ?? target.price
        subscription.renewal.autoRenewProductId = target.productId
        subscription.renewal.advancedCommerceInfo = AdvancedCommerceRenewalInfo(
            consistencyToken: "1.\(subscription.originalTransactionId).\(body.requestInfo.requestReferenceId.lowercased())", descriptors: descriptors,
            items: priced(body.renewalItems ?? body.items, total: renewalPrice).map {
                AdvancedCommerceRenewalItem(sku: $0.sku, description: $0.description, displayName: $0.displayName, price: $1)
            }, period: period, requestReferenceId: body.requestInfo.requestReferenceId, taxCode: body.taxCode)
        latest.payload.advancedCommerceInfo = AdvancedCommerceTransactionInfo(
            descriptors: descriptors, items: priced(body.items, total: latest.payload.price ?? 0).map {
                AdvancedCommerceTransactionItem(sku: $0.sku, description: $0.description, displayName: $0.displayName, price: $1)
            }, period: period, requestReferenceId: body.requestInfo.requestReferenceId, taxCode: body.taxCode)
        latest.modified = now
        transactions[subscription.latestTransactionId] = latest
        subscriptions[subscription.originalTransactionId] = subscription
        return DemoAdvancedCommerceOutcome(
            customer: subscription.customer, transactionId: subscription.latestTransactionId, originalTransactionId: subscription.originalTransactionId,
            notification: (.migration, nil))
    }

    static func isoPeriod(_ period: DemoPeriod) -> String {
        switch period {
        case .days(let n): return "P\(n)D"
        case .weeks(let n): return "P\(n)W"
        case .months(let n): return "P\(n)M"
        case .years(let n): return "P\(n)Y"
        }
    }
}
