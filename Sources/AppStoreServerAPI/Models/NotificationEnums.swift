// Enumerations of App Store Server Notifications V2 and notification history.

public enum NotificationType: OpenEnum {
    case subscribed, didChangeRenewalPref, didChangeRenewalStatus, offerRedeemed, didRenew, expired
    case didFailToRenew, gracePeriodExpired, priceIncrease, refund, refundDeclined, consumptionRequest
    case renewalExtended, revoke, test, renewalExtension, refundReversed, externalPurchaseToken
    case oneTimeCharge, rescindConsent, metadataUpdate, migration, priceChange
    case unknown(String)
    public typealias RawValue = String
    public static let catalog: [(value: Self, raw: String, label: String)] = [
        (.subscribed, "SUBSCRIBED", "Subscribed"),
        (.didChangeRenewalPref, "DID_CHANGE_RENEWAL_PREF", "Changed renewal preference"),
        (.didChangeRenewalStatus, "DID_CHANGE_RENEWAL_STATUS", "Changed auto-renew status"),
        (.offerRedeemed, "OFFER_REDEEMED", "Offer redeemed"),
        (.didRenew, "DID_RENEW", "Renewed"),
        (.expired, "EXPIRED", "Expired"),
        (.didFailToRenew, "DID_FAIL_TO_RENEW", "Failed to renew"),
        (.gracePeriodExpired, "GRACE_PERIOD_EXPIRED", "Grace period expired"),
        (.priceIncrease, "PRICE_INCREASE", "Price increase"),
        (.refund, "REFUND", "Refund"),
        (.refundDeclined, "REFUND_DECLINED", "Refund declined"),
        (.consumptionRequest, "CONSUMPTION_REQUEST", "Consumption information requested"),
        (.renewalExtended, "RENEWAL_EXTENDED", "Renewal extended"),
        (.revoke, "REVOKE", "Family Sharing revoked"),
        (.test, "TEST", "Test notification"),
        (.renewalExtension, "RENEWAL_EXTENSION", "Mass renewal extension"),
        (.refundReversed, "REFUND_REVERSED", "Refund reversed"),
        (.externalPurchaseToken, "EXTERNAL_PURCHASE_TOKEN", "External purchase token"),
        (.oneTimeCharge, "ONE_TIME_CHARGE", "One-time charge"),
        (.rescindConsent, "RESCIND_CONSENT", "Consent rescinded"),
        (.metadataUpdate, "METADATA_UPDATE", "Metadata update"),
        (.migration, "MIGRATION", "Migration"),
        (.priceChange, "PRICE_CHANGE", "Price change"),
    ]

    /// The subtypes Apple sends with this type, and whether it is also sent without one.
    public var allowedSubtypes: (subtypes: [NotificationSubtype], withoutSubtype: Bool) {
        switch self {
        case .subscribed: return ([.initialBuy, .resubscribe], false)
        case .didChangeRenewalPref: return ([.upgrade, .downgrade], true)
        case .didChangeRenewalStatus: return ([.autoRenewEnabled, .autoRenewDisabled], false)
        case .offerRedeemed: return ([.initialBuy, .resubscribe, .upgrade, .downgrade], true)
        case .didRenew: return ([.billingRecovery], true)
        case .expired: return ([.voluntary, .billingRetry, .priceIncrease, .productNotForSale], true)
        case .didFailToRenew: return ([.gracePeriod], true)
        case .priceIncrease: return ([.pending, .accepted], false)
        case .renewalExtension: return ([.summary, .failure], false)
        case .externalPurchaseToken: return ([.unreported, .created, .activeTokenReminder], false)
        default: return ([], true)
        }
    }
}

public enum NotificationSubtype: OpenEnum {
    case initialBuy, resubscribe, downgrade, upgrade, autoRenewEnabled, autoRenewDisabled, voluntary
    case billingRetry, priceIncrease, gracePeriod, pending, accepted, billingRecovery, productNotForSale
    case summary, failure, unreported, created, activeTokenReminder
    case unknown(String)
    public typealias RawValue = String
    public static let catalog: [(value: Self, raw: String, label: String)] = [
        (.initialBuy, "INITIAL_BUY", "Initial buy"),
        (.resubscribe, "RESUBSCRIBE", "Resubscribe"),
        (.downgrade, "DOWNGRADE", "Downgrade"),
        (.upgrade, "UPGRADE", "Upgrade"),
        (.autoRenewEnabled, "AUTO_RENEW_ENABLED", "Auto-renew enabled"),
        (.autoRenewDisabled, "AUTO_RENEW_DISABLED", "Auto-renew disabled"),
        (.voluntary, "VOLUNTARY", "Voluntary"),
        (.billingRetry, "BILLING_RETRY", "Billing retry ended"),
        (.priceIncrease, "PRICE_INCREASE", "Price increase not accepted"),
        (.gracePeriod, "GRACE_PERIOD", "In grace period"),
        (.pending, "PENDING", "Pending"),
        (.accepted, "ACCEPTED", "Accepted"),
        (.billingRecovery, "BILLING_RECOVERY", "Billing recovered"),
        (.productNotForSale, "PRODUCT_NOT_FOR_SALE", "Product not for sale"),
        (.summary, "SUMMARY", "Summary"),
        (.failure, "FAILURE", "Failure"),
        (.unreported, "UNREPORTED", "Unreported"),
        (.created, "CREATED", "Created"),
        (.activeTokenReminder, "ACTIVE_TOKEN_REMINDER", "Active token reminder"),
    ]
}

/// Outcome of one attempt to deliver a notification to the app's server.
public enum SendAttemptResult: OpenEnum {
    case success, timedOut, tlsIssue, circularRedirect, noResponse, socketIssue, unsupportedCharset
    case invalidResponse, prematureClose, unsuccessfulHTTPResponseCode, other
    case unknown(String)
    public typealias RawValue = String
    public static let catalog: [(value: Self, raw: String, label: String)] = [
        (.success, "SUCCESS", "Delivered"),
        (.timedOut, "TIMED_OUT", "Timed out"),
        (.tlsIssue, "TLS_ISSUE", "TLS problem"),
        (.circularRedirect, "CIRCULAR_REDIRECT", "Circular redirect"),
        (.noResponse, "NO_RESPONSE", "No response"),
        (.socketIssue, "SOCKET_ISSUE", "Socket problem"),
        (.unsupportedCharset, "UNSUPPORTED_CHARSET", "Unsupported charset"),
        (.invalidResponse, "INVALID_RESPONSE", "Invalid response"),
        (.prematureClose, "PREMATURE_CLOSE", "Connection closed early"),
        (.unsuccessfulHTTPResponseCode, "UNSUCCESSFUL_HTTP_RESPONSE_CODE", "Non-2xx HTTP status"),
        (.other, "OTHER", "Other failure"),
    ]

    /// What the result means and what to check on the receiving server.
    public var hint: String {
        switch self {
        case .success: return "The server answered with HTTP 200-206; nothing to do."
        case .timedOut: return "The server did not answer in time: reply at once with 200 and process the payload asynchronously."
        case .tlsIssue: return "The TLS handshake failed: check the certificate chain is complete, unexpired and trusted, and that TLS 1.2 or later is offered."
        case .circularRedirect: return "The URL redirects in a loop: configure the final URL directly; notifications do not follow redirects reliably."
        case .noResponse: return "The connection closed without an HTTP response: check the server is listening and the load balancer forwards the request."
        case .socketIssue: return "The connection could not be made: check DNS, firewall rules and that the host accepts connections on port 443."
        case .unsupportedCharset: return "The response declared a charset that could not be read: answer with an empty body or UTF-8."
        case .invalidResponse: return "The response was not valid HTTP: check proxies or middleware rewriting the reply."
        case .prematureClose: return "The connection closed before the response finished: check timeouts on the server and any proxy."
        case .unsuccessfulHTTPResponseCode: return "The server answered outside 200-206: check its logs for the request and the status it returned."
        case .other: return "Delivery failed for another reason: check the server's logs around the attempt time."
        case .unknown: return "An outcome this version does not know; check the server's logs around the attempt time."
        }
    }
}

public enum ConsumptionRequestReason: OpenEnum {
    case unintendedPurchase, fulfillmentIssue, unsatisfiedWithPurchase, legal, other
    case unknown(String)
    public typealias RawValue = String
    public static let catalog: [(value: Self, raw: String, label: String)] = [
        (.unintendedPurchase, "UNINTENDED_PURCHASE", "Unintended purchase"),
        (.fulfillmentIssue, "FULFILLMENT_ISSUE", "Fulfillment issue"),
        (.unsatisfiedWithPurchase, "UNSATISFIED_WITH_PURCHASE", "Unsatisfied with purchase"),
        (.legal, "LEGAL", "Legal"),
        (.other, "OTHER", "Other"),
    ]
}
