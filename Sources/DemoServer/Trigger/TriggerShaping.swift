import AppStoreServerAPI
import Foundation

/// The customer and purchase a triggered notification concerns, copied out of the demo's data.
struct TriggerSelection: Sendable {
    let customer: DemoCustomer
    let transaction: TransactionPayload?
    let subscription: DemoSubscription?
    let appTransaction: AppTransactionPayload?
    let chosen: String

    /// What a type concerns, so the right purchase of a customer is picked.
    enum Need {
        case none, subscription, oneTime, appTransaction
        /// Any purchase; one-time ones first when `preferOneTime`.
        case purchase(preferOneTime: Bool)
    }

    /// The customer any of their IDs names: transaction, original transaction, order, app
    /// transaction ID or app account token.
    static func customerNumber(of id: String, in data: DemoEnvironmentData) -> Int? {
        if let order = data.orders[id.uppercased()], let first = order.first { return data.transactions[first]?.customer }
        if let number = data.customerByID[id] { return number }
        let token = id.lowercased()
        return data.customers.first { $0.value.appAccountToken == token }?.key
    }

    static func select(_ id: String?, need: Need, kind: NotificationKind, in data: DemoEnvironmentData) throws(TriggerError) -> TriggerSelection? {
        if case .none = need { return nil }
        let number: Int
        var named: String?
        var order: [String] = []
        var chosen: String
        if let id {
            guard let found = customerNumber(of: id, in: data) else {
                throw TriggerError(
                    "\(id) is no demo customer in \(data.environment.label).",
                    hint: "Give an original transaction ID, order ID, transaction ID, app transaction ID or app account token of the demo (docs/demo.md lists them), or leave --customer out.",
                    kind: .notFound)
            }
            number = found
            if let ids = data.orders[id.uppercased()] {
                order = ids
                chosen = "order \(id.uppercased())"
            } else if data.transactions[id] != nil {
                named = id
                chosen = "transaction \(id)"
            } else {
                chosen = "customer \(id)"
            }
        } else {
            let scenarios = TriggerShaping.defaultScenarios(kind, data.environment)
            guard let match = scenarios.lazy.compactMap({ scenario in data.customers.first { $0.value.scenario == scenario } }).first else {
                throw TriggerError("The demo has no customer for \(kind) in \(data.environment.label).", hint: "Give one with --customer.", kind: .notFound)
            }
            number = match.key
            chosen = "the default for \(kind)"
        }
        let customer = data.customers[number]!
        let all = (data.customerTransactions[number] ?? []).compactMap { data.transactions[$0]?.payload }
        let pool = order.isEmpty ? all : order.compactMap { data.transactions[$0]?.payload }

        func isSubscription(_ transaction: TransactionPayload) -> Bool { transaction.type == .autoRenewableSubscription }
        func latestOfChain(_ transaction: TransactionPayload) -> TransactionPayload {
            guard let original = transaction.originalTransactionId, let subscription = data.subscriptions[original],
                  transaction.transactionId == original else { return transaction }
            return data.transactions[subscription.latestTransactionId]?.payload ?? transaction
        }
        func latestSubscription(_ from: [TransactionPayload]) -> TransactionPayload? {
            let originals = Set(from.filter(isSubscription).compactMap(\.originalTransactionId))
            return originals.compactMap { data.subscriptions[$0].flatMap { data.transactions[$0.latestTransactionId]?.payload } }
                .max { ($0.purchaseDate ?? .distantPast, $0.transactionId ?? "") < ($1.purchaseDate ?? .distantPast, $1.transactionId ?? "") }
        }
        func latestOneTime(_ from: [TransactionPayload]) -> TransactionPayload? {
            let oneTime = from.filter { !isSubscription($0) }
            // A reversal concerns a refunded purchase; the other refund steps one that was not refunded.
            let wanted = kind.type == .refundReversed ? oneTime.filter { $0.revocationDate != nil } : oneTime.filter { $0.revocationDate == nil }
            return (wanted.isEmpty ? oneTime : wanted)
                .max { ($0.purchaseDate ?? .distantPast, $0.transactionId ?? "") < ($1.purchaseDate ?? .distantPast, $1.transactionId ?? "") }
        }
        let explicit = named.flatMap { data.transactions[$0]?.payload }

        var transaction: TransactionPayload?
        switch need {
        case .none: return nil
        case .appTransaction:
            guard let appId = customer.appTransactionId, let app = data.appTransactions[appId] else {
                throw TriggerError(
                    "\(customer.scenario) has no app transaction (the app was never downloaded on this account): \(kind) carries one.",
                    hint: "Give another customer, or leave --customer out.", kind: .usage)
            }
            return TriggerSelection(customer: customer, transaction: nil, subscription: nil, appTransaction: app, chosen: chosen)
        case .subscription:
            if let explicit, isSubscription(explicit) {
                transaction = latestOfChain(explicit)
            } else {
                transaction = latestSubscription(pool) ?? latestSubscription(all)
                if let explicit, let found = transaction {
                    chosen += " (a \(explicit.type?.rawValue ?? "purchase"); its customer's subscription \(found.originalTransactionId ?? "") instead)"
                }
            }
            guard transaction != nil else {
                throw TriggerError(
                    "\(customer.scenario) has no auto-renewable subscription: \(kind) concerns one.",
                    hint: "Give a subscriber (docs/demo.md lists them), or leave --customer out.", kind: .usage)
            }
        case .oneTime:
            if let explicit, !isSubscription(explicit) {
                transaction = explicit
            } else {
                transaction = latestOneTime(pool) ?? latestOneTime(all)
                if explicit != nil, let found = transaction {
                    chosen += " (a subscription; its customer's one-time purchase \(found.transactionId ?? "") instead)"
                }
            }
            guard transaction != nil else {
                throw TriggerError(
                    "\(customer.scenario) has no one-time purchase (consumable, non-consumable or non-renewing): \(kind) concerns one.",
                    hint: "Give such a customer (docs/demo.md lists them), or leave --customer out.", kind: .usage)
            }
        case .purchase(let preferOneTime):
            if let explicit {
                transaction = latestOfChain(explicit)
            } else if preferOneTime {
                transaction = latestOneTime(pool) ?? latestSubscription(pool) ?? latestOneTime(all) ?? latestSubscription(all)
            } else {
                transaction = latestSubscription(pool) ?? latestOneTime(pool) ?? latestSubscription(all) ?? latestOneTime(all)
            }
            guard transaction != nil else {
                throw TriggerError("\(customer.scenario) has no purchase: \(kind) concerns one.", hint: "Give another customer.", kind: .usage)
            }
        }
        let subscription = transaction.flatMap { isSubscription($0) ? data.subscriptions[$0.originalTransactionId ?? ""] : nil }
        return TriggerSelection(customer: customer, transaction: transaction, subscription: subscription, appTransaction: nil, chosen: chosen)
    }
}

/// What Apple's notification of a type says about the purchase: the status, the renewal info and
/// the transaction fields the event implies, set on the customer's own records.
struct TriggerShaping {
    let kind: NotificationKind
    let environment: AppStoreEnvironment
    let now: Date
    var transaction: TransactionPayload?
    var renewal: RenewalInfoPayload?
    var appTransaction: AppTransactionPayload?
    var status: SubscriptionStatus?
    var consumptionRequestReason: ConsumptionRequestReason?

    init(kind: NotificationKind, environment: AppStoreEnvironment, now: Date, selection: TriggerSelection?) {
        self.kind = kind
        self.environment = environment
        self.now = now
        transaction = selection?.transaction
        renewal = selection?.subscription?.renewal
        appTransaction = selection?.appTransaction
        status = selection?.subscription?.status
    }

    static func need(_ kind: NotificationKind) -> TriggerSelection.Need {
        switch kind.type {
        case .test, .externalPurchaseToken: return .none
        case .renewalExtension where kind.subtype == .summary: return .none
        case .oneTimeCharge: return .oneTime
        case .refund, .refundDeclined, .refundReversed, .consumptionRequest: return .purchase(preferOneTime: true)
        case .revoke: return .purchase(preferOneTime: false)
        case .rescindConsent: return .appTransaction
        default: return .subscription
        }
    }

    /// The demo customers whose story fits the type best, the active subscriber last.
    static func defaultScenarios(_ kind: NotificationKind, _ environment: AppStoreEnvironment) -> [String] {
        let active = environment == .sandbox ? "Sandbox: active monthly subscription" : "Active monthly subscription"
        if environment == .sandbox {
            switch kind.type {
            case .oneTimeCharge, .refund, .refundDeclined, .refundReversed, .consumptionRequest: return ["Sandbox: refunded consumable", active]
            case .didFailToRenew, .gracePeriodExpired: return ["Sandbox: billing retry", active]
            case .expired: return ["Sandbox: expired after cancelling", active]
            case .subscribed where kind.subtype == .initialBuy: return ["Sandbox: free trial", active]
            default: return [active]
            }
        }
        let fitting: String?
        switch (kind.type, kind.subtype) {
        case (.oneTimeCharge, _), (.refund, _), (.refundDeclined, _), (.refundReversed, _), (.consumptionRequest, _): fitting = "Consumables and refunds"
        case (.revoke, _): fitting = "Family Sharing access revoked"
        case (.didFailToRenew, .gracePeriod?), (.gracePeriodExpired, _): fitting = "Billing grace period"
        case (.didFailToRenew, _): fitting = "Billing retry"
        case (.expired, .voluntary?): fitting = "Expired: customer cancelled"
        case (.expired, .billingRetry?): fitting = "Expired: billing error"
        case (.expired, .priceIncrease?): fitting = "Expired: price increase declined"
        case (.expired, .productNotForSale?): fitting = "Expired: product not available"
        case (.expired, _): fitting = "Expired: other reason"
        case (.priceIncrease, _): fitting = "Price increase pending"
        case (.didChangeRenewalStatus, .autoRenewDisabled?): fitting = "Auto-renew turned off"
        case (.didChangeRenewalPref, .upgrade?): fitting = "Upgraded mid-period"
        case (.offerRedeemed, _): fitting = "Promotional offer"
        case (.renewalExtended, _), (.renewalExtension, _): fitting = "Extended twice this year"
        case (.subscribed, .initialBuy?): fitting = "Introductory free trial"
        case (.subscribed, .resubscribe?): fitting = "Win-back offer"
        default: fitting = nil
        }
        return (fitting.map { [$0] } ?? []) + [active]
    }

    /// Which objects the notification carries, for `--set` on one it does not.
    func carries(_ object: PayloadObject) -> Bool {
        switch object {
        case .payload: return true
        case .data: return ![.externalPurchaseToken, .rescindConsent].contains(kind.type) && kind != NotificationKind(.renewalExtension, .summary)
        case .summary: return kind == NotificationKind(.renewalExtension, .summary)
        case .externalPurchaseToken: return kind.type == .externalPurchaseToken
        case .appData, .appTransaction: return kind.type == .rescindConsent
        case .transaction: return transaction != nil
        case .renewal: return renewal != nil
        }
    }

    /// The summary of a mass extension of Pro Monthly for the active subscribers of the environment.
    static func summary(in data: DemoEnvironmentData) -> NotificationSummary {
        let product = DemoCatalog.proMonthly.productId
        let chains = data.subscriptions.values.filter { data.transactions[$0.latestTransactionId]?.payload.productId == product }
        let succeeded = chains.filter { $0.status == .active && !$0.inFreeOffer }
        var summary = NotificationSummary()
        summary.productId = product
        summary.requestIdentifier = UUID().uuidString.lowercased()
        summary.storefrontCountryCodes = Set(chains.compactMap { data.transactions[$0.latestTransactionId]?.payload.storefront }).sorted()
        summary.succeededCount = Int64(succeeded.count)
        summary.failedCount = Int64(chains.count - succeeded.count)
        return summary
    }

    mutating func shape() {
        transaction?.signedDate = now
        renewal?.signedDate = now
        let revocable: Set<NotificationType> = [.refund, .revoke]
        if !revocable.contains(kind.type) { clearRevocation() }
        switch kind.type {
        case .subscribed:
            active()
            transaction?.transactionReason = .purchase
            if kind.subtype == .resubscribe { renewal?.recentSubscriptionStartDate = transaction?.purchaseDate }
        case .didRenew:
            active()
            transaction?.transactionReason = .renewal
        case .offerRedeemed:
            active()
            if transaction?.offerType == nil {
                transaction?.offerType = .promotionalOffer
                transaction?.offerIdentifier = "com.iapdesk.demo.promo.3months"
                transaction?.offerDiscountType = .payAsYouGo
                transaction?.offerPeriod = "P3M"
            }
            if kind.subtype == .upgrade { switchProduct(upgrade: true) }
            if kind.subtype == .downgrade { switchProduct(upgrade: false) }
        case .didChangeRenewalPref:
            switch kind.subtype {
            case .upgrade?: switchProduct(upgrade: true)
            case .downgrade?: switchProduct(upgrade: false)
            default:
                let current = renewal?.productId
                renewal?.autoRenewProductId = current
            }
        case .didChangeRenewalStatus:
            renewal?.autoRenewStatus = kind.subtype == .autoRenewEnabled ? .on : .off
            if kind.subtype == .autoRenewEnabled { renewal?.expirationIntent = nil }
        case .expired:
            dueNow()
            status = .expired
            renewal?.autoRenewStatus = .off
            renewal?.isInBillingRetryPeriod = false
            renewal?.gracePeriodExpiresDate = nil
            renewal?.renewalDate = nil
            switch kind.subtype {
            case .voluntary?: renewal?.expirationIntent = .customerCancelled
            case .billingRetry?: renewal?.expirationIntent = .billingError
            case .priceIncrease?:
                renewal?.expirationIntent = .customerDidNotConsentToPriceIncrease
                renewal?.priceIncreaseStatus = .customerHasNotResponded
            case .productNotForSale?: renewal?.expirationIntent = .productNotAvailable
            default: renewal?.expirationIntent = .other
            }
        case .didFailToRenew:
            dueNow()
            renewal?.autoRenewStatus = .on
            renewal?.isInBillingRetryPeriod = true
            renewal?.expirationIntent = .billingError
            if kind.subtype == .gracePeriod {
                status = .billingGracePeriod
                if (renewal?.gracePeriodExpiresDate ?? .distantPast) <= now {
                    // Apple's grace periods last 3, 16 or 28 days from the failed renewal.
                    let from = transaction?.expiresDate ?? now
                    let end = from.addingTimeInterval(16 * 86_400)
                    renewal?.gracePeriodExpiresDate = end > now ? end : now.addingTimeInterval(16 * 86_400)
                }
            } else {
                status = .billingRetry
                renewal?.gracePeriodExpiresDate = nil
            }
        case .gracePeriodExpired:
            dueNow()
            status = .billingRetry
            renewal?.isInBillingRetryPeriod = true
            renewal?.expirationIntent = .billingError
            if (renewal?.gracePeriodExpiresDate ?? .distantFuture) > now { renewal?.gracePeriodExpiresDate = now }
        case .priceIncrease:
            if let price = renewal?.renewalPrice, let product = transaction?.productId.flatMap(DemoCatalog.product), price <= product.price {
                // Up about a fifth, to the nearest .99.
                renewal?.renewalPrice = (product.price * 6 / 5) / 1000 * 1000 + 990
            }
            renewal?.priceIncreaseStatus = kind.subtype == .accepted ? .customerConsentedOrWasNotifiedWithoutNeedingConsent : .customerHasNotResponded
        case .refund:
            transaction?.revocationDate = now
            if transaction?.revocationReason == nil { transaction?.revocationReason = .refundedForOtherReason }
            if transaction?.revocationType == nil || transaction?.revocationType == .familyRevoke { transaction?.revocationType = .refundFull }
            if transaction?.revocationType != .refundProrated { transaction?.revocationPercentage = nil }
            if renewal != nil {
                status = .revoked
                renewal?.autoRenewStatus = .off
            }
        case .revoke:
            transaction?.inAppOwnershipType = .familyShared
            transaction?.revocationDate = now
            transaction?.revocationReason = .refundedForOtherReason
            transaction?.revocationType = .familyRevoke
            transaction?.revocationPercentage = nil
            if renewal != nil { status = .revoked }
        case .refundReversed:
            if renewal != nil, (transaction?.expiresDate ?? .distantPast) > now { status = .active }
        case .consumptionRequest:
            consumptionRequestReason = .unintendedPurchase
        case .renewalExtended:
            active()
        default:
            break
        }
        if renewal == nil { status = nil }
    }

    private mutating func clearRevocation() {
        transaction?.revocationDate = nil
        transaction?.revocationReason = nil
        transaction?.revocationType = nil
        transaction?.revocationPercentage = nil
        if status == .revoked { status = (transaction?.expiresDate ?? .distantPast) > now ? .active : .expired }
    }

    /// An active subscription: the period covers now, auto-renew is on, no billing trouble.
    private mutating func active() {
        guard renewal != nil else { return }
        status = .active
        if let expires = transaction?.expiresDate, expires <= now, let period = transaction?.productId.flatMap(DemoCatalog.product)?.period {
            transaction?.purchaseDate = now
            transaction?.expiresDate = period.advance(now, by: 1)
        }
        renewal?.autoRenewStatus = .on
        renewal?.renewalDate = transaction?.expiresDate
        renewal?.expirationIntent = nil
        renewal?.isInBillingRetryPeriod = nil
        renewal?.gracePeriodExpiresDate = nil
    }

    /// The period ended now at the latest: a renewal that failed or an expiry is not in the future.
    private mutating func dueNow() {
        if let expires = transaction?.expiresDate, expires > now { transaction?.expiresDate = now }
        if renewal?.renewalDate != nil { renewal?.renewalDate = transaction?.expiresDate }
    }

    /// An upgrade takes effect at once (a purchase of the higher product); a downgrade or crossgrade
    /// at the next renewal. A product already at the top (or bottom) of its group stays.
    private mutating func switchProduct(upgrade: Bool) {
        guard let current = transaction?.productId.flatMap(DemoCatalog.product) else { return }
        let group = DemoCatalog.all.filter { $0.subscriptionGroupIdentifier == current.subscriptionGroupIdentifier && $0.productId != current.productId }
        // Level 1 is the group's highest service, as in App Store Connect.
        let target = upgrade
            ? group.filter { $0.level < current.level }.min { $0.level < $1.level }
            : group.first { $0.level > current.level } ?? group.first { $0.period != current.period }
        guard let target else { return }
        if upgrade {
            transaction?.productId = target.productId
            transaction?.price = target.price
            transaction?.transactionReason = .purchase
            renewal?.productId = target.productId
            renewal?.renewalPrice = target.price
        }
        renewal?.autoRenewProductId = target.productId
    }
}
