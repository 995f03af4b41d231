import AppStoreServerAPI
@testable import Console
@testable import DeskCore
import Foundation
import Testing

/// "Why was I charged?" answered from one screen: the facts of each subscription's billing.
@Suite struct BillingFactsTests {
    func lookUp(_ harness: ConsoleHarness, _ id: String) async throws -> CustomerState {
        if harness.state.focus != .paneInput { harness.send(.character("i")) }
        harness.send(.control("u"))
        harness.type(id)
        harness.send(.enter)
        try await harness.settle()
        return try #require(harness.state.customer)
    }

    @Test func aChargeAfterAutoRenewWasTurnedOffIsSaidWithBothDates() async throws {
        let harness = try await ConsoleHarness.start()
        defer { Task { await harness.stop() } }
        let seed = harness.server.seedIDs(.production)
        let id = try #require(seed.customers.first { $0.scenario == "Charged after turning auto-renew off" }?.originalTransactionId)
        let customer = try await lookUp(harness, id)
        let row = try #require(customer.subscriptions.value?.first)
        let facts = BillingFacts.of(row, history: customer.history.value, notifications: customer.notifications.value)
        #expect(facts.autoRenewOn == false)
        let turnedOff = try #require(facts.turnedOffBeforeCharge)
        let charge = try #require(facts.lastCharge)
        #expect(turnedOff < charge.date)
        #expect(facts.autoRenewChanged == turnedOff)
        #expect(facts.nextCharge == nil)
        #expect(!facts.inBillingRetry)
        let lines = facts.lines()
        #expect(lines.contains("auto-renew off since \(DisplayFormat.date(turnedOff)) · billing retry: no"))
        #expect(lines.contains { $0.hasPrefix("last charge \(DisplayFormat.date(charge.date)), 9.99 EUR · no next charge") })
        #expect(lines.contains("⚠ charged AFTER auto-renew was turned off (\(DisplayFormat.date(turnedOff))):"))
        #expect(lines.allSatisfy { $0.count <= 72 }, "\(lines)")
        // The same facts on the summary at 80 columns, and in the case file.
        let screen = harness.screen(width: 80, height: 24)
        #expect(screen.contains("⚠ charged AFTER auto-renew was turned off"))
        #expect(screen.contains(BillingFacts.renewalRule))
        let file = CaseFile(customer: customer, environment: .production, writes: [], notes: [], received: [], generatedAt: Date()).markdown()
        #expect(file.contains("  - ⚠ charged AFTER auto-renew was turned off"))
    }

    @Test func anActiveSubscriptionSaysItsNextChargeAndAGraceOneItsEnd() async throws {
        let harness = try await ConsoleHarness.start()
        defer { Task { await harness.stop() } }
        let active = try await lookUp(harness, "MK5TTTVWJH")
        let row = try #require(active.subscriptions.value?.first)
        let facts = BillingFacts.of(row, history: active.history.value, notifications: active.notifications.value)
        #expect(facts.autoRenewOn == true)
        #expect(facts.turnedOffBeforeCharge == nil)
        let next = try #require(facts.nextCharge)
        #expect(next.date > (facts.lastCharge?.date ?? .distantFuture))
        #expect(facts.lines().contains { $0.contains("· next \(DisplayFormat.day(next.date)), 9.99 USD") })

        let grace = try await lookUp(harness, "RWPVUMZJWB")
        let graceRow = try #require(grace.subscriptions.value?.first)
        let graceFacts = BillingFacts.of(graceRow, history: grace.history.value, notifications: grace.notifications.value)
        #expect(graceFacts.graceUntil != nil)
        #expect(graceFacts.lines().contains { $0.hasPrefix("grace period until") })
    }

    @Test func aPurchaseAfterTurningAutoRenewOffIsNoChargeAfterCancelling() {
        func verified<T: Sendable>(_ payload: T) -> VerifiedPayload<T> {
            VerifiedPayload(payload: payload, rawPayload: nil, header: nil, status: .verified, chainSubjects: [])
        }
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        var bought = TransactionPayload()
        bought.transactionId = "2"
        bought.originalTransactionId = "1"
        bought.purchaseDate = now.addingTimeInterval(-3600)
        bought.price = 9990
        bought.currency = "USD"
        bought.transactionReason = .purchase
        var renewal = RenewalInfoPayload()
        renewal.originalTransactionId = "1"
        renewal.autoRenewStatus = .off
        var change = NotificationPayload()
        change.notificationType = .didChangeRenewalStatus
        change.subtype = .autoRenewDisabled
        change.signedDate = now.addingTimeInterval(-86_400)
        let notification = NotificationRow(
            decoded: DecodedNotification(notification: verified(change), transaction: verified(bought), renewalInfo: nil, appTransaction: nil),
            signedPayload: "", attempts: [])
        let row = SubscriptionRow(groupIdentifier: "g", originalTransactionId: "1", status: .active, transaction: verified(bought), renewal: verified(renewal))
        // Bought again on purpose: not a renewal Apple made after the customer turned auto-renew off.
        #expect(BillingFacts.of(row, history: [verified(bought)], notifications: [notification]).turnedOffBeforeCharge == nil)
        var renewed = bought
        renewed.transactionReason = .renewal
        let renewedRow = SubscriptionRow(groupIdentifier: "g", originalTransactionId: "1", status: .active, transaction: verified(renewed), renewal: verified(renewal))
        #expect(BillingFacts.of(renewedRow, history: [verified(renewed)], notifications: [notification]).turnedOffBeforeCharge == change.signedDate)
    }
}
