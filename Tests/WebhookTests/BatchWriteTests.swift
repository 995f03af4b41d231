@testable import DeskStore
import Foundation
import Testing

/// A batch is written a table at a time; each delivery still gets its own outcome, and one that
/// cannot be written fails alone.
@Suite struct BatchWriteTests {
    func delivery(_ uuid: String, from address: String = "127.0.0.1:5000") -> NotificationDelivery {
        var delivery = NotificationDelivery(
            notificationUUID: uuid, rawBody: Data(#"{"signedPayload":"\#(uuid)"}"#.utf8), verdict: "verified", receivedAt: Date(),
            elapsedMilliseconds: 1.5)
        delivery.notificationType = "DID_RENEW"
        delivery.decodedPayload = Data(#"{"notificationUUID":"\#(uuid)"}"#.utf8)
        delivery.remoteAddress = address
        return delivery
    }

    @Test func aUUIDTwiceInOneBatchIsStoredOnceAndCountedInOrder() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let store = try await SQLiteNotificationStore.open(path: folder.storePath)
        _ = try await store.record(delivery("stored-before"))
        let batch = [
            delivery("a", from: "10.0.0.1:1"), delivery("b"), delivery("a", from: "10.0.0.2:2"), delivery("stored-before"),
            delivery("a", from: "10.0.0.3:3"),
        ]
        let outcomes = try await store.transaction { try await store.insertAll(batch) }
        #expect(outcomes.map(\.deliveryCount) == [1, 1, 2, 2, 3])
        #expect(Set(outcomes.map(\.deliveryId)).count == batch.count)
        #expect(outcomes.map(\.deliveryId) == outcomes.map(\.deliveryId).sorted())
        #expect(outcomes[0].id == outcomes[2].id && outcomes[2].id == outcomes[4].id)
        let rows = try await store.notifications(NotificationFilter())
        #expect(rows.count == 3)
        let a = try #require(rows.first { $0.notificationUUID == "a" })
        // The notification shows its latest delivery, as when the three came one by one.
        #expect(a.deliveryCount == 3)
        #expect(a.lastDeliveryId == outcomes[4].deliveryId)
        #expect(a.remoteAddress == "10.0.0.3:3")
        #expect(try await store.deliveries(ofNotification: a.id).map(\.id) == [outcomes[0], outcomes[2], outcomes[4]].map(\.deliveryId))
        #expect(try #require(rows.first { $0.notificationUUID == "stored-before" }).deliveryCount == 2)
        try await store.close()
    }

    @Test func aBatchLargerThanOneStatementKeepsItsOrder() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let store = try await SQLiteNotificationStore.open(path: folder.storePath)
        let count = SQLiteNotificationStore.rowsPerStatement * 2 + 3
        let batch = (0..<count).map { delivery("n-\($0 % (count - 10))") }
        let outcomes = try await store.transaction { try await store.insertAll(batch) }
        #expect(outcomes.count == count)
        #expect(outcomes.filter { !$0.isDuplicate }.count == count - 10)
        #expect(outcomes.suffix(10).allSatisfy { $0.deliveryCount == 2 })
        #expect(try await store.notifications(NotificationFilter()).count == count - 10)
        try await store.close()
    }

    @Test func aDeliveryThatCannotBeWrittenFailsAloneAndTheOthersAreStored() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let store = try await SQLiteNotificationStore.open(path: folder.storePath)
        // A write SQLite refuses for this one notification only.
        _ = try await store.connection.query(
            "CREATE TEMP TRIGGER refuse BEFORE INSERT ON notifications WHEN NEW.notification_uuid = 'bad' BEGIN SELECT RAISE(ABORT, 'refused'); END")
        let results = await store.recordBatch([delivery("good-1"), delivery("bad"), delivery("good-2")])
        #expect(results.count == 3)
        #expect((try? results[0].get())?.deliveryCount == 1)
        #expect((try? results[1].get()) == nil)
        #expect((try? results[2].get())?.deliveryCount == 1)
        #expect(Set(try await store.notifications(NotificationFilter()).map(\.notificationUUID)) == ["good-1", "good-2"])
        try await store.close()
    }
}
