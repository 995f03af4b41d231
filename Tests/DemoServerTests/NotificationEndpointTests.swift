import AppStoreServerAPI
@testable import DemoServer
import Foundation
import Testing

@Suite struct NotificationEndpointTests {
    func all(_ client: AppStoreServerClient, _ request: NotificationHistoryRequest) async throws -> [NotificationHistoryResponseItem] {
        try await client.notificationHistoryPages(request: request).collect().flatMap { $0.notificationHistory ?? [] }
    }

    var lastMonth: NotificationHistoryRequest {
        NotificationHistoryRequest(startDate: Date().addingTimeInterval(-30 * 86_400 + 60), endDate: Date())
    }

    @Test func historyPagesAndCoversEverySendAttemptResult() async throws {
        let server = try await SharedDemo.get()
        let client = try server.plainClient()
        let firstPage = try await client.getNotificationHistory(request: lastMonth)
        #expect(firstPage.notificationHistory?.count == 20)
        #expect(firstPage.hasMore == true)
        #expect(firstPage.paginationToken != nil)
        let items = try await all(client, lastMonth)
        #expect(items.count > 20)
        let results = Set(items.flatMap { $0.sendAttempts ?? [] }.compactMap(\.sendAttemptResult))
        #expect(results == Set(SendAttemptResult.knownValues))
        // Retried then delivered, and never delivered.
        #expect(items.contains { ($0.sendAttempts?.count ?? 0) > 1 && $0.sendAttempts?.last?.sendAttemptResult == .success })
        #expect(items.contains { ($0.sendAttempts?.count ?? 0) >= 2 && !($0.sendAttempts ?? []).contains { $0.sendAttemptResult == .success } })
        let verifier = try server.makeVerifier()
        for item in items.prefix(5) {
            let decoded = await verifier.verifyNotification(item.signedPayload ?? "")
            #expect(decoded.isFullyVerified, "\(decoded.notification.status.summary)")
        }
    }

    @Test func filtersReturnExactlyTheMatchingNotifications() async throws {
        let server = try await SharedDemo.get()
        let client = try server.plainClient()
        let verifier = try server.makeVerifier()
        let everything = try await all(client, lastMonth)
        var byType: [NotificationType: Int] = [:]
        for item in everything {
            if let type = await verifier.verifyNotification(item.signedPayload ?? "").notification.payload?.notificationType { byType[type, default: 0] += 1 }
        }
        var request = lastMonth
        request.notificationType = .didRenew
        let renewals = try await all(client, request)
        #expect(renewals.count == byType[.didRenew])
        request.notificationType = .expired
        request.notificationSubtype = .voluntary
        let voluntary = try await all(client, request)
        #expect(voluntary.count == 1)

        var failures = lastMonth
        failures.onlyFailures = true
        let failed = try await all(client, failures)
        #expect(failed.count == everything.filter { !($0.sendAttempts ?? []).contains { $0.sendAttemptResult == .success } }.count)
        #expect(!failed.isEmpty)

        let ken = try server.customer("Consumables and refunds")
        var forKen = lastMonth
        forKen.transactionId = ken.originalTransactionId
        let kens = try await all(client, forKen)
        #expect(kens.count == 6)
    }

    @Test func historyValidationErrors() async throws {
        let server = try await SharedDemo.get()
        let client = try server.plainClient()
        let now = Date()
        func code(_ request: NotificationHistoryRequest, token: String? = nil) async -> Int64? {
            await apiError { try await client.getNotificationHistory(paginationToken: token, request: request) }?.code
        }
        #expect(await code(.init(startDate: now, endDate: now.addingTimeInterval(-1))) == 4_000_013)
        #expect(await code(.init(startDate: now.addingTimeInterval(-200 * 86_400), endDate: now)) == 4_000_012)
        #expect(await code(.init(endDate: now)) == 4_000_015)
        #expect(await code(.init(startDate: now.addingTimeInterval(-60))) == 4_000_016)
        #expect(await code(.init(startDate: now.addingTimeInterval(-60), endDate: now, notificationType: .unknown("NOPE"))) == 4_000_018)
        #expect(await code(.init(startDate: now.addingTimeInterval(-60), endDate: now, notificationType: .didRenew, notificationSubtype: .voluntary)) == 4_000_018)
        #expect(await code(.init(startDate: now.addingTimeInterval(-60), endDate: now, notificationSubtype: .voluntary)) == 4_000_018)
        #expect(await code(.init(startDate: now.addingTimeInterval(-60), endDate: now, notificationType: .refund, transactionId: "1")) == 4_000_019)
        #expect(await code(.init(startDate: now.addingTimeInterval(-60), endDate: now, transactionId: "x1")) == 4_000_006)
        #expect(await code(.init(startDate: now.addingTimeInterval(-60), endDate: now, transactionId: "2000000499999999")) == 4_040_010)
        #expect(await code(.init(startDate: now.addingTimeInterval(-60), endDate: now), token: "bogus") == 4_000_014)
        let sandbox = try server.plainClient(.sandbox)
        #expect(await apiError { try await sandbox.getNotificationHistory(request: .init(startDate: now.addingTimeInterval(-31 * 86_400), endDate: now)) }?.code == 4_000_012)
    }

    @Test func testNotificationIsDeliveredToTheTestsReceiver() async throws {
        let receiver = try await WebhookReceiver.start()
        var configuration = DemoServer.Configuration()
        configuration.webhookURL = receiver.url
        // A bound, not a speed: a machine busy with other suites may take seconds to answer.
        configuration.webhookTimeout = 120
        let server = try await DemoServer.start(configuration)
        let client = try server.plainClient()
        let token = try #require(try await client.requestTestNotification().testNotificationToken)
        // Until the attempt is recorded (its end is the event), within a bound no passing run nears.
        var status: CheckTestNotificationResponse?
        for _ in 0..<1_200 where status?.sendAttempts?.isEmpty != false {
            status = try? await client.getTestNotificationStatus(testNotificationToken: token)
            if status?.sendAttempts?.isEmpty != false { try await Task.sleep(nanoseconds: 100_000_000) }
        }
        #expect(status?.sendAttempts?.map(\.sendAttemptResult) == [.success])
        #expect(receiver.bodies.count == 1)
        let body = try JSONValue.parse(Data(receiver.bodies[0].utf8))
        let decoded = try await server.makeVerifier().verifyNotification(body["signedPayload"]?.stringValue ?? "")
        #expect(decoded.notification.status == .verified)
        #expect(decoded.notification.payload?.notificationType == .test)
        #expect(status?.signedPayload == body["signedPayload"]?.stringValue)
        #expect(await apiError { try await client.getTestNotificationStatus(testNotificationToken: "not-a-token") }?.code == 4_000_020)
        #expect(await apiError { try await client.getTestNotificationStatus(testNotificationToken: UUID().uuidString) }?.code == 4_040_008)
        await server.stop()
        await receiver.stop()
    }

    @Test func failedDeliveriesAreRecordedWithTheRealResult() async throws {
        let failing = try await WebhookReceiver.start(status: 500)
        let slow = try await WebhookReceiver.start(delay: 3)
        // Only the slow receiver is held to a short timeout: the others' answers may be slow on a busy machine.
        let cases: [(URL, SendAttemptResult, TimeInterval)] = [
            (failing.url, .unsuccessfulHTTPResponseCode, 60), (slow.url, .timedOut, 1), (URL(string: "http://127.0.0.1:9/hook")!, .socketIssue, 60),
        ]
        for (url, expected, timeout) in cases {
            var configuration = DemoServer.Configuration()
            configuration.webhookURL = url
            configuration.webhookTimeout = timeout
            let server = try await DemoServer.start(configuration)
            let client = try server.plainClient()
            let token = try #require(try await client.requestTestNotification().testNotificationToken)
            var result: SendAttemptResult?
            // Until the attempt is recorded; the bound is for a busy machine, not a wait.
            let deadline = Date().addingTimeInterval(120)
            while result == nil, Date() < deadline {
                result = try? await client.getTestNotificationStatus(testNotificationToken: token).sendAttempts?.last?.sendAttemptResult
                if result == nil { try await Task.sleep(nanoseconds: 100_000_000) }
            }
            #expect(result == expected, "\(url)")
            await server.stop()
        }
        await failing.stop()
        await slow.stop()
    }

    @Test func noWebhookConfiguredIsApplesError() async throws {
        let server = try await DemoServer.start()
        let client = try server.plainClient()
        #expect(await apiError { try await client.requestTestNotification() }?.code == 4_040_007)
        await server.stop()
    }
}
