import AppStoreServerAPI
@testable import DeskCore
import Foundation
import Testing

/// Apple's rules for Send Consumption Information, checked before anything is sent.
@Suite struct ConsumptionRulesTests {
    let now = Date(timeIntervalSince1970: 1_800_000_000)

    func transaction(_ id: String, _ type: ProductType = .consumable) -> TransactionPayload {
        var t = TransactionPayload()
        t.transactionId = id
        t.originalTransactionId = id
        t.type = type
        return t
    }

    func request(_ id: String, hoursAgo: Double, type: ProductType = .consumable, answer: RefundRequest.Answer? = nil) -> RefundRequest {
        var request = RefundRequest(
            notificationUUID: "n-\(id)-\(hoursAgo)", transactionId: id, originalTransactionId: id, productId: "coins", price: 990, currency: "USD",
            reason: .unintendedPurchase, requestedAt: now.addingTimeInterval(-hoursAgo * 3600), environment: "Production")
        request.transaction = transaction(id, type)
        request.answer = answer
        return request
    }

    let consented = ConsumptionAnswer(deliveryStatus: .delivered, consumptionPercentage: 50_000, sampleContentProvided: false, customerConsented: true)

    func rules(_ verdict: ConsumptionRules.Verdict) -> [ConsumptionRefusal.Rule] {
        if case .refused(let refusals) = verdict { return refusals.map(\.rule) }
        return []
    }

    @Test func anOpenRequestIsAnsweredWithTheBodyAsMeant() throws {
        let verdict = ConsumptionRules.check(consented, transactionId: "1", requests: [request("1", hoursAgo: 2)], now: now)
        guard case .send(let body, let answering) = verdict else { Issue.record("refused: \(verdict)"); return }
        #expect(body == ConsumptionRequest(customerConsented: true, consumptionPercentage: 50_000, deliveryStatus: .delivered, sampleContentProvided: false))
        #expect(answering.notificationUUID == "n-1-2.0")
    }

    @Test func pastTheTwelveHoursIsRefusedWithTheDeadline() {
        let verdict = ConsumptionRules.check(consented, transactionId: "1", requests: [request("1", hoursAgo: 12.01)], now: now)
        #expect(rules(verdict) == [.pastDeadline])
        // The newest request counts: a customer who asked again has a new 12 hours.
        let again = ConsumptionRules.check(consented, transactionId: "1", requests: [request("1", hoursAgo: 40), request("1", hoursAgo: 1)], now: now)
        #expect(rules(again) == [])
    }

    @Test func aTransactionAppleDidNotAskAboutIsRefused() {
        #expect(rules(ConsumptionRules.check(consented, transactionId: "9", requests: [request("1", hoursAgo: 1)], now: now)) == [.notRequested])
        // When a source could not be read, "not asked" is not known: said so, and still not sent.
        let unknown = ConsumptionRules.check(consented, transactionId: "9", requests: [], requestsComplete: false, now: now)
        #expect(rules(unknown) == [.requestsUnknown])
    }

    @Test func noConsentIsRefusedWithApplesCode() throws {
        var answer = consented
        answer.customerConsented = false
        guard case .refused(let refusals) = ConsumptionRules.check(answer, transactionId: "1", requests: [request("1", hoursAgo: 1)], now: now) else {
            Issue.record("sent without consent")
            return
        }
        let refusal = try #require(refusals.first)
        #expect(refusal.rule == .noConsent)
        #expect(refusal.code == 4_000_035)
        #expect(refusal.appleAnswer == "InvalidCustomerConsentedError 4000035")
    }

    @Test func theShareFollowsApplesRules() {
        // On an auto-renewable subscription (from the request's own transaction): 4000209.
        let subscription = ConsumptionRules.check(consented, transactionId: "1", requests: [request("1", hoursAgo: 1, type: .autoRenewableSubscription)], now: now)
        #expect(rules(subscription) == [.percentageOnSubscription])
        var undelivered = consented
        undelivered.deliveryStatus = .undeliveredServerOutage
        #expect(rules(ConsumptionRules.check(undelivered, transactionId: "1", requests: [request("1", hoursAgo: 1)], now: now)) == [.percentageWhenUndelivered])
        undelivered.consumptionPercentage = 0
        #expect(rules(ConsumptionRules.check(undelivered, transactionId: "1", requests: [request("1", hoursAgo: 1)], now: now)) == [])
        var tooMuch = consented
        tooMuch.consumptionPercentage = 100_001
        #expect(rules(ConsumptionRules.check(tooMuch, transactionId: "1", requests: [request("1", hoursAgo: 1)], now: now)) == [.percentageOutOfRange])
    }

    @Test func anAnsweredRequestIsNotAnsweredTwice() {
        let applied = RefundRequest.Answer(time: now.addingTimeInterval(-600), agent: "policy", state: "applied", applied: true, refundPreference: "decline")
        #expect(rules(ConsumptionRules.check(consented, transactionId: "1", requests: [request("1", hoursAgo: 1, answer: applied)], now: now)) == [.alreadyAnswered])
        let unknown = RefundRequest.Answer(
            time: now, agent: "sam", state: "may have been applied", applied: false, refundPreference: nil, resolved: false)
        #expect(rules(ConsumptionRules.check(consented, transactionId: "1", requests: [request("1", hoursAgo: 1, answer: unknown)], now: now)) == [.answerUnresolved])
        // Refused by Apple: nothing was taken, so it may be answered again.
        let refused = RefundRequest.Answer(time: now, agent: "sam", state: "refused by Apple", applied: false, refundPreference: nil)
        #expect(rules(ConsumptionRules.check(consented, transactionId: "1", requests: [request("1", hoursAgo: 1, answer: refused)], now: now)) == [])
    }

    @Test func suggestionsComeFromWhatIsKnown() {
        var pass = transaction("1", .nonRenewingSubscription)
        pass.purchaseDate = now.addingTimeInterval(-25 * 86_400)
        pass.expiresDate = now.addingTimeInterval(75 * 86_400)
        let suggested = ConsumptionRules.suggested(transaction: pass, appRefundPreference: .decline, now: now)
        #expect(suggested.consumptionPercentage == 25_000)
        #expect(suggested.refundPreference == .decline)
        #expect(suggested.customerConsented == false)
        #expect(ConsumptionRules.suggested(transaction: transaction("2", .autoRenewableSubscription), appRefundPreference: nil, now: now).consumptionPercentage == nil)
        #expect(ConsumptionRules.percentage(fromPercent: "12.5") == 12_500)
        #expect(ConsumptionRules.percentage(fromPercent: "101") == nil)
    }
}
