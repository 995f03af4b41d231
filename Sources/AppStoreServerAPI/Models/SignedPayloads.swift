import Foundation

// Payloads carried inside Apple's signed JWS strings. Every field is optional, as Apple's are.

/// A transaction (`signedTransactionInfo`, each of `signedTransactions`).
public struct TransactionPayload: Codable, Sendable, Equatable {
    public var originalTransactionId: String?
    public var transactionId: String?
    public var webOrderLineItemId: String?
    public var bundleId: String?
    public var productId: String?
    public var subscriptionGroupIdentifier: String?
    public var purchaseDate: Date?
    public var originalPurchaseDate: Date?
    public var expiresDate: Date?
    public var quantity: Int32?
    public var type: ProductType?
    public var appAccountToken: String?
    public var inAppOwnershipType: InAppOwnershipType?
    public var signedDate: Date?
    public var revocationReason: RevocationReason?
    public var revocationDate: Date?
    public var isUpgraded: Bool?
    public var offerType: OfferType?
    public var offerIdentifier: String?
    public var environment: AppStoreEnvironment?
    public var storefront: String?
    public var storefrontId: String?
    public var transactionReason: TransactionReason?
    public var currency: String?
    /// Milliunits of `currency`: 10990 is 10.99.
    public var price: Int64?
    public var offerDiscountType: OfferDiscountType?
    public var appTransactionId: String?
    public var offerPeriod: String?
    public var revocationType: RevocationType?
    /// Milliunits of a percent: 50000 is 50 %.
    public var revocationPercentage: Int32?
    public var advancedCommerceInfo: AdvancedCommerceTransactionInfo?
    public var billingPlanType: BillingPlanType?
    public var commitmentInfo: TransactionCommitmentInfo?
    public var previousOriginalTransactionId: String?

    public init() {}
}

/// Subscription renewal information (`signedRenewalInfo`).
public struct RenewalInfoPayload: Codable, Sendable, Equatable {
    public var expirationIntent: ExpirationIntent?
    public var originalTransactionId: String?
    public var autoRenewProductId: String?
    public var productId: String?
    public var autoRenewStatus: AutoRenewStatus?
    public var isInBillingRetryPeriod: Bool?
    public var priceIncreaseStatus: PriceIncreaseStatus?
    public var gracePeriodExpiresDate: Date?
    public var offerType: OfferType?
    public var offerIdentifier: String?
    public var signedDate: Date?
    public var environment: AppStoreEnvironment?
    public var recentSubscriptionStartDate: Date?
    public var renewalDate: Date?
    public var currency: String?
    public var renewalPrice: Int64?
    public var offerDiscountType: OfferDiscountType?
    public var eligibleWinBackOfferIds: [String]?
    public var appAccountToken: String?
    public var appTransactionId: String?
    public var offerPeriod: String?
    public var advancedCommerceInfo: AdvancedCommerceRenewalInfo?
    public var commitmentInfo: RenewalCommitmentInfo?
    public var renewalBillingPlanType: BillingPlanType?

    public init() {}
}

/// The app download transaction (`signedAppTransactionInfo`).
public struct AppTransactionPayload: Codable, Sendable, Equatable {
    public var receiptType: AppStoreEnvironment?
    public var appAppleId: Int64?
    public var bundleId: String?
    public var applicationVersion: String?
    public var versionExternalIdentifier: Int64?
    public var receiptCreationDate: Date?
    public var originalPurchaseDate: Date?
    public var originalApplicationVersion: String?
    public var deviceVerification: String?
    public var deviceVerificationNonce: String?
    public var preorderDate: Date?
    public var appTransactionId: String?
    public var originalPlatform: PurchasePlatform?

    public init() {}
}

/// A decoded App Store Server Notification V2 (`signedPayload`).
public struct NotificationPayload: Codable, Sendable, Equatable {
    public var notificationType: NotificationType?
    public var subtype: NotificationSubtype?
    public var notificationUUID: String?
    public var data: NotificationData?
    public var version: String?
    public var signedDate: Date?
    public var summary: NotificationSummary?
    public var externalPurchaseToken: ExternalPurchaseToken?
    public var appData: NotificationAppData?

    public init() {}
}

/// The `data` object of a notification about an in-app purchase.
public struct NotificationData: Codable, Sendable, Equatable {
    public var environment: AppStoreEnvironment?
    public var appAppleId: Int64?
    public var bundleId: String?
    public var bundleVersion: String?
    public var signedTransactionInfo: String?
    public var signedRenewalInfo: String?
    public var status: SubscriptionStatus?
    public var consumptionRequestReason: ConsumptionRequestReason?

    public init() {}
}

/// The `summary` object of a RENEWAL_EXTENSION / SUMMARY notification.
public struct NotificationSummary: Codable, Sendable, Equatable {
    public var environment: AppStoreEnvironment?
    public var appAppleId: Int64?
    public var bundleId: String?
    public var productId: String?
    public var requestIdentifier: String?
    public var storefrontCountryCodes: [String]?
    public var succeededCount: Int64?
    public var failedCount: Int64?

    public init() {}
}

public struct ExternalPurchaseToken: Codable, Sendable, Equatable {
    public var externalPurchaseId: String?
    public var tokenCreationDate: Int64?
    public var appAppleId: Int64?
    public var bundleId: String?
    public var tokenType: String?
    public var tokenExpirationDate: Int64?

    public init() {}
}

/// The `appData` object of a RESCIND_CONSENT notification.
public struct NotificationAppData: Codable, Sendable, Equatable {
    public var appAppleId: Int64?
    public var bundleId: String?
    public var environment: AppStoreEnvironment?
    public var signedAppTransactionInfo: String?

    public init() {}
}
