import AppStoreServerAPI
@testable import DemoServer
import Foundation
import Testing

/// Apple's decision after the app answers a refund request: REFUND or REFUND_DECLINED, as the
/// answer's refund preference says, signed, in the notification history and sent to the webhook.
@Suite struct RefundDecisionTests {
    /// The transactions of the refund requests still within their 12 hours, newest first.
    func pendingRequests(_ server: DemoServer) async throws -> [String] {
        let client = try server.plainClient()
        var request = NotificationHistoryRequest()
        request.startDate = Date().addingTimeInterval(-12 * 3600)
        request.endDate = Date().addingTimeInterval(60)
        request.notificationType = .consumptionRequest
        let items = try await client.notificationHistoryPages(request: request).collect().flatMap { $0.notificationHistory ?? [] }
        var found: [(Date, String)] = []
        for item in items {
            let decoded = await (try server.makeVerifier()).verifyNotification(item.signedPayload ?? "")
            if let transaction = decoded.transaction?.payload?.transactionId, let date = decoded.notification.payload?.signedDate { found.append((date, transaction)) }
        }
        return found.sorted { $0.0 > $1.0 }.map(\.1)
    }

    @Test func anAnswerLeadsToApplesDecisionInTheHistoryAndAtTheWebhook() async throws {
        let webhook = try await WebhookReceiver.start()
        var configuration = DemoServer.Configuration()
        configuration.webhookURL = webhook.url
        let server = try await DemoServer.start(configuration)
        let client = try server.plainClient()
        // Seeded: the hours-left request, the minutes-left one, and one the policy answered already.
        let pending = try await pendingRequests(server)
        #expect(pending.count == 3)
        let (granted, declined) = (pending[0], pending[2])
        var published = server.activity().makeAsyncIterator()
        try await client.sendConsumptionInformation(
            transactionId: granted, request: ConsumptionRequest(customerConsented: true, deliveryStatus: .delivered, refundPreference: .grantFull, sampleContentProvided: false))
        try await client.sendConsumptionInformation(
            transactionId: declined, request: ConsumptionRequest(customerConsented: true, deliveryStatus: .delivered, refundPreference: .decline, sampleContentProvided: false))
        var decisions: [String: String] = [:]
        while decisions.count < 2, let event = await published.next() {
            if case .published(let type, let uuid) = event { decisions[type] = uuid }
        }
        #expect(Set(decisions.keys) == ["REFUND", "REFUND_DECLINED"])
        // In the history, each about the transaction answered; the refund revoked it.
        let history = server.notificationHistory(.production)
        let verifier = try server.makeVerifier()
        for (type, transaction) in [("REFUND", granted), ("REFUND_DECLINED", declined)] {
            let entry = try #require(history.first { $0.notificationUUID == decisions[type] })
            let body = try #require(try JSONSerialization.jsonObject(with: entry.body) as? [String: String])
            let decoded = await verifier.verifyNotification(body["signedPayload"] ?? "")
            #expect(decoded.notification.payload?.notificationType?.rawValue == type)
            #expect(decoded.transaction?.payload?.transactionId == transaction)
        }
        let refunded = try await server.verified(try await client.getTransactionInfo(transactionId: granted).signedTransactionInfo)
        #expect(refunded.revocationType == .refundFull)
        #expect(refunded.revocationDate != nil)
        #expect(try await server.verified(try await client.getTransactionInfo(transactionId: declined).signedTransactionInfo).revocationDate == nil)
        // Both reached the webhook.
        await server.deliveriesLanded()
        #expect(webhook.bodies.count == 2)
        // Answering again after Apple decided changes nothing: no decision waits.
        try await client.sendConsumptionInformation(
            transactionId: declined, request: ConsumptionRequest(customerConsented: true, deliveryStatus: .undeliveredOther, refundPreference: .grantFull, sampleContentProvided: false))
        #expect(try server.store.read(.production) { data throws(DemoAPIError) in data.consumptionAnswers.isEmpty })
        await server.stop()
        await webhook.stop()
    }

    @Test(arguments: [
        (RefundPreference?.some(.grantFull), DeliveryStatus.delivered, DemoRefundOutcome.refundFull),
        (.grantProrated, .delivered, .refundProrated),
        (.decline, .undeliveredOther, .declined),
        (nil, .delivered, .declined),
        (nil, .undeliveredServerOutage, .refundFull),
    ])
    func theDecisionFollowsThePreferenceThenTheDelivery(preference: RefundPreference?, delivery: DeliveryStatus, outcome: DemoRefundOutcome) {
        #expect(DemoRefundOutcome(ConsumptionRequest(customerConsented: true, deliveryStatus: delivery, refundPreference: preference, sampleContentProvided: false)) == outcome)
    }
}
