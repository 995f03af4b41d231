import DeskStore
import Foundation
import Testing
import WebhookReceiver

/// Several receivers behind one load balancer, on one store: Apple's retries of a notification
/// spread over them, at once and in any order, leave it stored once with every delivery counted.
@Suite struct SeveralReceiversTests {
    @Test(arguments: StoreKind.allCases) func threeReceiversGivenEveryNotificationFourTimesKeepEachOnce(kind: StoreKind) async throws {
        let fixture = try await kind.fixture()
        let first = try await ReceiverBench.start(store: { _ in try await fixture.open() })
        let second = try await ReceiverBench.start(store: { _ in try await fixture.open() }, sharing: first)
        let third = try await ReceiverBench.start(store: { _ in try await fixture.open() }, sharing: first)
        let receivers = [first, second, third]
        let uuids = (0..<24).map { _ in UUID().uuidString.lowercased() }
        let bodies = try uuids.map { Notifications.body(try first.notifications.payload(uuid: $0)) }
        let answers = try await withThrowingTaskGroup(of: Int.self) { group in
            for body in bodies.shuffled() {
                for receiver in receivers + [receivers.randomElement()!] {
                    group.addTask { try await receiver.post(body).status }
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(answers.count == 96)
        #expect(answers.allSatisfy { $0 == 200 })
        let stored = try await first.store.notifications(NotificationFilter())
        #expect(Set(stored.map(\.notificationUUID)) == Set(uuids))
        #expect(stored.count == 24)
        #expect(stored.allSatisfy { $0.deliveryCount == 4 })
        // Each receiver's own log: one "stored" per notification in all, the rest duplicates.
        let outcomes = receivers.flatMap { $0.log.all.map(\.outcome) }
        #expect(outcomes.filter { $0 == .stored }.count == 24)
        #expect(outcomes.filter { $0 == .duplicate }.count == 72)
        for receiver in receivers.reversed() { await receiver.stop() }
        await fixture.cleanup()
    }
}
