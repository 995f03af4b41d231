import AppStoreServerAPI
import Foundation

/// What a subscription's current period is when it is not a plain paid one, and whether Apple
/// would extend it: both read from the latest transaction and the status.
public enum SubscriptionOffer {
    /// "free trial until 2026-12-01", "promotional offer until …"; nil for a paid period or a
    /// subscription that is not running.
    public static func current(_ row: SubscriptionRow) -> String? {
        guard row.status == .active || row.status == .billingGracePeriod, let t = row.transaction?.payload, let type = t.offerType else { return nil }
        let until = t.expiresDate.map { " until \(DisplayFormat.day($0))" } ?? ""
        if t.offerDiscountType == .freeTrial { return "free trial" + until }
        switch type {
        case .introductoryOffer: return "introductory offer" + until
        case .promotionalOffer: return "promotional offer" + until
        case .offerCode: return "offer code" + until
        case .winBackOffer: return "win-back offer" + until
        case .unknown: return "offer" + until
        }
    }

    /// The same in a table cell: "trial", "intro", "promo", "offer code", "win-back".
    public static func short(_ row: SubscriptionRow) -> String? {
        guard current(row) != nil, let t = row.transaction?.payload else { return nil }
        if t.offerDiscountType == .freeTrial { return "trial" }
        switch t.offerType {
        case .introductoryOffer?: return "intro"
        case .promotionalOffer?: return "promo"
        case .offerCode?: return "offer code"
        case .winBackOffer?: return "win-back"
        default: return "offer"
        }
    }

    /// Why Apple would refuse to extend this subscription, before anything is asked or sent;
    /// nil when it may be extended (the yearly limit is checked once the form is open).
    public static func extensionRefusal(_ row: SubscriptionRow) -> String? {
        let t = row.transaction?.payload
        if t?.inAppOwnershipType == .familyShared {
            return "A family member's access cannot be extended directly (4030007): extend the purchaser's subscription, and the family's follows."
        }
        guard row.status == .active else {
            let state: String
            switch row.status {
            case .expired?: state = "expired"
            case .billingRetry?: state = "in billing retry"
            case .billingGracePeriod?: state = "in its billing grace period"
            case .revoked?: state = "revoked"
            default: state = "in an unknown state"
            }
            return "Apple extends only active subscriptions; this one is \(state) (4030004)."
        }
        if t?.offerDiscountType == .freeTrial {
            return "Apple does not extend a subscription in a free trial (4030004); it can be extended once a paid period starts."
        }
        return nil
    }
}
