import AppStoreServerAPI
import DeskStore
import Foundation

/// One thing that happened to a customer, from one source.
public struct TimelineEvent: Sendable, Equatable {
    public enum Kind: String, Sendable, CaseIterable {
        case purchase, renewal, upgrade, downgrade, crossgrade, offer
        case billingFailure = "billing-failure", gracePeriod = "grace-period", billingRecovered = "billing-recovered"
        case autoRenewOff = "auto-renew-off", autoRenewOn = "auto-renew-on", priceIncrease = "price-increase"
        case refund, refundDeclined = "refund-declined", refundReversed = "refund-reversed", revoke, expired
        case `extension`, consumptionRequest = "consumption-request", consumptionAnswer = "consumption-answer"
        case notification, note, write
    }

    /// Where the event was read.
    public enum Source: String, Sendable {
        case history = "Apple's history"
        case notifications = "notification history"
        case store = "the store"
        case ledger = "the ledger"
    }

    public var time: Date
    public var kind: Kind
    /// "com.app.monthly renewed: 9.99 USD".
    public var summary: String
    public var source: Source
    public var transactionId: String?
    /// More in words: each send attempt of a notification, the agent of a write.
    public var detail: String?

    public init(time: Date, kind: Kind, summary: String, source: Source, transactionId: String? = nil, detail: String? = nil) {
        self.time = time
        self.kind = kind
        self.summary = summary
        self.source = source
        self.transactionId = transactionId
        self.detail = detail
    }
}

/// Everything that happened to one customer in time order: one merge of Apple's transaction
/// history, Apple's notification history, the notifications the store received, the ledger's
/// writes and the agents' notes. Pure: the Timeline pane, `iapdesk timeline` and the case file
/// read the same events.
public enum Timeline {
    public static func events(
        customer: CustomerState, writes: [WriteRecord], notes: [CaseNote], received: [StoredNotification] = []
    ) -> [TimelineEvent] {
        var events: [TimelineEvent] = []
        var seen = Set<String>()
        for transaction in (customer.history.value ?? []) + (customer.refunds.value ?? []) + (customer.order.value?.transactions ?? []) {
            guard let t = transaction.payload, let id = t.transactionId, seen.insert(id).inserted else { continue }
            events += purchaseEvents(t)
        }
        var notified = Set<String>()
        for row in customer.notifications.value ?? [] {
            guard let payload = row.payload else { continue }
            if let uuid = payload.notificationUUID { notified.insert(uuid.lowercased()) }
            events.append(notificationEvent(payload, attempts: row.attempts, source: .notifications))
        }
        // What the receiver kept beyond Apple's window, once each.
        for stored in received where !notified.contains(stored.notificationUUID.lowercased()) {
            var payload = NotificationPayload()
            payload.notificationType = stored.notificationType.map { NotificationType($0) }
            payload.subtype = stored.subtype.map { NotificationSubtype($0) }
            payload.signedDate = stored.signedDate ?? stored.firstReceivedAt
            payload.notificationUUID = stored.notificationUUID
            var event = notificationEvent(payload, attempts: [], source: .store)
            event.transactionId = stored.transactionId
            event.detail = "received here \(DisplayFormat.date(stored.firstReceivedAt)), \(DisplayFormat.count(stored.deliveryCount, "delivery", plural: "deliveries"))"
            events.append(event)
        }
        for record in writes { events += writeEvents(record) }
        for note in notes {
            events.append(TimelineEvent(time: note.time, kind: .note, summary: "note by \(note.agent): \(note.text)", source: .store))
        }
        // Equal times keep the order of the sources above: a purchase before its notification.
        return events.enumerated().sorted { ($0.element.time, $0.offset) < ($1.element.time, $1.offset) }.map(\.element)
    }

    /// What the customer spent per currency, net of refunds, in milliunits.
    public static func spent(_ customer: CustomerState) -> [(currency: String, paid: Int64, refunded: Int64)] {
        var totals: [String: (paid: Int64, refunded: Int64)] = [:]
        var seen = Set<String>()
        for transaction in (customer.history.value ?? []) + (customer.refunds.value ?? []) {
            guard let t = transaction.payload, let id = t.transactionId, seen.insert(id).inserted,
                  let price = t.price, let currency = t.currency else { continue }
            var total = totals[currency] ?? (0, 0)
            total.paid += price
            total.refunded += refundedAmount(t) ?? 0
            totals[currency] = total
        }
        return totals.keys.sorted().map { ($0, totals[$0]!.paid, totals[$0]!.refunded) }
    }

    /// What a revoked transaction gave back: its share of the price for a prorated refund, nothing
    /// for Family Sharing access taken away (the purchaser was not refunded), nil when not revoked.
    public static func refundedAmount(_ t: TransactionPayload) -> Int64? {
        guard t.revocationDate != nil, let price = t.price else { return nil }
        if t.revocationType == .familyRevoke { return 0 }
        guard let share = t.revocationPercentage else { return price }
        // To the currency's smallest coin: cents, or whole units where there are none.
        let currency = t.currency ?? ""
        let coin: Int64 = ["JPY", "KRW", "VND", "CLP", "ISK"].contains(currency) ? 1000 : ["KWD", "BHD", "JOD", "OMR", "TND"].contains(currency) ? 1 : 10
        let exact = Double(price) * Double(share) / 100_000
        return Int64((exact / Double(coin)).rounded()) * coin
    }

    /// "Spent 59.94 USD (refunded 9.99): net 49.95 USD"; "nothing paid" when no price is known.
    public static func spentLine(_ customer: CustomerState) -> String {
        let totals = spent(customer)
        guard !totals.isEmpty else { return "nothing paid in the history read" }
        return totals.map { total in
            let net = DisplayFormat.money(total.paid - total.refunded, total.currency)
            return total.refunded == 0 ? "net \(net)" : "net \(net) (paid \(DisplayFormat.money(total.paid, total.currency)), refunded \(DisplayFormat.money(total.refunded, total.currency)))"
        }.joined(separator: " · ")
    }

    static func purchaseEvents(_ t: TransactionPayload) -> [TimelineEvent] {
        let product = t.productId ?? "a product"
        let price = t.price.map { ": " + DisplayFormat.money($0, t.currency) } ?? ""
        var events: [TimelineEvent] = []
        if let purchased = t.purchaseDate {
            let kind: TimelineEvent.Kind
            let words: String
            if t.transactionReason == .renewal {
                (kind, words) = (.renewal, "\(product) renewed")
            } else if t.offerType != nil {
                (kind, words) = (.offer, "\(product) bought with \(t.offerType?.label.lowercased() ?? "an offer")")
            } else {
                (kind, words) = (.purchase, "\(product) bought")
            }
            events.append(TimelineEvent(time: purchased, kind: kind, summary: words + price, source: .history, transactionId: t.transactionId,
                                        detail: t.isUpgraded == true ? "upgraded to another product of the group afterwards" : nil))
        }
        if let revoked = t.revocationDate {
            let reason = t.revocationReason.map { " (\($0.label))" } ?? ""
            let summary: String
            if t.revocationType == .familyRevoke {
                summary = "\(product) access revoked (Family Sharing ended; no refund to this member)"
            } else if let share = t.revocationPercentage, share < 100_000 {
                summary = "\(product) refunded \(DisplayFormat.percentage(share)) prorated\(reason): \(DisplayFormat.money(refundedAmount(t), t.currency)) of \(DisplayFormat.money(t.price, t.currency))"
            } else {
                summary = "\(product) refunded\(reason)\(price)"
            }
            events.append(TimelineEvent(time: revoked, kind: .refund, summary: summary, source: .history, transactionId: t.transactionId))
        }
        return events
    }

    static func notificationEvent(_ payload: NotificationPayload, attempts: [SendAttemptItem], source: TimelineEvent.Source) -> TimelineEvent {
        let type = payload.notificationType
        let subtype = payload.subtype
        let kind: TimelineEvent.Kind
        switch (type, subtype) {
        case (.didRenew?, .billingRecovery?): kind = .billingRecovered
        case (.didRenew?, _): kind = .renewal
        case (.subscribed?, _): kind = .purchase
        case (.offerRedeemed?, _): kind = .offer
        case (.didChangeRenewalPref?, .upgrade?): kind = .upgrade
        case (.didChangeRenewalPref?, .downgrade?): kind = .downgrade
        case (.didChangeRenewalPref?, _): kind = .crossgrade
        case (.didChangeRenewalStatus?, .autoRenewDisabled?): kind = .autoRenewOff
        case (.didChangeRenewalStatus?, _): kind = .autoRenewOn
        case (.didFailToRenew?, .gracePeriod?): kind = .gracePeriod
        case (.didFailToRenew?, _): kind = .billingFailure
        case (.priceIncrease?, _): kind = .priceIncrease
        case (.refund?, _): kind = .refund
        case (.refundDeclined?, _): kind = .refundDeclined
        case (.refundReversed?, _): kind = .refundReversed
        case (.revoke?, _): kind = .revoke
        case (.expired?, _), (.gracePeriodExpired?, _): kind = .expired
        case (.renewalExtended?, _), (.renewalExtension?, _): kind = .extension
        case (.consumptionRequest?, _): kind = .consumptionRequest
        default: kind = .notification
        }
        let name = [type?.rawValue, subtype?.rawValue].compactMap { $0 }.joined(separator: " / ")
        var detail: String?
        if !attempts.isEmpty {
            let failed = attempts.filter { $0.sendAttemptResult != .success }
            let delivered = failed.count < attempts.count
            detail = "sent \(attempts.count == 1 ? "once" : "\(attempts.count) times")"
                + (failed.isEmpty ? ", delivered" : ": " + failed.compactMap { $0.sendAttemptResult?.rawValue }.joined(separator: ", ") + (delivered ? ", then delivered" : ", never delivered"))
        }
        return TimelineEvent(
            time: payload.signedDate ?? Date(timeIntervalSince1970: 0), kind: kind, summary: name.isEmpty ? "notification" : name, source: source,
            detail: detail)
    }

    static func writeEvents(_ record: WriteRecord) -> [TimelineEvent] {
        let agent = record.intent.agent ?? "someone"
        let kind: TimelineEvent.Kind
        let what: String
        switch record.intent.write {
        case WriteKind.extend.rawValue:
            let request = record.intent.body.flatMap { try? AppStoreJSON.decode(ExtendRenewalDateRequest.self, from: Data($0.utf8)) }
            let days = request?.extendByDays.map { "\($0) day\($0 == 1 ? "" : "s")" } ?? "some days"
            (kind, what) = (.extension, "renewal extended by \(days) (\(request?.extendReasonCode?.label ?? "no reason"))")
        case WriteKind.consumption.rawValue:
            (kind, what) = (.consumptionAnswer, "consumption information sent")
        default:
            (kind, what) = (.write, record.intent.action)
        }
        return [TimelineEvent(time: record.intent.time, kind: kind, summary: "\(what) by \(agent): \(record.stateLabel)", source: .ledger,
                              detail: "request \(record.requestIdentifier) from the \(record.intent.source?.rawValue ?? "console")")]
    }
}
