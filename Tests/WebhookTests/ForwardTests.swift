import AppStoreServerAPI
import DemoServer
import DeskStore
import Foundation
import Testing
import WebhookReceiver

/// `--forward-to` and `--mirror-status`: stored first, then sent on; the answer follows the forward only when mirroring.
@Suite struct ForwardTests {
    @Test func aStoredNotificationIsForwardedAsItArrived() async throws {
        let target = try await ReceiverBench.start()
        let bench = try await ReceiverBench.start(sharing: target, configure: { $0.forward = ForwardConfiguration(url: target.url) })
        let body = Notifications.body(try bench.notifications.payload())
        let answer = try await bench.post(body)
        #expect(answer.status == 200)
        let row = try #require(try await bench.store.notifications(NotificationFilter()).first)
        #expect(row.forwardResult == "HTTP 200")
        #expect(row.forwardStatus == 200)
        #expect(row.answeredStatus == 200)
        let delivery = try #require(try await bench.store.deliveries(ofNotification: row.id).first)
        #expect(delivery.forwardStatus == 200)
        #expect((delivery.forwardMilliseconds ?? -1) >= 0)
        #expect(bench.log.all.first?.forwardResult == "HTTP 200")
        // The target got the very bytes that arrived.
        #expect(try await target.store.notifications(NotificationFilter()).first?.rawBody == body)
        await bench.stop()
        await target.stop()
    }

    @Test func withoutMirroringAFailedForwardIsStillAnswered200() async throws {
        let closed = try await ReceiverBench.start()
        let unreachable = closed.url
        await closed.stop()
        let bench = try await ReceiverBench.start(configure: { $0.forward = ForwardConfiguration(url: unreachable, timeout: 5) })
        let answer = try await bench.post(Notifications.body(try bench.notifications.payload()))
        #expect(answer.status == 200)
        let row = try #require(try await bench.store.notifications(NotificationFilter()).first)
        #expect(row.forwardResult?.hasPrefix("not delivered") == true)
        #expect(row.forwardStatus == nil)
        #expect(row.answeredStatus == 200)
        await bench.stop()
    }

    @Test func mirroringAnswersWithTheForwardsStatusAndTheRetryIsCounted() async throws {
        let target = try await ReceiverBench.start()
        let wrongPath = URL(string: "http://127.0.0.1:\(target.receiver.port)/elsewhere")!
        let bench = try await ReceiverBench.start(configure: { $0.forward = ForwardConfiguration(url: wrongPath, mirrorStatus: true) })
        let body = Notifications.body(try bench.notifications.payload())
        let first = try await bench.post(body)
        #expect(first.status == 404)
        #expect(first.error?.contains("the forward gave HTTP 404") == true)
        let second = try await bench.post(body)
        #expect(second.status == 404)
        // Stored once all the same, each delivery with its answer.
        let rows = try await bench.store.notifications(NotificationFilter())
        #expect(rows.count == 1)
        #expect(rows.first?.deliveryCount == 2)
        #expect(rows.first?.answeredStatus == 404)
        let deliveries = try await bench.store.deliveries(ofNotification: try #require(rows.first?.id))
        #expect(deliveries.map(\.answeredStatus) == [404, 404])
        #expect(deliveries.map(\.forwardResult) == ["HTTP 404", "HTTP 404"])
        await bench.stop()
        await target.stop()
    }

    @Test func mirroringAnUnreachableOrSilentForwardAnswers502Or504() async throws {
        let closed = try await ReceiverBench.start()
        let unreachable = closed.url
        await closed.stop()
        let down = try await ReceiverBench.start(configure: { $0.forward = ForwardConfiguration(url: unreachable, timeout: 5, mirrorStatus: true) })
        #expect(try await down.post(Notifications.body(try down.notifications.payload())).status == 502)
        #expect(try await down.store.notifications(NotificationFilter()).count == 1)
        await down.stop()

        // A demo server that holds every API request without answering.
        var faults = DemoFaults()
        faults.hang = true
        var configuration = DemoServer.Configuration()
        configuration.faults = faults
        let silent = try await DemoServer.start(configuration)
        let hanging = try await ReceiverBench.start(configure: {
            $0.forward = ForwardConfiguration(url: silent.productionURL.appendingPathComponent("inApps/v1/notifications/history"), timeout: 0.5, mirrorStatus: true)
        })
        let answer = try await hanging.post(Notifications.body(try hanging.notifications.payload()))
        #expect(answer.status == 504)
        let row = try #require(try await hanging.store.notifications(NotificationFilter()).first)
        #expect(row.forwardResult == "timed out after 0.5 s")
        #expect(row.answeredStatus == 504)
        let forwardTime = try #require(try await hanging.store.deliveries(ofNotification: row.id).first?.forwardMilliseconds)
        #expect(forwardTime >= 450 && forwardTime < 5_000)
        await hanging.stop()
        await silent.stop()
    }
}
