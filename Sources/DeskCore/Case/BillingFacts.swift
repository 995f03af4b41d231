import AppStoreServerAPI
import Foundation

/// What an agent needs for "why was I charged?" about one subscription, in plain facts: auto-renew
/// and since when, billing retry, grace period, the last charge and the next one, and a charge
/// that came after auto-renew was turned off.
public struct BillingFacts: Sendable, Equatable {
    public struct Charge: Sendable, Equatable {
        public var date: Date
        public var price: Int64?
        public var currency: String?
        public var transactionId: String?
    }

    public var autoRenewOn: Bool?
    /// When auto-renew was last turned off or on (DID_CHANGE_RENEWAL_STATUS in the notifications read).
    public var autoRenewChanged: Date?
    public var inBillingRetry: Bool
    public var graceUntil: Date?
    public var lastCharge: Charge?
    /// The renewal Apple will try, when auto-renew is on.
    public var nextCharge: Charge?
    /// When auto-renew was turned off before a charge that still came (it must be off at least 24
    /// hours before the period ends).
    public var turnedOffBeforeCharge: Date?
    /// How far back the notifications reach, for "since when" that they cannot tell.
    public var notificationDays: Int

    /// Apple's rule, said where a charge followed turning auto-renew off.
    public static let renewalRule = "Apple renews unless auto-renew is off 24 h before the period ends."

    public static func of(_ row: SubscriptionRow, history: [VerifiedTransaction]?, notifications: [NotificationRow]?, notificationDays: Int = 30) -> BillingFacts {
        let latest = row.transaction?.payload
        let renewal = row.renewal?.payload
        let original = row.originalTransactionId
        // Paid transactions of this subscription, newest first; a free trial charges nothing.
        let paid = (history ?? []).compactMap(\.payload)
            .filter { $0.originalTransactionId == original && ($0.price ?? 0) > 0 && $0.purchaseDate != nil }
            .sorted { $0.purchaseDate! > $1.purchaseDate! }
        let lastPaid = paid.first ?? ((latest?.price ?? 0) > 0 ? latest : nil)
        let last = lastPaid.flatMap { t in t.purchaseDate.map { Charge(date: $0, price: t.price, currency: t.currency, transactionId: t.transactionId) } }

        // Auto-renew changes of this subscription, oldest first.
        let changes: [(date: Date, on: Bool)] = (notifications ?? []).compactMap { row in
            guard let payload = row.payload, payload.notificationType == .didChangeRenewalStatus, let date = payload.signedDate,
                  let subtype = payload.subtype, subtype == .autoRenewEnabled || subtype == .autoRenewDisabled
            else { return nil }
            let concerns = row.decoded?.transaction?.payload?.originalTransactionId ?? row.decoded?.renewalInfo?.payload?.originalTransactionId
            guard concerns == original else { return nil }
            return (date, subtype == .autoRenewEnabled)
        }.sorted { $0.date < $1.date }

        var facts = BillingFacts(
            autoRenewOn: renewal?.autoRenewStatus.map { $0 == .on },
            autoRenewChanged: changes.last { $0.on == (renewal?.autoRenewStatus == .on) }?.date,
            inBillingRetry: renewal?.isInBillingRetryPeriod == true || row.status == .billingRetry,
            graceUntil: renewal?.gracePeriodExpiresDate, lastCharge: last, nextCharge: nil, turnedOffBeforeCharge: nil,
            notificationDays: notificationDays)
        if facts.autoRenewOn == true, row.status != .expired, row.status != .revoked, let due = renewal?.renewalDate ?? latest?.expiresDate {
            facts.nextCharge = Charge(date: due, price: renewal?.renewalPrice ?? latest?.price, currency: renewal?.currency ?? latest?.currency)
        }
        // The latest change before the last charge was "off": the charge came after turning it off.
        if let last, lastPaid?.transactionReason == .renewal, let before = changes.last(where: { $0.date < last.date }), !before.on {
            facts.turnedOffBeforeCharge = before.date
        }
        return facts
    }

    /// The facts as the summary and the case file say them, each line within 76 columns.
    public func lines() -> [String] {
        var state: String
        switch autoRenewOn {
        case true?: state = "auto-renew on" + (autoRenewChanged.map { " since \(DisplayFormat.date($0))" } ?? "")
        case false?: state = "auto-renew off " + (autoRenewChanged.map { "since \(DisplayFormat.date($0))" } ?? "(since before the last \(notificationDays) days)")
        case nil: state = "auto-renew unknown"
        }
        state += inBillingRetry ? " · in billing retry (Apple keeps trying)" : " · billing retry: no"
        var lines = [state]
        if let graceUntil { lines.append("grace period until \(DisplayFormat.date(graceUntil)): access continues") }
        var charges = lastCharge.map { "last charge \(DisplayFormat.date($0.date)), \(DisplayFormat.money($0.price, $0.currency))" } ?? "no paid charge found"
        if let nextCharge {
            charges += " · next \(DisplayFormat.day(nextCharge.date)), \(DisplayFormat.money(nextCharge.price, nextCharge.currency))"
        } else if autoRenewOn == false {
            charges += " · no next charge"
        }
        lines.append(charges)
        if let turnedOffBeforeCharge {
            lines.append("⚠ charged AFTER auto-renew was turned off (\(DisplayFormat.date(turnedOffBeforeCharge))):")
            lines.append("  " + Self.renewalRule)
        }
        return lines
    }
}
