// Enumerations of Send Consumption Information (v2 strings, deprecated V1 integers).

public enum DeliveryStatus: OpenEnum {
    case delivered, undeliveredQualityIssue, undeliveredWrongItem, undeliveredServerOutage, undeliveredOther
    case unknown(String)
    public typealias RawValue = String
    public static let catalog: [(value: Self, raw: String, label: String)] = [
        (.delivered, "DELIVERED", "Delivered and working"),
        (.undeliveredQualityIssue, "UNDELIVERED_QUALITY_ISSUE", "Not delivered: quality issue"),
        (.undeliveredWrongItem, "UNDELIVERED_WRONG_ITEM", "Not delivered: wrong item"),
        (.undeliveredServerOutage, "UNDELIVERED_SERVER_OUTAGE", "Not delivered: server outage"),
        (.undeliveredOther, "UNDELIVERED_OTHER", "Not delivered: other reason"),
    ]
}

public enum RefundPreference: OpenEnum {
    case decline, grantFull, grantProrated
    case unknown(String)
    public typealias RawValue = String
    public static let catalog: [(value: Self, raw: String, label: String)] = [
        (.decline, "DECLINE", "Prefer to decline"),
        (.grantFull, "GRANT_FULL", "Prefer a full refund"),
        (.grantProrated, "GRANT_PRORATED", "Prefer a prorated refund"),
    ]
}

public enum DeliveryStatusV1: OpenEnum {
    case deliveredAndWorkingProperly, didNotDeliverDueToQualityIssue, deliveredWrongItem
    case didNotDeliverDueToServerOutage, didNotDeliverDueToInGameCurrencyChange, didNotDeliverForOtherReason
    case unknown(Int)
    public typealias RawValue = Int
    public static let catalog: [(value: Self, raw: Int, label: String)] = [
        (.deliveredAndWorkingProperly, 0, "Delivered and working properly"),
        (.didNotDeliverDueToQualityIssue, 1, "Not delivered: quality issue"),
        (.deliveredWrongItem, 2, "Delivered the wrong item"),
        (.didNotDeliverDueToServerOutage, 3, "Not delivered: server outage"),
        (.didNotDeliverDueToInGameCurrencyChange, 4, "Not delivered: in-game currency change"),
        (.didNotDeliverForOtherReason, 5, "Not delivered: other reason"),
    ]
}

public enum RefundPreferenceV1: OpenEnum {
    case undeclared, preferGrant, preferDecline, noPreference
    case unknown(Int)
    public typealias RawValue = Int
    public static let catalog: [(value: Self, raw: Int, label: String)] = [
        (.undeclared, 0, "Undeclared"),
        (.preferGrant, 1, "Prefer grant"),
        (.preferDecline, 2, "Prefer decline"),
        (.noPreference, 3, "No preference"),
    ]
}

public enum ConsumptionStatus: OpenEnum {
    case undeclared, notConsumed, partiallyConsumed, fullyConsumed
    case unknown(Int)
    public typealias RawValue = Int
    public static let catalog: [(value: Self, raw: Int, label: String)] = [
        (.undeclared, 0, "Undeclared"),
        (.notConsumed, 1, "Not consumed"),
        (.partiallyConsumed, 2, "Partially consumed"),
        (.fullyConsumed, 3, "Fully consumed"),
    ]
}

public enum ConsumptionPlatform: OpenEnum {
    case undeclared, apple, nonApple
    case unknown(Int)
    public typealias RawValue = Int
    public static let catalog: [(value: Self, raw: Int, label: String)] = [
        (.undeclared, 0, "Undeclared"),
        (.apple, 1, "Apple platform"),
        (.nonApple, 2, "Non-Apple platform"),
    ]
}

public enum PlayTime: OpenEnum {
    case undeclared, zeroToFiveMinutes, fiveToSixtyMinutes, oneToSixHours, sixHoursToTwentyFourHours
    case oneDayToFourDays, fourDaysToSixteenDays, overSixteenDays
    case unknown(Int)
    public typealias RawValue = Int
    public static let catalog: [(value: Self, raw: Int, label: String)] = [
        (.undeclared, 0, "Undeclared"),
        (.zeroToFiveMinutes, 1, "0-5 minutes"),
        (.fiveToSixtyMinutes, 2, "5-60 minutes"),
        (.oneToSixHours, 3, "1-6 hours"),
        (.sixHoursToTwentyFourHours, 4, "6-24 hours"),
        (.oneDayToFourDays, 5, "1-4 days"),
        (.fourDaysToSixteenDays, 6, "4-16 days"),
        (.overSixteenDays, 7, "Over 16 days"),
    ]
}

public enum AccountTenure: OpenEnum {
    case undeclared, zeroToThreeDays, threeDaysToTenDays, tenDaysToThirtyDays, thirtyDaysToNinetyDays
    case ninetyDaysToOneHundredEightyDays, oneHundredEightyDaysToThreeHundredSixtyFiveDays
    case greaterThanThreeHundredSixtyFiveDays
    case unknown(Int)
    public typealias RawValue = Int
    public static let catalog: [(value: Self, raw: Int, label: String)] = [
        (.undeclared, 0, "Undeclared"),
        (.zeroToThreeDays, 1, "0-3 days"),
        (.threeDaysToTenDays, 2, "3-10 days"),
        (.tenDaysToThirtyDays, 3, "10-30 days"),
        (.thirtyDaysToNinetyDays, 4, "30-90 days"),
        (.ninetyDaysToOneHundredEightyDays, 5, "90-180 days"),
        (.oneHundredEightyDaysToThreeHundredSixtyFiveDays, 6, "180-365 days"),
        (.greaterThanThreeHundredSixtyFiveDays, 7, "Over 365 days"),
    ]
}

/// Lifetime spend bands in USD, shared by `lifetimeDollarsPurchased` and `lifetimeDollarsRefunded`.
public enum LifetimeDollars: OpenEnum {
    case undeclared, zeroDollars, oneCentToFortyNineDollarsAndNinetyNineCents
    case fiftyDollarsToNinetyNineDollarsAndNinetyNineCents
    case oneHundredDollarsToFourHundredNinetyNineDollarsAndNinetyNineCents
    case fiveHundredDollarsToNineHundredNinetyNineDollarsAndNinetyNineCents
    case oneThousandDollarsToOneThousandNineHundredNinetyNineDollarsAndNinetyNineCents
    case twoThousandDollarsOrGreater
    case unknown(Int)
    public typealias RawValue = Int
    public static let catalog: [(value: Self, raw: Int, label: String)] = [
        (.undeclared, 0, "Undeclared"),
        (.zeroDollars, 1, "USD 0"),
        (.oneCentToFortyNineDollarsAndNinetyNineCents, 2, "USD 0.01-49.99"),
        (.fiftyDollarsToNinetyNineDollarsAndNinetyNineCents, 3, "USD 50-99.99"),
        (.oneHundredDollarsToFourHundredNinetyNineDollarsAndNinetyNineCents, 4, "USD 100-499.99"),
        (.fiveHundredDollarsToNineHundredNinetyNineDollarsAndNinetyNineCents, 5, "USD 500-999.99"),
        (.oneThousandDollarsToOneThousandNineHundredNinetyNineDollarsAndNinetyNineCents, 6, "USD 1000-1999.99"),
        (.twoThousandDollarsOrGreater, 7, "USD 2000 or more"),
    ]
}

public enum UserStatus: OpenEnum {
    case undeclared, active, suspended, terminated, limitedAccess
    case unknown(Int)
    public typealias RawValue = Int
    public static let catalog: [(value: Self, raw: Int, label: String)] = [
        (.undeclared, 0, "Undeclared"),
        (.active, 1, "Active"),
        (.suspended, 2, "Suspended"),
        (.terminated, 3, "Terminated"),
        (.limitedAccess, 4, "Limited access"),
    ]
}
