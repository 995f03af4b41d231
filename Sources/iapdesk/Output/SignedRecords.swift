import AppStoreServerAPI
import DeskCore
import Foundation

// Apple's signed records as `--json` writes them, each with its verification alongside. The member
// names are the documented field names (docs/cli.md, docs/webhooks.md): Apple's own where the
// record carries one of Apple's fields, dates as `DatePair`s (`purchaseDate`, `purchaseDateMs`).

/// The status and, when known, each check: {"check": "bundle ID", "outcome": "passed", "text": ...}.
struct VerificationRecord: Encodable {
    var status: String
    var appleStatus: String?
    var reason: String?
    var checks: [CheckRecord]?

    init(_ status: VerificationStatus, checks: [VerificationCheck] = []) {
        switch status {
        case .verified: self.status = "verified"
        case .failed(let failure): (self.status, appleStatus, reason) = ("failed", failure.appleStatus, failure.description)
        case .notChecked(let reason): (self.status, self.reason) = ("not_checked", reason)
        }
        self.checks = checks.isEmpty ? nil : checks.map(CheckRecord.init)
    }
}

struct CheckRecord: Encodable {
    var check: String
    var outcome: String
    var text: String

    init(_ check: VerificationCheck) {
        self.check = check.subject.rawValue
        switch check.outcome {
        case .passed: outcome = "passed"
        case .failed: outcome = "failed"
        case .notGiven: outcome = "not_given"
        case .notCarried: outcome = "not_carried"
        case .notApplicable: outcome = "not_applicable"
        case .notMade: outcome = "not_made"
        }
        text = check.text
    }
}

/// One of Apple's attempts to send a notification.
struct AttemptRecord: Encodable {
    var result: SendAttemptResult?
    var attemptDate: String?
    var attemptDateMs: Int64?

    init(_ attempt: SendAttemptItem) {
        result = attempt.sendAttemptResult
        (attemptDate, attemptDateMs) = DatePair.of(attempt.attemptDate)
    }
}

/// A signed transaction: the string as it arrived, beside what it says, so a script can keep or
/// re-verify it. Only the verification and the string when the payload cannot be read.
struct TransactionRecord: Encodable {
    var verification: VerificationRecord
    var signedTransactionInfo: String?
    var transactionId: String?
    var originalTransactionId: String?
    var webOrderLineItemId: String?
    var bundleId: String?
    var productId: String?
    var subscriptionGroupIdentifier: String?
    var quantity: Int?
    var type: ProductType?
    var appAccountToken: String?
    var inAppOwnershipType: InAppOwnershipType?
    var revocationReason: RevocationReason?
    var revocationType: RevocationType?
    var revocationPercentage: Int?
    var isUpgraded: Bool?
    var offerType: OfferType?
    var offerIdentifier: String?
    var offerDiscountType: OfferDiscountType?
    var offerPeriod: String?
    var environment: AppStoreEnvironment?
    var storefront: String?
    var storefrontId: String?
    var transactionReason: TransactionReason?
    var currency: String?
    var price: Int64?
    var appTransactionId: String?
    var purchaseDate: String?
    var purchaseDateMs: Int64?
    var originalPurchaseDate: String?
    var originalPurchaseDateMs: Int64?
    var expiresDate: String?
    var expiresDateMs: Int64?
    var signedDate: String?
    var signedDateMs: Int64?
    var revocationDate: String?
    var revocationDateMs: Int64?
    var advancedCommerceInfo: AdvancedCommerceRecord?

    init(_ verified: VerifiedPayload<TransactionPayload>) {
        verification = VerificationRecord(verified.status, checks: verified.checks)
        signedTransactionInfo = verified.signed
        guard let t = verified.payload else { return }
        (transactionId, originalTransactionId, webOrderLineItemId) = (t.transactionId, t.originalTransactionId, t.webOrderLineItemId)
        (bundleId, productId, subscriptionGroupIdentifier) = (t.bundleId, t.productId, t.subscriptionGroupIdentifier)
        (quantity, type, appAccountToken, inAppOwnershipType) = (t.quantity.map { Int($0) }, t.type, t.appAccountToken, t.inAppOwnershipType)
        (revocationReason, revocationType, revocationPercentage) = (t.revocationReason, t.revocationType, t.revocationPercentage.map { Int($0) })
        isUpgraded = t.isUpgraded
        (offerType, offerIdentifier, offerDiscountType, offerPeriod) = (t.offerType, t.offerIdentifier, t.offerDiscountType, t.offerPeriod)
        (environment, storefront, storefrontId, transactionReason) = (t.environment, t.storefront, t.storefrontId, t.transactionReason)
        (currency, price, appTransactionId) = (t.currency, t.price, t.appTransactionId)
        (purchaseDate, purchaseDateMs) = DatePair.of(t.purchaseDate)
        (originalPurchaseDate, originalPurchaseDateMs) = DatePair.of(t.originalPurchaseDate)
        (expiresDate, expiresDateMs) = DatePair.of(t.expiresDate)
        (signedDate, signedDateMs) = DatePair.of(t.signedDate)
        (revocationDate, revocationDateMs) = DatePair.of(t.revocationDate)
        advancedCommerceInfo = t.advancedCommerceInfo.map(AdvancedCommerceRecord.init)
    }
}

/// A signed renewal info, as `TransactionRecord` is a transaction.
struct RenewalRecord: Encodable {
    var verification: VerificationRecord
    var signedRenewalInfo: String?
    var originalTransactionId: String?
    var productId: String?
    var autoRenewProductId: String?
    var autoRenewStatus: AutoRenewStatus?
    var expirationIntent: ExpirationIntent?
    var isInBillingRetryPeriod: Bool?
    var priceIncreaseStatus: PriceIncreaseStatus?
    var offerType: OfferType?
    var offerIdentifier: String?
    var offerDiscountType: OfferDiscountType?
    var offerPeriod: String?
    var environment: AppStoreEnvironment?
    var currency: String?
    var renewalPrice: Int64?
    var eligibleWinBackOfferIds: [String]?
    var appAccountToken: String?
    var appTransactionId: String?
    var renewalDate: String?
    var renewalDateMs: Int64?
    var gracePeriodExpiresDate: String?
    var gracePeriodExpiresDateMs: Int64?
    var recentSubscriptionStartDate: String?
    var recentSubscriptionStartDateMs: Int64?
    var signedDate: String?
    var signedDateMs: Int64?
    var advancedCommerceInfo: AdvancedCommerceRecord?

    init(_ verified: VerifiedPayload<RenewalInfoPayload>) {
        verification = VerificationRecord(verified.status, checks: verified.checks)
        signedRenewalInfo = verified.signed
        guard let r = verified.payload else { return }
        (originalTransactionId, productId, autoRenewProductId) = (r.originalTransactionId, r.productId, r.autoRenewProductId)
        (autoRenewStatus, expirationIntent, isInBillingRetryPeriod) = (r.autoRenewStatus, r.expirationIntent, r.isInBillingRetryPeriod)
        priceIncreaseStatus = r.priceIncreaseStatus
        (offerType, offerIdentifier, offerDiscountType, offerPeriod) = (r.offerType, r.offerIdentifier, r.offerDiscountType, r.offerPeriod)
        (environment, currency, renewalPrice) = (r.environment, r.currency, r.renewalPrice)
        (eligibleWinBackOfferIds, appAccountToken, appTransactionId) = (r.eligibleWinBackOfferIds, r.appAccountToken, r.appTransactionId)
        (renewalDate, renewalDateMs) = DatePair.of(r.renewalDate)
        (gracePeriodExpiresDate, gracePeriodExpiresDateMs) = DatePair.of(r.gracePeriodExpiresDate)
        (recentSubscriptionStartDate, recentSubscriptionStartDateMs) = DatePair.of(r.recentSubscriptionStartDate)
        (signedDate, signedDateMs) = DatePair.of(r.signedDate)
        advancedCommerceInfo = r.advancedCommerceInfo.map(AdvancedCommerceRecord.init)
    }
}

/// A signed app transaction (Get App Transaction Info): the customer's download of the app.
struct AppTransactionRecord: Encodable {
    var verification: VerificationRecord
    var signedAppTransactionInfo: String?
    var appTransactionId: String?
    var receiptType: AppStoreEnvironment?
    var appAppleId: Int64?
    var bundleId: String?
    var applicationVersion: String?
    var versionExternalIdentifier: Int64?
    var originalApplicationVersion: String?
    var originalPlatform: PurchasePlatform?
    var deviceVerification: String?
    var deviceVerificationNonce: String?
    var originalPurchaseDate: String?
    var originalPurchaseDateMs: Int64?
    var receiptCreationDate: String?
    var receiptCreationDateMs: Int64?
    var preorderDate: String?
    var preorderDateMs: Int64?

    init(_ verified: VerifiedPayload<AppTransactionPayload>) {
        verification = VerificationRecord(verified.status, checks: verified.checks)
        signedAppTransactionInfo = verified.signed
        guard let a = verified.payload else { return }
        (appTransactionId, receiptType, appAppleId, bundleId) = (a.appTransactionId, a.receiptType, a.appAppleId, a.bundleId)
        (applicationVersion, versionExternalIdentifier) = (a.applicationVersion, a.versionExternalIdentifier)
        (originalApplicationVersion, originalPlatform) = (a.originalApplicationVersion, a.originalPlatform)
        (deviceVerification, deviceVerificationNonce) = (a.deviceVerification, a.deviceVerificationNonce)
        (originalPurchaseDate, originalPurchaseDateMs) = DatePair.of(a.originalPurchaseDate)
        (receiptCreationDate, receiptCreationDateMs) = DatePair.of(a.receiptCreationDate)
        (preorderDate, preorderDateMs) = DatePair.of(a.preorderDate)
    }
}
