import AppStoreServerAPI
@testable import DemoServer
import Foundation
import Testing

/// The demo makes some deliveries fail so that a walkthrough shows gaps; TEST notifications never do.
@Suite struct DeliveryFaultTests {
    @Test(.timeLimit(.minutes(3)))
    func newNotificationsFollowTheFaultCycleAndTestNotificationsGoThrough() async throws {
        let receiver = try await WebhookReceiver.start()
        var configuration = DemoServer.Configuration()
        configuration.webhookURL = receiver.url
        // A bound for the receiver's answer on a busy machine: the faults below do not wait for it.
        configuration.webhookTimeout = 60
        let server = try await DemoServer.start(configuration)
        server.injectDeliveryFaults([.serverError, .timedOutAfterArrival, .none])
        let client = try server.plainClient()
        let start = Date().addingTimeInterval(-60)
        let alice = try server.customer("Active monthly subscription")
        let bob = try server.customer("Auto-renew turned off")

        _ = try await client.extendSubscriptionRenewalDate(
            originalTransactionId: alice.originalTransactionId,
            request: ExtendRenewalDateRequest(extendByDays: 3, extendReasonCode: .customerSatisfaction, requestIdentifier: "fault-1"))
        // A TEST notification between them neither fails nor moves the cycle on.
        let token = try #require(try await client.requestTestNotification().testNotificationToken)
        _ = try await client.extendSubscriptionRenewalDate(
            originalTransactionId: alice.originalTransactionId,
            request: ExtendRenewalDateRequest(extendByDays: 3, extendReasonCode: .customerSatisfaction, requestIdentifier: "fault-2"))
        _ = try await client.extendSubscriptionRenewalDate(
            originalTransactionId: bob.originalTransactionId,
            request: ExtendRenewalDateRequest(extendByDays: 3, extendReasonCode: .customerSatisfaction, requestIdentifier: "fault-3"))

        // Each request started its delivery before it was answered: wait for them to land, not for a time.
        await server.deliveriesLanded()
        let items = try await client.notificationHistoryPages(request: .init(
            startDate: start, endDate: Date().addingTimeInterval(60), notificationType: .renewalExtended)).collect().flatMap { $0.notificationHistory ?? [] }
        let results = items.map { $0.sendAttempts?.last?.sendAttemptResult }
        let test = try await client.getTestNotificationStatus(testNotificationToken: token).sendAttempts?.last?.sendAttemptResult
        #expect(results == [.unsuccessfulHTTPResponseCode, .timedOut, .success])
        #expect(test == .success)
        // The 500 delivered nothing; the time-out's body did arrive.
        let bodies = receiver.bodies
        #expect(bodies.count == 3)
        await server.stop()
        await receiver.stop()
    }

    @Test func historyEntriesAreTheBodiesApplePostsWithTheirAttempts() async throws {
        let server = try await DemoServer.start()
        let history = server.notificationHistory(.production)
        #expect(history.count > 10)
        let entry = try #require(history.first { $0.attempts.count > 1 })
        let body = try JSONValue.parse(entry.body)
        let decoded = try await server.makeVerifier().verifyNotification(body["signedPayload"]?.stringValue ?? "")
        #expect(decoded.notification.status == .verified)
        #expect(decoded.notification.payload?.notificationUUID == entry.notificationUUID)
        await server.stop()
    }
}
