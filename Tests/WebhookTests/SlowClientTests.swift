import AppStoreServerAPI
import DeskStore
import Foundation
import Testing
import WebhookReceiver

/// Slow and greedy senders (real sockets, a bounded number of them) against the receiver's limits.
@Suite struct SlowClientTests {
    static func head(length: Int) -> Data {
        Data("POST /appstore/notifications HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: \(length)\r\n\r\n".utf8)
    }

    @Test func validNotificationsAreAnsweredWhileSlowSendersHoldMoreConnectionsThanThereAreSlots() async throws {
        // Four slots, six times as many bodies trickling in: the slots are taken only by bodies that have arrived.
        let bench = try await ReceiverBench.start(configure: {
            $0.maxConcurrentRequests = 4
            $0.readTimeout = .seconds(120)
        })
        let slow = SlowSockets(count: 24, port: bench.receiver.port, opening: Self.head(length: 1000) + Data(#"{"signedPa"#.utf8))
        #expect(slow.connected == 24)
        #expect(try await SlowSockets.wait { bench.receiver.reading == 24 })
        let bodies = try (0..<8).map { _ in Notifications.body(try bench.notifications.payload()) }
        let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
            for body in bodies { group.addTask { try await bench.post(body).status } }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(statuses == Array(repeating: 200, count: 8))
        // Answered while every slow sender still held its connection and its body was still being read.
        #expect(bench.receiver.reading == 24)
        #expect(slow.closed == 0)
        #expect(try await bench.store.notifications(NotificationFilter()).count == 8)
        await slow.stop()
        await bench.stop()
    }

    @Test func aHeadStillTricklingInAtTheReadTimeoutHasItsConnectionClosed() async throws {
        let bench = try await ReceiverBench.start(configure: { $0.readTimeout = .seconds(1) })
        let head = Self.head(length: 10)
        // A byte every 100 ms: the head would take 10 s; its connection is closed about 1 s after its first byte.
        let slow = SlowSockets(count: 2, port: bench.receiver.port, opening: head.prefix(1), trickle: head.dropFirst(), interval: 0.1)
        #expect(try await SlowSockets.wait { slow.closed == 2 })
        #expect(slow.mostTrickled < head.count - 1)
        #expect(bench.receiver.counters[.headerTimeouts] == 2)
        #expect(try await SlowSockets.wait { bench.receiver.openConnections == 0 })
        #expect(try await bench.post(Notifications.body(try bench.notifications.payload())).status == 200)
        await slow.stop()
        await bench.stop()
    }

    @Test func aBodyAnswered408HasItsConnectionClosedThoughItKeepsTrickling() async throws {
        let bench = try await ReceiverBench.start(configure: { $0.readTimeout = .seconds(1) })
        let slow = SlowSockets(count: 3, port: bench.receiver.port, opening: Self.head(length: 1000) + Data("{".utf8), interval: 0.2)
        #expect(try await SlowSockets.wait { slow.closed == 3 })
        #expect(try await SlowSockets.wait { bench.receiver.openConnections == 0 })
        // Closed after the answer, not by the cut that comes 5 s after the deadline.
        #expect(bench.receiver.counters[.bodiesCutOff] == 0)
        #expect(Set(try await bench.store.quarantined(QuarantineFilter()).map(\.answeredStatus)) == [408])
        await slow.stop()
        await bench.stop()
    }

    @Test func aPeerOverItsConnectionLimitHasTheRestClosedOthersAreServed() async throws {
        let bench = try await ReceiverBench.start(configure: {
            $0.maxConnectionsPerPeer = 3
            $0.unlimitedPeers = []
        })
        let greedy = SlowSockets(count: 7, port: bench.receiver.port, source: "127.0.0.2", opening: Data(), trickle: Data())
        #expect(try await SlowSockets.wait { greedy.closed == 4 })
        #expect(bench.receiver.counters[.connectionsOverPeerLimit] == 4)
        #expect(bench.receiver.openConnections == 3)
        // 127.0.0.1 is another peer, with its own three.
        #expect(try await bench.post(Notifications.body(try bench.notifications.payload())).status == 200)
        await greedy.stop()
        await bench.stop()
    }

    @Test func unlimitedRangesAreNotCounted() async throws {
        let bench = try await ReceiverBench.start(configure: {
            $0.maxConnectionsPerPeer = 1
            $0.unlimitedPeers = [PeerRange("127.0.0.2")!]
        })
        let allowed = SlowSockets(count: 3, port: bench.receiver.port, source: "127.0.0.2", opening: Data(), trickle: Data())
        #expect(try await SlowSockets.wait { bench.receiver.openConnections == 3 })
        #expect(allowed.closed == 0)
        await allowed.stop()
        await bench.stop()
    }

    @Test func aPeerOverItsRateIsAnswered429WithRetryAfter() async throws {
        let bench = try await ReceiverBench.start(configure: {
            // One request in its burst, then one per hundred seconds: the second is over whatever the machine's speed.
            $0.maxRequestsPerSecondPerPeer = 0.01
            $0.unlimitedPeers = []
        })
        #expect(try await bench.post(Data("first".utf8)).status == 400)
        let response = try await Poster.transport.send(HTTPRequest(method: "POST", url: bench.url, body: Data("second".utf8), timeout: 30))
        #expect(response.status == 429)
        #expect(Int(response.header("Retry-After") ?? "") ?? 0 >= 1)
        #expect(bench.receiver.counters[.rateLimited] == 1)
        // Only the first was read and kept.
        #expect(try await bench.store.quarantined(QuarantineFilter()).count == 1)
        await bench.stop()
    }

    @Test func aStopCutsBodiesStillTricklingInAndAnswersThemWithinItsDrainTimeout() async throws {
        let bench = try await ReceiverBench.start(configure: {
            $0.readTimeout = .seconds(120)
            $0.drainTimeout = .seconds(20)
        })
        let slow = SlowSockets(count: 10, port: bench.receiver.port, opening: Self.head(length: 1000) + Data("{".utf8))
        #expect(try await SlowSockets.wait { bench.receiver.reading == 10 })
        let started = ContinuousClock.now
        // The slow bodies are cut half-way through the drain (10 s), not at their read timeout (120 s).
        _ = await bench.receiver.stop()
        #expect(ContinuousClock.now - started < .seconds(60))
        #expect(bench.receiver.counters[.readsCutByStop] == 10)
        #expect(try await SlowSockets.wait { slow.closed == 10 })
        #expect(Set(try await bench.store.quarantined(QuarantineFilter()).map(\.reason)) == ["read-timeout"])
        await slow.stop()
        await bench.stop()
    }

    @Test func peerRangesMatchAddressesInThem() {
        let apple = PeerRange("17.0.0.0/8")!
        #expect(apple.contains("17.253.4.125"))
        #expect(apple.contains("::ffff:17.1.2.3"))
        #expect(!apple.contains("18.0.0.1"))
        #expect(PeerRange("::1/128")!.contains("::1"))
        #expect(!PeerRange("::1/128")!.contains("127.0.0.1"))
        #expect(PeerRange("2001:db8::/32")!.contains("2001:db8:1::5"))
        #expect(PeerRange("10.1.2.3")!.description == "10.1.2.3/32")
        #expect(PeerRange("10.0.0.0/33") == nil)
        #expect(PeerRange("nonsense") == nil)
    }
}
