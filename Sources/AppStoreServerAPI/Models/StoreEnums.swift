// Enumerations of App Store Server API payloads. Wire values are Apple's; labels are ours.

/// Where a record lives (`environment`, `receiptType`).
public enum AppStoreEnvironment: OpenEnum {
    case sandbox, production, xcode, localTesting
    case unknown(String)
    public typealias RawValue = String
    public static let catalog: [(value: Self, raw: String, label: String)] = [
        (.sandbox, "Sandbox", "Sandbox"),
        (.production, "Production", "Production"),
        (.xcode, "Xcode", "Xcode (StoreKit Testing)"),
        (.localTesting, "LocalTesting", "Local testing"),
    ]
}

/// Product type inside a transaction (`type`).
public enum ProductType: OpenEnum {
    case autoRenewableSubscription, nonConsumable, consumable, nonRenewingSubscription
    case unknown(String)
    public typealias RawValue = String
    public static let catalog: [(value: Self, raw: String, label: String)] = [
        (.autoRenewableSubscription, "Auto-Renewable Subscription", "Auto-renewable subscription"),
        (.nonConsumable, "Non-Consumable", "Non-consumable"),
        (.consumable, "Consumable", "Consumable"),
        (.nonRenewingSubscription, "Non-Renewing Subscription", "Non-renewing subscription"),
    ]
}

/// Product type filter of Get Transaction History (`productType` query parameter).
public enum HistoryProductType: OpenEnum {
    case autoRenewable, nonRenewable, consumable, nonConsumable
    case unknown(String)
    public typealias RawValue = String
    public static let catalog: [(value: Self, raw: String, label: String)] = [
        (.autoRenewable, "AUTO_RENEWABLE", "Auto-renewable subscription"),
        (.nonRenewable, "NON_RENEWABLE", "Non-renewing subscription"),
        (.consumable, "CONSUMABLE", "Consumable"),
        (.nonConsumable, "NON_CONSUMABLE", "Non-consumable"),
    ]
}

/// Sort order of Get Transaction History, by the record's last-modified date.
public enum HistorySortOrder: OpenEnum {
    case ascending, descending
    case unknown(String)
    public typealias RawValue = String
    public static let catalog: [(value: Self, raw: String, label: String)] = [
        (.ascending, "ASCENDING", "Oldest first"),
        (.descending, "DESCENDING", "Newest first"),
    ]
}

public enum InAppOwnershipType: OpenEnum {
    case familyShared, purchased, assigned
    case unknown(String)
    public typealias RawValue = String
    public static let catalog: [(value: Self, raw: String, label: String)] = [
        (.familyShared, "FAMILY_SHARED", "Family shared"),
        (.purchased, "PURCHASED", "Purchased"),
        (.assigned, "ASSIGNED", "Assigned by a group"),
    ]
}

public enum TransactionReason: OpenEnum {
    case purchase, renewal
    case unknown(String)
    public typealias RawValue = String
    public static let catalog: [(value: Self, raw: String, label: String)] = [
        (.purchase, "PURCHASE", "Purchase"),
        (.renewal, "RENEWAL", "Renewal"),
    ]
}

public enum OfferType: OpenEnum {
    case introductoryOffer, promotionalOffer, offerCode, winBackOffer
    case unknown(Int)
    public typealias RawValue = Int
    public static let catalog: [(value: Self, raw: Int, label: String)] = [
        (.introductoryOffer, 1, "Introductory offer"),
        (.promotionalOffer, 2, "Promotional offer"),
        (.offerCode, 3, "Offer code"),
        (.winBackOffer, 4, "Win-back offer"),
    ]
}

public enum OfferDiscountType: OpenEnum {
    case freeTrial, payAsYouGo, payUpFront, oneTime
    case unknown(String)
    public typealias RawValue = String
    public static let catalog: [(value: Self, raw: String, label: String)] = [
        (.freeTrial, "FREE_TRIAL", "Free trial"),
        (.payAsYouGo, "PAY_AS_YOU_GO", "Pay as you go"),
        (.payUpFront, "PAY_UP_FRONT", "Pay up front"),
        (.oneTime, "ONE_TIME", "One-time offer code"),
    ]
}

public enum RevocationReason: OpenEnum {
    case refundedForOtherReason, refundedDueToIssue
    case unknown(Int)
    public typealias RawValue = Int
    public static let catalog: [(value: Self, raw: Int, label: String)] = [
        (.refundedForOtherReason, 0, "Refunded for another reason (such as an accidental purchase)"),
        (.refundedDueToIssue, 1, "Refunded because of an actual or perceived issue in the app"),
    ]
}

public enum RevocationType: OpenEnum {
    case refundFull, refundProrated, familyRevoke
    case unknown(String)
    public typealias RawValue = String
    public static let catalog: [(value: Self, raw: String, label: String)] = [
        (.refundFull, "REFUND_FULL", "Full refund"),
        (.refundProrated, "REFUND_PRORATED", "Prorated refund"),
        (.familyRevoke, "FAMILY_REVOKE", "Family Sharing access removed"),
    ]
}

/// Subscription status (`status`), also a filter of Get All Subscription Statuses.
public enum SubscriptionStatus: OpenEnum {
    case active, expired, billingRetry, billingGracePeriod, revoked
    case unknown(Int)
    public typealias RawValue = Int
    public static let catalog: [(value: Self, raw: Int, label: String)] = [
        (.active, 1, "Active"),
        (.expired, 2, "Expired"),
        (.billingRetry, 3, "Billing retry"),
        (.billingGracePeriod, 4, "Grace period"),
        (.revoked, 5, "Revoked"),
    ]
}

public enum ExpirationIntent: OpenEnum {
    case customerCancelled, billingError, customerDidNotConsentToPriceIncrease, productNotAvailable, other
    case unknown(Int)
    public typealias RawValue = Int
    public static let catalog: [(value: Self, raw: Int, label: String)] = [
        (.customerCancelled, 1, "Customer cancelled"),
        (.billingError, 2, "Billing error"),
        (.customerDidNotConsentToPriceIncrease, 3, "Did not consent to a price increase"),
        (.productNotAvailable, 4, "Product not available at renewal"),
        (.other, 5, "Other reason"),
    ]
}

public enum AutoRenewStatus: OpenEnum {
    case off, on
    case unknown(Int)
    public typealias RawValue = Int
    public static let catalog: [(value: Self, raw: Int, label: String)] = [
        (.off, 0, "Off"),
        (.on, 1, "On"),
    ]
}

public enum PriceIncreaseStatus: OpenEnum {
    case customerHasNotResponded, customerConsentedOrWasNotifiedWithoutNeedingConsent
    case unknown(Int)
    public typealias RawValue = Int
    public static let catalog: [(value: Self, raw: Int, label: String)] = [
        (.customerHasNotResponded, 0, "Customer has not responded"),
        (.customerConsentedOrWasNotifiedWithoutNeedingConsent, 1, "Consented, or notified without needing consent"),
    ]
}

/// Reason given with a renewal date extension (`extendReasonCode`).
public enum ExtendReasonCode: OpenEnum {
    case undeclared, customerSatisfaction, other, serviceIssueOrOutage
    case unknown(Int)
    public typealias RawValue = Int
    public static let catalog: [(value: Self, raw: Int, label: String)] = [
        (.undeclared, 0, "Undeclared"),
        (.customerSatisfaction, 1, "Customer satisfaction"),
        (.other, 2, "Other"),
        (.serviceIssueOrOutage, 3, "Service issue or outage"),
    ]
}

public enum OrderLookupStatus: OpenEnum {
    case valid, invalid
    case unknown(Int)
    public typealias RawValue = Int
    public static let catalog: [(value: Self, raw: Int, label: String)] = [
        (.valid, 0, "Valid"),
        (.invalid, 1, "Invalid order ID"),
    ]
}

public enum PurchasePlatform: OpenEnum {
    case iOS, macOS, tvOS, visionOS
    case unknown(String)
    public typealias RawValue = String
    public static let catalog: [(value: Self, raw: String, label: String)] = [
        (.iOS, "iOS", "iOS"),
        (.macOS, "macOS", "macOS"),
        (.tvOS, "tvOS", "tvOS"),
        (.visionOS, "visionOS", "visionOS"),
    ]
}

public enum BillingPlanType: OpenEnum {
    case billedUpfront, monthly
    case unknown(String)
    public typealias RawValue = String
    public static let catalog: [(value: Self, raw: String, label: String)] = [
        (.billedUpfront, "BILLED_UPFRONT", "Billed up front"),
        (.monthly, "MONTHLY", "Monthly within a 12-month commitment"),
    ]
}
