import DeskStore
import Foundation
import Synchronization
import Testing
import WebhookReceiver

/// Refused bodies sent in bulk (a bounded number): kept within the limits, and never in the way of a notification.
@Suite struct QuarantineFloodTests {
    @Test func aFloodOfRefusedBodiesStaysWithinTheLimitsAndEveryValidNotificationIsStored() async throws {
        let bench = try await ReceiverBench.start(configure: {
            $0.quarantine.maxBodies = 20
            // Every body written: the limits, not the write budget, are what this tries.
            $0.quarantineWritesPerSecond = 0
        })
        let tampered = Notifications.body(Notifications.tampered(try bench.notifications.payload()))
        let junk = (0..<300).map { Data("junk \($0)".utf8) } + Array(repeating: tampered, count: 100)
        let valid = try (0..<20).map { _ in Notifications.body(try bench.notifications.payload()) }
        // Valid notifications go in among the refused bodies, 16 requests in flight.
        var mixed = junk.map { ($0, false) }
        for (index, body) in valid.enumerated() { mixed.insert((body, true), at: index * 20) }
        let requests = mixed
        let next = NextIndex()
        let answers = try await withThrowingTaskGroup(of: [(Bool, Int)].self) { group in
            for _ in 0..<16 {
                group.addTask {
                    var answers: [(Bool, Int)] = []
                    while true {
                        let index = next.take()
                        guard index < requests.count else { return answers }
                        answers.append((requests[index].1, try await bench.post(requests[index].0).status))
                    }
                }
            }
            return try await group.reduce(into: []) { $0 += $1 }
        }
        #expect(answers.filter { $0.0 }.map(\.1) == Array(repeating: 200, count: 20))
        #expect(answers.filter { !$0.0 }.allSatisfy { $0.1 == 400 })
        #expect(try await bench.store.notifications(NotificationFilter()).count == 20)
        let usage = try await #require(bench.store as? any BoundedQuarantine).quarantineUsage()
        #expect(usage.bodies <= 20)
        let counters = bench.receiver.counters
        #expect(counters[.quarantineKept] + counters[.quarantineRepeats] + counters[.quarantineNotKept] == 400)
        #expect(counters[.quarantineDropped] >= 280)
        // Copies that arrived while the first was being verified are verified too; no more than those in flight.
        #expect(counters[.refusedRecognised] >= 100 - 16)
        await bench.stop()
    }

    @Test func aRefusedBodySentAgainIsRefusedAlikeWithoutVerifyingAndCounted() async throws {
        let bench = try await ReceiverBench.start()
        let uuid = UUID().uuidString.lowercased()
        let body = Notifications.body(Notifications.tampered(try bench.notifications.payload(uuid: uuid)))
        let first = try await bench.post(body)
        let second = try await bench.post(body)
        #expect(first.status == 400)
        #expect(second.status == 400)
        #expect(second.error == first.error)
        #expect(bench.receiver.counters[.refusedRecognised] == 1)
        let kept = try await bench.store.quarantined(QuarantineFilter())
        #expect(kept.count == 1)
        #expect(kept.first?.count == 2)
        #expect(kept.first?.reason == "invalid-signature")
        #expect(kept.first?.notificationUUID == uuid)
        #expect(bench.log.all.map(\.verdict) == ["invalid-signature", "invalid-signature"])
        await bench.stop()
    }

    @Test func refusedBodiesPastTheWriteBudgetAreAnsweredWithoutBeingKept() async throws {
        // One write in its burst, then one per hundred seconds: the rest are over whatever the machine's speed.
        let bench = try await ReceiverBench.start(configure: { $0.quarantineWritesPerSecond = 0.01 })
        for index in 0..<5 { #expect(try await bench.post(Data("junk \(index)".utf8)).status == 400) }
        #expect(bench.receiver.counters[.quarantineKept] == 1)
        #expect(bench.receiver.counters[.quarantineNotKept] == 4)
        #expect(try await bench.store.quarantined(QuarantineFilter()).map { String(decoding: $0.body, as: UTF8.self) } == ["junk 0"])
        #expect(bench.log.all.compactMap(\.detail).filter { $0.contains("not kept") }.count == 4)
        #expect(try await bench.post(Notifications.body(try bench.notifications.payload())).status == 200)
        await bench.stop()
    }

    @Test func theCountersAreServedForPrometheus() async throws {
        let bench = try await ReceiverBench.start()
        _ = try await bench.post(Data("nope".utf8))
        _ = try await bench.post(Data("nope".utf8))
        let metrics = try await bench.post(Data(), path: "/metrics", method: "GET")
        #expect(metrics.status == 200)
        let text = String(decoding: metrics.body, as: UTF8.self)
        #expect(text.contains("# TYPE iapdesk_quarantine_kept_total counter\niapdesk_quarantine_kept_total 1\n"))
        #expect(text.contains("iapdesk_quarantine_repeats_total 1\n"))
        #expect(text.contains("iapdesk_receiver_refused_recognised_total 1\n"))
        #expect(text.contains("# TYPE iapdesk_receiver_open_connections gauge"))
        await bench.stop()
    }
}

/// Hands out 0, 1, 2, ... to the tasks sharing a list of requests.
final class NextIndex: Sendable {
    private let value = Mutex(0)

    func take() -> Int {
        value.withLock { value in
            defer { value += 1 }
            return value
        }
    }
}
