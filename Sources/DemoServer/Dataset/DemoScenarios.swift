import AppStoreServerAPI
import Foundation

/// The customers of the demo and what happened to them, written as a support agent would meet them.
extension DatasetBuilder {
    typealias P = DemoCatalog

    mutating func buildProduction() {
        // 1. Active monthly subscriber; the first order also bought coins (one order, two transactions).
        let alice = customer("Active monthly subscription", since: daysAgo(420))
        let aliceOrder = orderId("MK5TTTVWJH")
        let aliceChain = subscribeUntilNow(alice, P.proMonthly, start: daysAgo(200), firstOrder: aliceOrder)
        purchase(alice, P.coins100, at: daysAgo(200), order: aliceOrder)
        track(aliceChain, customer: alice, status: .active)
        notifyRenewal(aliceChain, customer: alice, product: P.proMonthly)

        // 2. Auto-renew turned off: active until the period ends.
        let bob = customer("Auto-renew turned off", storefront: "GBR")
        let bobChain = subscribe(bob, P.proYearly, start: daysAgo(300), renewals: 0)
        track(bobChain, customer: bob, status: .active, autoRenew: false)
        notify(.didChangeRenewalStatus, .autoRenewDisabled, at: daysAgo(6), customer: bob, transaction: bobChain.latestTransactionId)

        // 3-7. Expired, one for each expiration intent.
        let intents: [(ExpirationIntent, NotificationSubtype?, String, Double)] = [
            (.customerCancelled, .voluntary, "Expired: customer cancelled", 12),
            (.billingError, .billingRetry, "Expired: billing error", 9),
            (.customerDidNotConsentToPriceIncrease, .priceIncrease, "Expired: price increase declined", 16),
            (.productNotAvailable, .productNotForSale, "Expired: product not available", 21),
            (.other, nil, "Expired: other reason", 25),
        ]
        for (intent, subtype, scenario, endedDaysAgo) in intents {
            let who = customer(scenario)
            let chain = subscribe(who, P.proMonthly, start: start(P.proMonthly.period!, periods: 4, endingBy: daysAgo(endedDaysAgo)), renewals: 3)
            track(chain, customer: who, status: .expired, autoRenew: false) { renewal in
                renewal.expirationIntent = intent
                renewal.renewalDate = nil
                if intent == .customerCancelled { renewal.eligibleWinBackOfferIds = ["com.iapdesk.demo.winback.50off"] }
                if intent == .customerDidNotConsentToPriceIncrease { renewal.priceIncreaseStatus = .customerHasNotResponded }
            }
            notify(.expired, subtype, at: chain.expires.addingTimeInterval(60), customer: who, transaction: chain.latestTransactionId)
        }

        // 8. Billing retry: the renewal charge failed and Apple is retrying.
        let carol = customer("Billing retry", storefront: "FRA")
        let carolChain = subscribe(carol, P.proMonthly, start: start(P.proMonthly.period!, periods: 3, endingBy: daysAgo(3)), renewals: 2)
        track(carolChain, customer: carol, status: .billingRetry) { renewal in
            renewal.isInBillingRetryPeriod = true
            renewal.expirationIntent = .billingError
        }
        notify(.didFailToRenew, at: carolChain.expires.addingTimeInterval(120), customer: carol, transaction: carolChain.latestTransactionId)

        // 9. Grace period: the charge failed but service continues until the grace period ends.
        let dan = customer("Billing grace period")
        let danChain = subscribe(dan, P.proMonthly, start: start(P.proMonthly.period!, periods: 2, endingBy: daysAgo(2)), renewals: 1)
        track(danChain, customer: dan, status: .billingGracePeriod) { renewal in
            renewal.isInBillingRetryPeriod = true
            renewal.gracePeriodExpiresDate = danChain.expires.addingTimeInterval(16 * Self.day)
        }
        notify(.didFailToRenew, .gracePeriod, at: danChain.expires.addingTimeInterval(60), customer: dan, transaction: danChain.latestTransactionId)

        // 10. Family member whose access the purchaser revoked.
        let erin = customer("Family Sharing access revoked")
        let erinChain = subscribe(erin, P.proYearly, start: daysAgo(150), renewals: 0, ownership: .familyShared)
        revoke(erinChain.latestTransactionId, at: daysAgo(5), reason: .refundedForOtherReason, type: .familyRevoke)
        track(erinChain, customer: erin, status: .revoked, autoRenew: false)
        notify(.revoke, at: daysAgo(5), customer: erin, transaction: erinChain.latestTransactionId)

        // 11. Upgraded mid-period from Pro Monthly to Pro Plus Monthly.
        let frank = customer("Upgraded mid-period")
        var frankChain = subscribe(frank, P.proMonthly, start: daysAgo(100), renewals: 3)
        let upgradeDate = daysAgo(5)
        data.transactions[frankChain.latestTransactionId]!.payload.isUpgraded = true
        data.transactions[frankChain.latestTransactionId]!.modified = upgradeDate
        let upgraded = purchase(
            frank, P.proPlusMonthly, at: upgradeDate, originalTransactionId: frankChain.originalTransactionId,
            originalPurchaseDate: daysAgo(100), expires: P.proPlusMonthly.period!.advance(upgradeDate, by: 1))
        frankChain.latestTransactionId = upgraded
        frankChain.transactionIds.append(upgraded)
        track(frankChain, customer: frank, status: .active)
        notify(.didChangeRenewalPref, .upgrade, at: upgradeDate, customer: frank, transaction: upgraded)

        // 12. Introductory offer: in a one-week free trial.
        let grace = customer("Introductory free trial")
        let trial = Offer(type: .introductoryOffer, discount: .freeTrial, identifier: nil, period: "P1W", price: 0)
        let graceChain = subscribe(grace, P.proMonthly, start: daysAgo(3), renewals: 0, firstOffer: trial, offerPeriodDays: 7)
        track(graceChain, customer: grace, status: .active, inFreeOffer: true)
        notify(.subscribed, .initialBuy, at: daysAgo(3), customer: grace, transaction: graceChain.latestTransactionId)

        // 13. Promotional offer redeemed on the yearly plan.
        let heidi = customer("Promotional offer")
        let promo = Offer(type: .promotionalOffer, discount: .payUpFront, identifier: "com.iapdesk.demo.promo.winter", period: "P1Y", price: 59990)
        let heidiChain = subscribe(heidi, P.proYearly, start: daysAgo(20), renewals: 0, firstOffer: promo)
        track(heidiChain, customer: heidi, status: .active)
        notify(.offerRedeemed, .initialBuy, at: daysAgo(20), customer: heidi, transaction: heidiChain.latestTransactionId)

        // 14. Offer code, also applying to the next renewal.
        let ivan = customer("Offer code", storefront: "DEU")
        let code = Offer(type: .offerCode, discount: .payAsYouGo, identifier: "PARTNER2026", period: "P3M", price: 4990)
        let ivanChain = subscribe(ivan, P.proMonthly, start: daysAgo(40), renewals: 1, firstOffer: code)
        data.transactions[ivanChain.latestTransactionId]!.payload.offerType = .offerCode
        data.transactions[ivanChain.latestTransactionId]!.payload.offerIdentifier = "PARTNER2026"
        data.transactions[ivanChain.latestTransactionId]!.payload.offerDiscountType = .payAsYouGo
        data.transactions[ivanChain.latestTransactionId]!.payload.price = 4990
        track(ivanChain, customer: ivan, status: .active) { renewal in
            renewal.offerType = .offerCode
            renewal.offerIdentifier = "PARTNER2026"
            renewal.offerDiscountType = .payAsYouGo
            renewal.offerPeriod = "P3M"
            renewal.renewalPrice = 4990
        }
        notify(.subscribed, .initialBuy, at: daysAgo(40), customer: ivan, transaction: ivanChain.originalTransactionId)

        // 15. Win-back offer: came back after a long lapse.
        let judy = customer("Win-back offer", since: daysAgo(700))
        let oldChain = subscribe(judy, P.proMonthly, start: daysAgo(400), renewals: 2)
        let winBack = Offer(type: .winBackOffer, discount: .payUpFront, identifier: "com.iapdesk.demo.winback.50off", period: "P1M", price: 4990)
        let back = purchase(
            judy, P.proMonthly, at: daysAgo(8), offer: winBack, originalTransactionId: oldChain.originalTransactionId,
            originalPurchaseDate: daysAgo(400), expires: P.proMonthly.period!.advance(daysAgo(8), by: 1))
        var judyChain = oldChain
        judyChain.latestTransactionId = back
        let returned = daysAgo(8)
        track(judyChain, customer: judy, status: .active) { renewal in
            renewal.recentSubscriptionStartDate = returned
        }
        notify(.subscribed, .resubscribe, at: daysAgo(8), customer: judy, transaction: back)

        // 16. Consumables with refunds for both revocation reasons; a refund request under review.
        let ken = customer("Consumables and refunds")
        var coins: [String] = []
        for index in 0..<6 {
            let order = orderId()
            coins.append(purchase(ken, index % 2 == 0 ? P.coins100 : P.coins1000, at: daysAgo(Double(60 - index * 9)), order: order))
            if index == 4 { coins.append(purchase(ken, P.coins100, at: daysAgo(Double(60 - index * 9)), order: order, quantity: 3)) }
        }
        revoke(coins[1], at: daysAgo(44), reason: .refundedForOtherReason, type: .refundFull)
        revoke(coins[3], at: daysAgo(7), reason: .refundedDueToIssue, type: .refundFull)
        notify(.consumptionRequest, at: daysAgo(8), customer: ken, transaction: coins[3], consumptionReason: .unintendedPurchase)
        notify(.refund, at: daysAgo(7), customer: ken, transaction: coins[3])
        notify(.consumptionRequest, at: daysAgo(2), customer: ken, transaction: coins[5], consumptionReason: .fulfillmentIssue)
        notify(.refundDeclined, at: daysAgo(1), customer: ken, transaction: coins[5])

        // 17. A non-consumable and a non-renewing season pass, bought together; no app download on this account.
        let lena = customer("Non-consumable and non-renewing subscription", appTransaction: false)
        let lenaOrder = orderId()
        let unlock = purchase(lena, P.lifetime, at: daysAgo(18), order: lenaOrder)
        let pass = purchase(lena, P.seasonPass, at: daysAgo(18), order: lenaOrder)
        purchase(lena, P.themePack, at: daysAgo(4))
        notify(.oneTimeCharge, at: daysAgo(18), customer: lena, transaction: unlock)
        notify(.oneTimeCharge, at: daysAgo(18), customer: lena, transaction: pass)

        // 18. A yearly subscription refunded in part because of an issue.
        let mia = customer("Subscription refunded (prorated)")
        let miaChain = subscribe(mia, P.proYearly, start: daysAgo(120), renewals: 0)
        revoke(miaChain.latestTransactionId, at: daysAgo(3), reason: .refundedDueToIssue, type: .refundProrated, percentage: 67_500)
        track(miaChain, customer: mia, status: .revoked, autoRenew: false) { renewal in
            renewal.expirationIntent = .customerCancelled
        }
        notify(.refund, at: daysAgo(3), customer: mia, transaction: miaChain.latestTransactionId)

        // 19. Pending price increase on an active subscription.
        let noah = customer("Price increase pending")
        // 340 days: twelve periods on any date, as the twelve 30-day periods of 330 days were.
        let noahChain = subscribeUntilNow(noah, P.proMonthly, start: daysAgo(340))
        track(noahChain, customer: noah, status: .active) { renewal in
            renewal.priceIncreaseStatus = .customerHasNotResponded
            renewal.renewalPrice = 11990
        }
        notify(.priceIncrease, .pending, at: daysAgo(11), customer: noah, transaction: noahChain.latestTransactionId)

        // 20. Already extended twice in the last year: a third extension is refused.
        let olivia = customer("Extended twice this year")
        let oliviaChain = subscribeUntilNow(olivia, P.proMonthly, start: daysAgo(260))
        track(oliviaChain, customer: olivia, status: .active)
        for (index, when) in [daysAgo(200), daysAgo(20)].enumerated() {
            var response = ExtendRenewalDateResponse()
            response.originalTransactionId = oliviaChain.originalTransactionId
            response.webOrderLineItemId = data.transactions[oliviaChain.latestTransactionId]!.payload.webOrderLineItemId
            response.success = true
            response.effectiveDate = when.addingTimeInterval(37 * Self.day)
            data.subscriptions[oliviaChain.originalTransactionId]!.extensions.append(DemoExtension(
                date: when, days: 7, requestIdentifier: "goodwill-olivia-\(index + 1)", response: response))
        }
        notify(.renewalExtended, at: daysAgo(20), customer: olivia, transaction: oliviaChain.latestTransactionId)

        // 21. A long-time reader with over 500 transactions: weekly renewals and frequent coin purchases.
        let pat = customer("Power user with 500+ transactions", since: daysAgo(1200))
        let patChain = subscribeUntilNow(pat, P.newsWeekly, start: daysAgo(3 * 365))
        track(patChain, customer: pat, status: .active)
        var patCoins: [String] = []
        for index in 0..<360 {
            patCoins.append(purchase(pat, index % 7 == 0 ? P.coins1000 : P.coins100, at: daysAgo(Double(1090 - index * 3) + 0.3)))
        }
        notifyRenewal(patChain, customer: pat, product: P.newsWeekly)

        // 22. "I was charged after I cancelled": auto-renew turned off three hours before the period
        // ended, too late for Apple (at least 24 hours before), and renewed two hours ago. Its
        // notifications are the newest of all, so every earlier delivery keeps its story.
        let quinn = customer("Charged after turning auto-renew off", storefront: "DEU")
        // (On the few days a short month clamps the day, the renewal is a day or two earlier.)
        let quinnStart = start(P.proMonthly.period!, periods: 2, endingBy: anchor.addingTimeInterval(-2 * 3600))
        let quinnChain = subscribe(quinn, P.proMonthly, start: quinnStart, renewals: 2)
        track(quinnChain, customer: quinn, status: .active, autoRenew: false)
        let charged = data.transactions[quinnChain.latestTransactionId]!.payload.purchaseDate!
        notify(.didChangeRenewalStatus, .autoRenewDisabled, at: charged.addingTimeInterval(-3 * 3600), customer: quinn,
               transaction: quinnChain.transactionIds[quinnChain.transactionIds.count - 2])
        notifyRenewal(quinnChain, customer: quinn, product: P.proMonthly)

        // 16, later: two more refund requests about the consumables customer's coins, still waiting
        // for an answer when the demo starts (one with minutes left, one with eleven hours).
        let lateCoins = purchase(ken, P.coins1000, at: anchor.addingTimeInterval(-13 * 3600))
        let recentCoins = purchase(ken, P.coins100, at: anchor.addingTimeInterval(-4 * 3600))
        notify(.consumptionRequest, at: anchor.addingTimeInterval(-(11 * 3600 + 40 * 60)), customer: ken, transaction: lateCoins,
               consumptionReason: .unsatisfiedWithPurchase)
        notify(.consumptionRequest, at: anchor.addingTimeInterval(-3600), customer: ken, transaction: recentCoins, consumptionReason: .unintendedPurchase)

        // 21, later: the power user asked twice about coins bought two weeks ago. Yesterday's request
        // went unanswered past its 12 hours; this morning's was answered by the app's policy, and
        // Apple has not decided yet.
        notify(.consumptionRequest, at: anchor.addingTimeInterval(-15 * 3600), customer: pat, transaction: patCoins[patCoins.count - 2],
               consumptionReason: .other)
        let answeredAt = anchor.addingTimeInterval(-5 * 3600)
        notify(.consumptionRequest, at: answeredAt, customer: pat, transaction: patCoins[patCoins.count - 1], consumptionReason: .fulfillmentIssue)
        if let request = data.notifications.last {
            data.seededAnswers.append(DemoSeededAnswer(
                notificationUUID: request.uuid, transactionId: patCoins[patCoins.count - 1], answeredAt: answeredAt.addingTimeInterval(40),
                answer: ConsumptionRequest(customerConsented: true, deliveryStatus: .delivered, refundPreference: .decline, sampleContentProvided: false),
                agent: "policy:refund-policy.toml"))
        }

        addDeliveryStory()
        addAdvancedCommerceCustomers()
    }

    mutating func buildSandbox() {
        let tess = customer("Sandbox: active monthly subscription", since: daysAgo(60))
        let tessChain = subscribeUntilNow(tess, P.proMonthly, start: daysAgo(50))
        purchase(tess, P.coins100, at: daysAgo(12))
        track(tessChain, customer: tess, status: .active)
        notifyRenewal(tessChain, customer: tess, product: P.proMonthly)

        let uma = customer("Sandbox: expired after cancelling")
        let umaChain = subscribe(uma, P.proMonthly, start: daysAgo(80), renewals: 1)
        track(umaChain, customer: uma, status: .expired, autoRenew: false) { $0.expirationIntent = .customerCancelled; $0.renewalDate = nil }
        notify(.expired, .voluntary, at: umaChain.expires.addingTimeInterval(60), customer: uma, transaction: umaChain.latestTransactionId)

        let vic = customer("Sandbox: billing retry")
        let vicChain = subscribe(vic, P.proMonthly, start: daysAgo(35), renewals: 0)
        track(vicChain, customer: vic, status: .billingRetry) { $0.isInBillingRetryPeriod = true }
        notify(.didFailToRenew, at: vicChain.expires.addingTimeInterval(60), customer: vic, transaction: vicChain.latestTransactionId,
               delivery: .neverDelivered([.socketIssue]))

        let will = customer("Sandbox: refunded consumable")
        let coin = purchase(will, P.coins1000, at: daysAgo(9))
        revoke(coin, at: daysAgo(4), reason: .refundedDueToIssue, type: .refundFull)
        notify(.refund, at: daysAgo(4), customer: will, transaction: coin, delivery: .neverDelivered([.timedOut]))

        let xena = customer("Sandbox: free trial")
        let trial = Offer(type: .introductoryOffer, discount: .freeTrial, identifier: nil, period: "P1W", price: 0)
        let xenaChain = subscribe(xena, P.proMonthly, start: daysAgo(2), renewals: 0, firstOffer: trial, offerPeriodDays: 7)
        track(xenaChain, customer: xena, status: .active, inFreeOffer: true)
        notify(.subscribed, .initialBuy, at: daysAgo(2), customer: xena, transaction: xenaChain.latestTransactionId,
               delivery: .neverDelivered([.unsuccessfulHTTPResponseCode]))

        let yuri = customer("Sandbox: lifetime unlock")
        let unlock = purchase(yuri, P.lifetime, at: daysAgo(6))
        notify(.oneTimeCharge, at: daysAgo(6), customer: yuri, transaction: unlock)
        addAdvancedCommerceCustomers(prefix: "Sandbox: ")
        data.notifications.sort { $0.signedDate < $1.signedDate }
    }

    /// DID_RENEW for each renewal in the last 30 days.
    mutating func notifyRenewal(_ chain: Chain, customer: Int, product: DemoProduct) {
        for id in chain.transactionIds.dropFirst() {
            guard let purchaseDate = data.transactions[id]?.payload.purchaseDate, purchaseDate > daysAgo(30), purchaseDate <= anchor else { continue }
            notify(.didRenew, at: purchaseDate.addingTimeInterval(30), customer: customer, transaction: id)
        }
    }

    /// The on-call story: some first attempts failed and were delivered on a retry, one notification
    /// was never delivered, and every failure result Apple reports appears at least once.
    mutating func addDeliveryStory() {
        let failures: [SendAttemptResult] = [
            .timedOut, .tlsIssue, .circularRedirect, .noResponse, .socketIssue, .unsupportedCharset, .invalidResponse,
            .prematureClose, .unsuccessfulHTTPResponseCode, .other,
        ]
        // Give the most recent notifications before the last three days a failed first attempt each.
        let recent = data.notifications.indices.filter {
            data.notifications[$0].signedDate < daysAgo(3) && data.notifications[$0].signedDate > daysAgo(30)
        }
        for (offset, index) in recent.enumerated() {
            let note = data.notifications[index]
            let failure = failures[offset % failures.count]
            let delivery: Delivery = offset == 1 ? .neverDelivered([.noResponse, .tlsIssue]) : offset % 3 == 0 ? .retried([failure]) : .delivered
            data.notifications[index].attempts = attempts(from: note.signedDate, delivery)
        }
        // Every failure result appears at least once.
        let seen = Set(data.notifications.flatMap { $0.attempts.compactMap(\.sendAttemptResult) })
        var missing = failures.filter { !seen.contains($0) }
        for index in data.notifications.indices.reversed() where !missing.isEmpty {
            let note = data.notifications[index]
            guard note.signedDate < daysAgo(4), note.attempts.count == 1 else { continue }
            data.notifications[index].attempts = attempts(from: note.signedDate, .retried([missing.removeFirst()]))
        }
        data.notifications.sort { $0.signedDate < $1.signedDate }
    }
}
