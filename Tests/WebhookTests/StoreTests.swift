import Foundation
import Testing
import WebhookStore

@Suite struct StoreTests {
    func delivery(_ uuid: String, type: String = "DID_RENEW", transaction: String? = nil, at date: Date = Date()) -> NotificationDelivery {
        var delivery = NotificationDelivery(
            notificationUUID: uuid, rawBody: Data(#"{"signedPayload":"\#(uuid)"}"#.utf8), verdict: "verified", receivedAt: date,
            elapsedMilliseconds: 2.5)
        delivery.notificationType = type
        delivery.transactionId = transaction
        delivery.originalTransactionId = transaction.map { "orig-" + $0 }
        delivery.remoteAddress = "127.0.0.1:5000"
        return delivery
    }

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

    @Test func concurrentUpsertsFromTwoConnectionsStoreOnce() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let first = try await SQLiteNotificationStore.open(path: folder.storePath)
        let second = try await SQLiteNotificationStore.open(path: folder.storePath)
        let uuids = (0..<10).map { "uuid-\($0)" }
        let outcomes = try await withThrowingTaskGroup(of: RecordOutcome.self) { group in
            for uuid in uuids {
                for store in [first, second, first, second] {
                    group.addTask { try await store.record(delivery(uuid)) }
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(outcomes.count == 40)
        #expect(outcomes.filter { !$0.isDuplicate }.count == 10)
        let rows = try await first.notifications(NotificationFilter())
        #expect(Set(rows.map(\.notificationUUID)) == Set(uuids))
        #expect(rows.count == 10)
        #expect(rows.allSatisfy { $0.deliveryCount == 4 })
        for row in rows {
            #expect(try await second.deliveries(ofNotification: row.id).count == 4)
        }
        try await first.close()
        try await second.close()
    }

    @Test func aCustomersArrivalsAreCountedOnceWhateverIDTheyCarry() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let store = try await SQLiteNotificationStore.open(path: folder.storePath)
        // delivery(_:transaction:) sets the original transaction ID to "orig-" + the transaction ID.
        _ = try await store.record(delivery("c-1", transaction: "t1"))
        _ = try await store.record(delivery("c-2", transaction: "t2"))
        _ = try await store.record(delivery("c-2", transaction: "t2"))
        _ = try await store.record(delivery("c-3", transaction: "t3"))
        _ = try await store.record(delivery("c-4"))
        #expect(try await store.count(concerning: ["t1", "orig-t2"]) == 2)
        // A notification that matches by both of its IDs counts once.
        #expect(try await store.count(concerning: ["t1", "orig-t1"]) == 1)
        #expect(try await store.count(concerning: Set((0..<1_200).map { "t\($0)" })) == 3)
        #expect(try await store.count(concerning: []) == 0)
        try await store.close()
    }

    @Test func filtersSelectWhatIsListed() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let store = try await SQLiteNotificationStore.open(path: folder.storePath)
        let now = Date()
        _ = try await store.record(delivery("old", type: "TEST", at: now.addingTimeInterval(-7_200)))
        _ = try await store.record(delivery("renew", type: "DID_RENEW", transaction: "111", at: now.addingTimeInterval(-60)))
        _ = try await store.record(delivery("refund", type: "REFUND", transaction: "222", at: now.addingTimeInterval(-30)))
        #expect(try await store.notifications(NotificationFilter()).map(\.notificationUUID) == ["old", "renew", "refund"])
        #expect(try await store.notifications(NotificationFilter(since: now.addingTimeInterval(-3_600))).map(\.notificationUUID) == ["renew", "refund"])
        #expect(try await store.notifications(NotificationFilter(type: "REFUND")).map(\.notificationUUID) == ["refund"])
        #expect(try await store.notifications(NotificationFilter(transactionId: "111")).map(\.notificationUUID) == ["renew"])
        #expect(try await store.notifications(NotificationFilter(transactionId: "orig-222")).map(\.notificationUUID) == ["refund"])
        #expect(try await store.notifications(NotificationFilter(limit: 2)).map(\.notificationUUID) == ["renew", "refund"])
        // A cursor past the newest delivery: a redelivery of an old one shows again, with its count.
        let cursor = try #require(try await store.notifications(NotificationFilter()).last?.lastDeliveryId)
        #expect(try await store.notifications(NotificationFilter(afterDelivery: cursor)).isEmpty)
        _ = try await store.record(delivery("old", type: "TEST"))
        let redelivered = try await store.notifications(NotificationFilter(afterDelivery: cursor))
        #expect(redelivered.map(\.notificationUUID) == ["old"])
        #expect(redelivered.first?.deliveryCount == 2)
        try await store.close()
    }

    @Test func quarantineKeepsBodiesAndReasons() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let store = try await SQLiteNotificationStore.open(path: folder.storePath)
        let first = try await store.quarantine(RefusedDelivery(reason: "not-json", detail: "The body is not JSON.", body: Data([0xff, 0x00]), bodySize: 2, truncated: false, receivedAt: Date()))
        let second = try await store.quarantine(RefusedDelivery(reason: "too-large", detail: "big", body: Data("xx".utf8), bodySize: 5_000_000, truncated: true, receivedAt: Date()))
        let all = try await store.quarantined(QuarantineFilter())
        #expect(all.map(\.id) == [first, second])
        #expect(all.first?.body == Data([0xff, 0x00]))
        #expect(all.last?.bodySize == 5_000_000)
        #expect(all.last?.truncated == true)
        #expect(try await store.quarantined(QuarantineFilter(afterId: first)).map(\.reason) == ["too-large"])
        try await store.close()
    }
}

/// The lookups `reconcile` joins with, the replays table, and the migration that added it.
@Suite struct StoreReconcileLookupTests {
    func delivery(_ uuid: String, signed: Date?, received: Date = Date()) -> NotificationDelivery {
        var delivery = NotificationDelivery(notificationUUID: uuid, rawBody: Data(#"{"signedPayload":"\#(uuid)"}"#.utf8), verdict: "verified", receivedAt: received)
        delivery.signedDate = signed
        return delivery
    }

    @Test func lookupByUUIDsFindsOnlyThoseStored() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let store = try await SQLiteNotificationStore.open(path: folder.storePath)
        let uuids = (0..<1_203).map { "uuid-\($0)" }
        for uuid in uuids where uuid.hasSuffix("7") { _ = try await store.record(delivery(uuid, signed: Date())) }
        let found = try await store.notifications(uuids: Set(uuids + ["not-stored"]))
        // More than one chunk of bound values, and each stored one once.
        #expect(found.map(\.notificationUUID).sorted() == uuids.filter { $0.hasSuffix("7") }.sorted())
        #expect(try await store.notifications(uuids: []).isEmpty)
        try await store.close()
    }

    @Test func theWindowIsBySignedDateElseFirstArrival() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let store = try await SQLiteNotificationStore.open(path: folder.storePath)
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        let window = now.addingTimeInterval(-7 * 86_400)..<now
        // Signed before the window, arrived inside it (a late retry): outside, as in Apple's history.
        _ = try await store.record(delivery("old-signed-late-arrival", signed: now.addingTimeInterval(-8 * 86_400), received: now.addingTimeInterval(-60)))
        _ = try await store.record(delivery("inside", signed: now.addingTimeInterval(-86_400), received: now.addingTimeInterval(-86_000)))
        _ = try await store.record(delivery("at-start", signed: window.lowerBound, received: now.addingTimeInterval(-86_000)))
        _ = try await store.record(delivery("at-end", signed: window.upperBound, received: now))
        _ = try await store.record(delivery("unsigned-inside", signed: nil, received: now.addingTimeInterval(-3_600)))
        _ = try await store.record(delivery("unsigned-outside", signed: nil, received: now.addingTimeInterval(-9 * 86_400)))
        let found = try await store.notifications(signedIn: window).map(\.notificationUUID)
        #expect(found == ["at-start", "inside", "unsigned-inside"])
        try await store.close()
    }

    @Test func replaysAreRecordedPerNotification() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let store = try await SQLiteNotificationStore.open(path: folder.storePath)
        let sent = Date(timeIntervalSince1970: 1_800_000_000.123)
        let first = ReplayAttempt(
            notificationUUID: "a", targetURL: "http://127.0.0.1:9/hook", source: .appleHistory, command: "recover", sentAt: sent,
            result: "not delivered: cannot connect", status: nil, milliseconds: 1.5)
        var second = first
        second.source = .store
        second.command = "replay"
        second.result = "HTTP 200"
        second.status = 200
        let firstId = try await store.recordReplay(first)
        let secondId = try await store.recordReplay(second)
        _ = try await store.recordReplay(ReplayAttempt(
            notificationUUID: "b", targetURL: "http://x", source: .store, command: "replay", sentAt: sent, result: "HTTP 500", status: 500, milliseconds: 3))
        let replays = try await store.replays(uuids: ["a"])
        #expect(replays.map(\.id) == [firstId, secondId])
        #expect(replays.map(\.attempt) == [first, second])
        #expect(replays.map(\.attempt.succeeded) == [false, true])
        #expect(try await store.replays(uuids: ["b", "c"]).map(\.attempt.status) == [500])
        try await store.close()
    }

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
