import DeskStore
import Foundation
import Testing

@Suite struct StoreTests {
    func delivery(_ uuid: String) -> NotificationDelivery { StoreContractTests().delivery(uuid) }

    @Test func aNewStoreIsMigratedFromEmptyWithPrivateModes() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let store = try await SQLiteNotificationStore.open(path: folder.storePath)
        #expect(try await store.userVersion() == SQLiteNotificationStore.schemaVersion)
        #expect(SQLiteNotificationStore.schemaVersion >= 1)
        let durability = try await store.durability()
        #expect(durability.journalMode == "wal")
        #expect(durability.synchronous == 2)
        let attributes = try FileManager.default.attributesOfItem(atPath: folder.storePath)
        #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)
        let folderAttributes = try FileManager.default.attributesOfItem(atPath: (folder.storePath as NSString).deletingLastPathComponent)
        #expect((folderAttributes[.posixPermissions] as? NSNumber)?.intValue == 0o700)
        #expect(try await store.record(delivery("a")) == RecordOutcome(id: 1, deliveryId: 1, deliveryCount: 1))
        try await store.close()
        // WAL: the journal beside the file while it is open.
        let reopened = try await SQLiteNotificationStore.open(path: folder.storePath)
        #expect(FileManager.default.fileExists(atPath: folder.storePath + "-wal"))
        #expect(try await reopened.notifications(NotificationFilter()).map(\.notificationUUID) == ["a"])
        #expect(try await reopened.userVersion() == SQLiteNotificationStore.schemaVersion)
        try await reopened.close()
    }

    @Test func aStoreDroppedWithoutClosingKeepsItsWrites() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        var store: SQLiteNotificationStore? = try await SQLiteNotificationStore.open(path: folder.storePath)
        _ = try await store?.record(delivery("kept"))
        store = nil
        let reopened = try await SQLiteNotificationStore.open(path: folder.storePath)
        #expect(try await reopened.notifications(NotificationFilter()).map(\.notificationUUID) == ["kept"])
        try await reopened.close()
    }

    @Test func aStoreOfANewerSchemaIsRefused() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let store = try await SQLiteNotificationStore.open(path: folder.storePath)
        try await store.setUserVersionForTesting(99)
        try await store.close()
        await #expect(throws: NotificationStoreError.newerSchema(path: folder.storePath, version: 99, known: SQLiteNotificationStore.schemaVersion)) {
            _ = try await SQLiteNotificationStore.open(path: folder.storePath)
        }
    }

    @Test func aMissingStoreIsNotCreatedByReaders() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        await #expect(throws: NotificationStoreError.missing(path: folder.storePath)) {
            _ = try await SQLiteNotificationStore.open(path: folder.storePath, create: false)
        }
        #expect(!FileManager.default.fileExists(atPath: folder.storePath))
        #expect(NotificationStoreError.missing(path: "/x").description == "No notifications stored yet at /x: start iapdesk listen.")
    }

    @Test func theDefaultPathFollowsXDG() {
        #expect(SQLiteNotificationStore.defaultPath(environment: ["HOME": "/home/a"]) == "/home/a/.local/share/iapdesk/notifications.sqlite")
        #expect(SQLiteNotificationStore.defaultPath(environment: ["HOME": "/home/a", "XDG_DATA_HOME": "/data"]) == "/data/iapdesk/notifications.sqlite")
        #expect(SQLiteNotificationStore.defaultPath(environment: ["HOME": "/home/a", "XDG_DATA_HOME": "relative"]) == "/home/a/.local/share/iapdesk/notifications.sqlite")
        #expect(SQLiteNotificationStore.defaultPath(environment: ["HOME": "/home/a", "IAPDESK_STORE_PATH": "/tmp/s.sqlite"]) == "/tmp/s.sqlite")
    }
}

/// The migration that added the replays table to the SQLite file.
@Suite struct StoreReconcileLookupTests {
    func delivery(_ uuid: String, signed: Date?) -> NotificationDelivery { StoreContractTests().signed(uuid, signed: signed) }

    @Test func aVersion1FileIsMigratedKeepingItsNotifications() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let old = try await SQLiteNotificationStore.open(path: folder.storePath, schemaVersion: 1)
        #expect(try await old.userVersion() == 1)
        _ = try await old.record(delivery("kept", signed: Date()))
        try await old.close()
        let store = try await SQLiteNotificationStore.open(path: folder.storePath, create: false)
        #expect(try await store.userVersion() == SQLiteNotificationStore.schemaVersion)
        #expect(SQLiteNotificationStore.schemaVersion >= 2)
        #expect(try await store.notifications(uuids: ["kept"]).count == 1)
        _ = try await store.recordReplay(ReplayAttempt(
            notificationUUID: "kept", targetURL: "http://x", source: .store, command: "replay", sentAt: Date(), result: "HTTP 200", status: 200, milliseconds: 1))
        #expect(try await store.replays(uuids: ["kept"]).count == 1)
        try await store.close()
    }
}
