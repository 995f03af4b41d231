import DeskStore
import Foundation
@testable import PostgresStore
import Testing

/// Deliveries that arrive together go to the server in one statement per round: one the server
/// refuses fails alone, and a notification delivered twice in one batch is counted twice.
@Suite struct PostgresBatchWriteTests {
    func delivery(_ uuid: String, type: String = "DID_RENEW") -> NotificationDelivery {
        var delivery = NotificationDelivery(
            notificationUUID: uuid, rawBody: Data(#"{"signedPayload":"\#(uuid)"}"#.utf8), verdict: "verified", receivedAt: Date())
        delivery.notificationType = type
        return delivery
    }

    @Test func aDeliveryTheServerRefusesFailsAloneAndTheOthersAreStored() async throws {
        let database = try await TestPostgres.database()
        let store = try await PostgresNotificationStore.open(database.address)
        // PostgreSQL's text holds no NUL: the server refuses the statement holding it.
        let batch = (0..<7).map { delivery("good-\($0)") } + [delivery("bad", type: "DID\u{0}RENEW"), delivery("good-3")]
        let outcomes = await withTaskGroup(of: (String, Bool).self) { group in
            for item in batch {
                group.addTask { (item.notificationUUID, (try? await store.record(item)) != nil) }
            }
            return await group.reduce(into: [(String, Bool)]()) { $0.append($1) }
        }
        #expect(outcomes.filter { !$0.1 }.map(\.0) == ["bad"])
        let stored = try await store.notifications(NotificationFilter())
        #expect(stored.map(\.notificationUUID).sorted() == (0..<7).map { "good-\($0)" })
        #expect(stored.first { $0.notificationUUID == "good-3" }?.deliveryCount == 2)
        let repeated = try #require(stored.first { $0.notificationUUID == "good-3" })
        #expect(try await store.deliveries(ofNotification: repeated.id).count == 2)
        try await store.close()
        await database.drop()
    }
}
