import DeskStore
import Foundation
import PostgresNIO
import Synchronization
@testable import PostgresStore
import Testing

/// Receivers commit side by side, so a delivery ID drawn early may become visible after a later
/// one: a cursor read (the Live pane, `received --follow`) must wait for it rather than pass it.
@Suite struct PostgresArrivalsTests {
    func delivery(_ uuid: String) -> NotificationDelivery {
        NotificationDelivery(notificationUUID: uuid, rawBody: Data(#"{"signedPayload":"\#(uuid)"}"#.utf8), verdict: "verified", receivedAt: Date())
    }

    @Test func aCursorReadWaitsForADeliveryAnotherReceiverIsStillCommitting() async throws {
        let database = try await TestPostgres.database()
        let store = try await PostgresNotificationStore.open(database.address)
        let cursor = try await store.record(delivery("before")).deliveryId
        // A receiver in the middle of its transaction: the statement took the arrivals lock and drew
        // its delivery ID; its commit is not done.
        let slow = try await PostgresConnection.connect(
            configuration: try PostgresConnectionSettings.connection(database.address), id: 9, logger: PostgresNotificationStore.logger)
        try await slow.query("BEGIN", logger: PostgresNotificationStore.logger)
        let drawn = try await PostgresNotificationStore.insertRound([delivery("slow")], on: slow)
        // Another receiver commits a later ID meanwhile: a plain read shows it alone.
        let fast = try await store.record(delivery("fast"))
        #expect(try #require(drawn.first).deliveryId < fast.deliveryId)
        #expect(try await store.notifications(NotificationFilter()).map(\.notificationUUID) == ["before", "fast"])

        let reader = try await PostgresNotificationStore.open(database.address)
        let ended = Mutex(false)
        let following = Task {
            defer { ended.withLock { $0 = true } }
            return try await reader.notifications(NotificationFilter(afterDelivery: cursor))
        }
        // The cursor read waits on the arrivals lock until the slow receiver's commit (a read that
        // does not wait ends, and its rows below say what it missed).
        #expect(try await Self.untilAdvisoryLockAwaited(on: database.address, or: { ended.withLock { $0 } }))
        try await slow.query("COMMIT", logger: PostgresNotificationStore.logger)
        let followed = try await following.value
        #expect(followed.map(\.notificationUUID) == ["slow", "fast"])
        #expect(followed.map(\.lastDeliveryId) == followed.map(\.lastDeliveryId).sorted())

        try await slow.close()
        try await reader.close()
        try await store.close()
        await database.drop()
    }

    @Test func aFollowsFirstRowsStopBeforeADeliveryStillInFlight() async throws {
        let database = try await TestPostgres.database()
        let store = try await PostgresNotificationStore.open(database.address)
        _ = try await store.record(delivery("stored"))
        let slow = try await PostgresConnection.connect(
            configuration: try PostgresConnectionSettings.connection(database.address), id: 9, logger: PostgresNotificationStore.logger)
        try await slow.query("BEGIN", logger: PostgresNotificationStore.logger)
        _ = try await PostgresNotificationStore.insertRound([delivery("slow")], on: slow)
        _ = try await store.record(delivery("fast"))
        let reader = try await PostgresNotificationStore.open(database.address)
        let ended = Mutex(false)
        let starting = Task {
            defer { ended.withLock { $0 = true } }
            return try await reader.notifications(NotificationFilter(limit: 1, settled: true))
        }
        #expect(try await Self.untilAdvisoryLockAwaited(on: database.address, or: { ended.withLock { $0 } }))
        // Rolled back: the ID it drew never appears, and the read goes on without it.
        try await slow.query("ROLLBACK", logger: PostgresNotificationStore.logger)
        #expect(try await starting.value.map(\.notificationUUID) == ["fast"])
        #expect(try await reader.notifications(NotificationFilter(afterDelivery: 0)).map(\.notificationUUID) == ["stored", "fast"])
        try await slow.close()
        try await reader.close()
        try await store.close()
        await database.drop()
    }

    /// Returns once a session waits for an advisory lock on the database (seen in pg_locks), or once
    /// `ended` says the read it waits for has ended without waiting; whether one was seen waiting.
    static func untilAdvisoryLockAwaited(on address: PostgresAddress, or ended: () -> Bool) async throws -> Bool {
        let watcher = try await PostgresConnection.connect(
            configuration: try PostgresConnectionSettings.connection(address), id: 10, logger: PostgresNotificationStore.logger)
        var seen = false
        while !seen, !ended() {
            let rows = try await watcher.query(
                "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND NOT granted", logger: PostgresNotificationStore.logger)
            for try await count in rows.decode(Int.self) { seen = count > 0 }
            if !seen { try await Task.sleep(for: .milliseconds(2)) }
        }
        try await watcher.close()
        return seen
    }
}
