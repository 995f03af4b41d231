import AppStoreServerAPI
import Foundation

/// An answer in Apple's error shape: the status is the first three digits of the code.
struct DemoAPIError: Error, Sendable {
    let code: Int64
    let message: String
    var retryAfter: Date?

    init(_ code: Int64, _ message: String) {
        self.code = code
        self.message = message
    }

    var status: Int { Int(code / 10_000) }

    var response: DemoResponse {
        var response = DemoResponse.json(ErrorPayload(errorCode: code, errorMessage: message), status: status)
        // Apple's Python client reads error bodies only under exactly this content type.
        response.headers = [("Content-Type", "application/json")]
        if let retryAfter { response.headers.append(("Retry-After", String(retryAfter.epochMilliseconds))) }
        return response
    }
}

/// The errors the demo answers with, one per Apple error code it uses.
extension DemoAPIError {
    static let generalBadRequest = DemoAPIError(4_000_000, "Invalid request.")
    static let invalidRequestRevision = DemoAPIError(4_000_005, "Invalid request revision.")
    static let invalidTransactionId = DemoAPIError(4_000_006, "Invalid transaction id.")
    static let invalidOriginalTransactionId = DemoAPIError(4_000_008, "Invalid original transaction id.")
    static let invalidExtendByDays = DemoAPIError(4_000_009, "Invalid request. The extend by days value is invalid; use 1 to 90.")
    static let invalidExtendReasonCode = DemoAPIError(4_000_010, "Invalid request. The extend reason code is invalid.")
    static let invalidRequestIdentifier = DemoAPIError(4_000_011, "Invalid request. The request identifier is invalid.")
    static let startDateTooFarInPast = DemoAPIError(4_000_012, "Invalid request. The start date is earlier than the allowed history.")
    static let startDateAfterEndDate = DemoAPIError(4_000_013, "Invalid request. The start date must be before the end date.")
    static let invalidPaginationToken = DemoAPIError(4_000_014, "Invalid request. The pagination token is invalid.")
    static let invalidStartDate = DemoAPIError(4_000_015, "Invalid request. The start date is invalid.")
    static let invalidEndDate = DemoAPIError(4_000_016, "Invalid request. The end date is invalid.")
    static let paginationTokenExpired = DemoAPIError(4_000_017, "Invalid request. The pagination token has expired.")
    static let invalidNotificationType = DemoAPIError(4_000_018, "Invalid request. The notification type or subtype is invalid.")
    static let multipleFiltersSupplied = DemoAPIError(4_000_019, "Invalid request. Only one of transactionId and notificationType may be given.")
    static let invalidTestNotificationToken = DemoAPIError(4_000_020, "Invalid request. The test notification token is invalid.")
    static let invalidSort = DemoAPIError(4_000_021, "Invalid request. The sort parameter is invalid.")
    static let invalidProductType = DemoAPIError(4_000_022, "Invalid request. The product type parameter is invalid.")
    static let invalidProductId = DemoAPIError(4_000_023, "Invalid request. The product id is invalid.")
    static let invalidSubscriptionGroupIdentifier = DemoAPIError(4_000_024, "Invalid request. The subscription group identifier parameter is invalid.")
    static let invalidExcludeRevoked = DemoAPIError(4_000_025, "Invalid request. The exclude revoked parameter is invalid.")
    static let invalidInAppOwnershipType = DemoAPIError(4_000_026, "Invalid request. The in-app ownership type parameter is invalid.")
    static let invalidEmptyStorefrontCountryCodeList = DemoAPIError(4_000_027, "Invalid request. The storefront country code list is empty.")
    static let invalidStorefrontCountryCode = DemoAPIError(4_000_028, "Invalid request. A storefront country code is invalid.")
    static let invalidRevoked = DemoAPIError(4_000_030, "Invalid request. The revoked parameter is invalid.")
    static let invalidStatus = DemoAPIError(4_000_031, "Invalid request. The status parameter is invalid.")
    static let invalidCustomerConsented = DemoAPIError(4_000_035, "Invalid request. The customer consented field is invalid.")
    static let invalidDeliveryStatus = DemoAPIError(4_000_036, "Invalid request. The delivery status field is invalid.")
    static let invalidSampleContentProvided = DemoAPIError(4_000_041, "Invalid request. The sample content provided field is invalid.")
    static let invalidRefundPreference = DemoAPIError(4_000_044, "Invalid request. The refund preference field is invalid.")
    static let appTransactionIdNotSupported = DemoAPIError(4_000_048, "Invalid request. App transactions aren't supported by this endpoint.")
    static let invalidAppAccountTokenUUID = DemoAPIError(4_000_183, "Invalid request. The app account token field must be a valid UUID.")
    static let familyTransactionNotSupported = DemoAPIError(4_000_185, "Invalid request. Family Sharing transactions aren't supported by this endpoint.")
    static let transactionIdNotOriginal = DemoAPIError(4_000_187, "Invalid request. The transaction ID provided is not an original transaction ID.")
    static let consumptionPercentageOnSubscription = DemoAPIError(
        4_000_209, "Invalid request. The consumption percentage field is not supported for auto-renewable subscription transactions.")
    // Apple names these two errors without publishing their codes; the demo answers the general one.
    static let consumptionPercentageOutOfRange = DemoAPIError(4_000_000, "Invalid request. The consumption percentage is out of range.")
    static let undeliveredConsumptionPercentageNonZero = DemoAPIError(
        4_000_000, "Invalid request. The consumption percentage must be 0 when the content was not delivered.")
    static let subscriptionExtensionIneligible = DemoAPIError(4_030_004, "Forbidden. The subscription isn't eligible for a renewal date extension.")
    static let subscriptionMaxExtension = DemoAPIError(4_030_005, "Forbidden. The subscription has reached the maximum number of renewal date extensions.")
    static let familySharedSubscriptionExtensionIneligible = DemoAPIError(
        4_030_007, "Forbidden. Family Sharing subscriptions can't be extended directly; extend the purchaser's.")
    static let originalTransactionIdNotFound = DemoAPIError(4_040_005, "Original transaction id not found.")
    static let serverNotificationUrlNotFound = DemoAPIError(4_040_007, "No App Store Server Notifications URL is configured for this environment.")
    static let testNotificationNotFound = DemoAPIError(4_040_008, "The test notification result is not available yet, or the token has expired.")
    static let statusRequestNotFound = DemoAPIError(4_040_009, "No renewal date extension request matches this request identifier and product ID.")
    static let appNotFound = DemoAPIError(4_040_003, "App not found.")
    static let transactionIdNotFound = DemoAPIError(4_040_010, "Transaction id not found.")
    static let appTransactionDoesNotExist = DemoAPIError(4_040_019, "No AppTransaction exists for the customer.")
    static let rateLimitExceeded = DemoAPIError(4_290_000, "Rate limit exceeded.")
    static let generalInternal = DemoAPIError(5_000_000, "An unknown error occurred.")
    static let generalInternalRetryable = DemoAPIError(5_000_001, "An unknown error occurred. Please try again.")
}
