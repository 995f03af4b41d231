/// Every `errorCode` Apple documents for the App Store Server API, Retention Messaging API and
/// Advanced Commerce API's server actions.
/// A code this build does not know is kept as `unknown(code)` with its message.
public enum APIErrorCode: Hashable, Sendable {
    case generalBadRequest, invalidAppIdentifier, invalidRequestRevision, invalidTransactionId
    case invalidOriginalTransactionId, invalidExtendByDays, invalidExtendReasonCode, invalidRequestIdentifier
    case startDateTooFarInPast, startDateAfterEndDate, invalidPaginationToken, invalidStartDate, invalidEndDate
    case paginationTokenExpired, invalidNotificationType, multipleFiltersSupplied, invalidTestNotificationToken
    case invalidSort, invalidProductType, invalidProductId, invalidSubscriptionGroupIdentifier, invalidExcludeRevoked
    case invalidInAppOwnershipType, invalidEmptyStorefrontCountryCodeList, invalidStorefrontCountryCode
    case invalidRevoked, invalidStatus, invalidAccountTenure, invalidAppAccountToken, invalidConsumptionStatus
    case invalidCustomerConsented, invalidDeliveryStatus, invalidLifetimeDollarsPurchased
    case invalidLifetimeDollarsRefunded, invalidPlatform, invalidPlayTime, invalidSampleContentProvided
    case invalidUserStatus, invalidTransactionNotConsumable, invalidRefundPreference
    case invalidTransactionTypeNotSupported, appTransactionIdNotSupported
    case invalidImage, headerTooLong, bodyTooLong, invalidLocale, altTextTooLong
    case invalidAppAccountTokenUUID, familyTransactionNotSupported, transactionIdNotOriginalTransactionId
    case consumptionPercentageAutoRenewableSubscription
    case invalidPerformanceTestRequest, invalidRequestId, existingPerformanceTestRun, badRequestRealtimeUrl
    case badRequestImageSize, badRequestTooManyBulletPoints, badRequestBulletPointTextTooLong
    case badRequestAboveImageRequiresAnImage, invalidGroupId, invalidAssignedTransactionNotSupported
    case subscriptionExtensionIneligible, subscriptionMaxExtension, familySharedSubscriptionExtensionIneligible
    case maximumNumberOfImagesReached, maximumNumberOfMessagesReached, messageNotApproved, imageNotApproved
    case imageInUse, forbiddenNoPassingTest, assignedSubscriptionExtensionIneligible
    case accountNotFound, accountNotFoundRetryable, appNotFound, appNotFoundRetryable
    case originalTransactionIdNotFound, originalTransactionIdNotFoundRetryable, serverNotificationUrlNotFound
    case testNotificationNotFound, statusRequestNotFound, transactionIdNotFound, imageNotFound, messageNotFound
    case performanceTestRunNotFound, appTransactionDoesNotExist, defaultMessageNotFound, realtimeUrlNotFound
    case imageAlreadyExists, messageAlreadyExists, rateLimitExceeded, generalInternal, generalInternalRetryable
    // Advanced Commerce API (APIErrorCatalog+AdvancedCommerce.swift).
    case invalidCurrency, negativePrice, skuLengthExceeded, descriptionLengthExceeded, displayNameLengthExceeded
    case nullRequestInfo, nullRequestReferenceId, invalidRequestReferenceId, invalidConsistencyToken, repeatedRequestReferenceId
    case nullTaxCode, nullItems, nullDescriptors, nullSKU, nullDisplayName, nullDescription, nullPrice, nullEffective
    case invalidProductChanges, invalidDisplayName, invalidDescription, invalidProduct, invalidSKU, invalidRefundType
    case invalidRefundReason, invalidTaxProductCode, invalidAmount, mismatchedStorefront, missingPricingConfigForStorefront
    case operationNotAllowed, nullRefundAmount, negativeRefundAmount, refundAmountWithoutCustom, nullRefundReason, nullRefundType
    case simulateRefundDeclineOnlyInSandbox, nullRefundRisking, atLeastOneItem, atLeastOneOfDisplayNameOrDescription
    case nullTargetProductId, invalidTargetProductId, removalAllNotAllowed, nullCurrentSKU, malformedPayload
    case subscriptionAlreadyMigrated, itemLimitExceeded, pendingChangesMismatch, pendingRefund, proratedOnlyLatestTransaction
    case partialSimulateRefundDecline, revokeOnInactiveSubscription, itemCannotBeSpecifiedMultipleTimes
    case priceChangeCannotBeIssuedWhenAlreadyCommunicated, subscriptionDoesNotExist, subscriptionAlreadyExists
    case subscriptionNotEligible, productNotOwned, inactiveACASub, insufficientFunds, alreadyRefunded, storefrontChange
    case productNotEligible, transactionNotRefundable, transactionCannotBeRefundedContactSupport
    case migrationNotAllowedWhenPriceIncreaseCommunicated, productNotFound
    case unknown(Int64)

    public struct Entry: Sendable {
        public let code: APIErrorCode
        public let rawValue: Int64
        /// Apple's name for the error object, such as `TransactionIdNotFoundError`.
        public let name: String
        /// One line saying what went wrong.
        public let explanation: String
        /// What a support agent or engineer can do next.
        public let hint: String
        /// Apple lists the error as one to retry.
        public let retryable: Bool
    }

    public init(rawValue: Int64) {
        self = Self.byRaw[rawValue]?.code ?? .unknown(rawValue)
    }

    public var rawValue: Int64 {
        if case .unknown(let raw) = self { return raw }
        return entry!.rawValue
    }

    public var entry: Entry? { Self.byCode[self] }
    public var name: String { entry?.name ?? "Unknown error \(rawValue)" }
    public var explanation: String { entry?.explanation ?? "An error code this version of iapdesk does not know." }
    public var hint: String { entry?.hint ?? "Read Apple's message below; check Apple's error code documentation for \(rawValue)." }
    public var isRetryable: Bool { entry?.retryable ?? false }
    /// The HTTP status Apple pairs with the code: its first three digits.
    public var httpStatus: Int { Int(rawValue / 10_000) }

    public static let all: [Entry] = APIErrorCatalog.entries + APIErrorCatalog.advancedCommerce
    private static let byRaw: [Int64: Entry] = Dictionary(uniqueKeysWithValues: all.map { ($0.rawValue, $0) })
    private static let byCode: [APIErrorCode: Entry] = Dictionary(uniqueKeysWithValues: all.map { ($0.code, $0) })
}
