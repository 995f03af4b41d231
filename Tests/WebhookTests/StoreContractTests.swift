import DeskStore
import Foundation
import PostgresStore
import Synchronization
import Testing

/// The two implementations of the store, each test run on both.
enum StoreKind: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case sqlite
    case postgres

    var testDescription: String { rawValue }

    /// An empty store of this kind; `open` gives one more connection to it (another process's).
    func fixture() async throws -> StoreFixture {
        switch self {
        case .sqlite:
            let folder = try TemporaryFolder()
            let path = folder.storePath
            return StoreFixture(open: { try await SQLiteNotificationStore.open(path: path) }, cleanup: { folder.remove() }, path: path)
        case .postgres:
            let database = try await TestPostgres.database()
            return StoreFixture(
                open: { try await PostgresNotificationStore.open(database.address) }, cleanup: { await database.drop() },
                address: database.address)
        }
    }
}

struct StoreFixture: Sendable {
    let open: @Sendable () async throws -> any NotificationStore
    let cleanup: @Sendable () async -> Void
    /// Where the store is, for a test that opens it another way (an older schema).
    var path: String?
    var address: PostgresAddress?

    /// Runs `body` with one open store, closing it and removing the store however `body` ends.
    func with(_ body: (any NotificationStore) async throws -> Void) async throws {
        let store = try await open()
        do {
            try await body(store)
            try await store.close()
            await cleanup()
        } catch {
            try? await store.close()
            await cleanup()
            throw error
        }
    }
}

/// What every store must do, whoever implements it: the SQLite file and the PostgreSQL server.
@Suite struct StoreContractTests {
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

    func signed(_ uuid: String, signed: Date?, received: Date = Date()) -> NotificationDelivery {
        var delivery = NotificationDelivery(notificationUUID: uuid, rawBody: Data(#"{"signedPayload":"\#(uuid)"}"#.utf8), verdict: "verified", receivedAt: received)
        delivery.signedDate = signed
        return delivery
    }

    @Test(arguments: StoreKind.allCases) func everyFieldComesBackAsRecorded(kind: StoreKind) async throws {
        try await kind.fixture().with { store in
            var sent = delivery("fields", type: "SUBSCRIBED", transaction: "2000000000000042", at: Date(timeIntervalSince1970: 1_800_000_000.123))
            sent.subtype = "INITIAL_BUY"
            sent.environment = "Sandbox"
            sent.bundleId = "com.example.app"
            sent.appAppleId = 1_234_567_890
            sent.productId = "pro.monthly"
            sent.signedDate = Date(timeIntervalSince1970: 1_799_999_999.456)
            sent.verdictDetail = "chain, bundle ID, environment"
            sent.decodedPayload = Data(#"{"notificationType":"SUBSCRIBED","é":"✓"}"#.utf8)
            sent.rawBody = Data([0x7b, 0x00, 0xff, 0x7d])
            let outcome = try await store.record(sent)
            #expect(outcome.deliveryCount == 1)
            let stored = try #require(try await store.notifications(NotificationFilter()).first)
            #expect(stored.notificationUUID == "fields")
            #expect(stored.notificationType == "SUBSCRIBED")
            #expect(stored.subtype == "INITIAL_BUY")
            #expect(stored.environment == "Sandbox")
            #expect(stored.bundleId == "com.example.app")
            #expect(stored.appAppleId == 1_234_567_890)
            #expect(stored.transactionId == "2000000000000042")
            #expect(stored.originalTransactionId == "orig-2000000000000042")
            #expect(stored.productId == "pro.monthly")
            #expect(stored.signedDate == Date(timeIntervalSince1970: 1_799_999_999.456))
            #expect(stored.firstReceivedAt == Date(timeIntervalSince1970: 1_800_000_000.123))
            #expect(stored.verdict == "verified")
            #expect(stored.verdictDetail == "chain, bundle ID, environment")
            #expect(stored.decodedPayload == sent.decodedPayload)
            #expect(stored.rawBody == Data([0x7b, 0x00, 0xff, 0x7d]))
            #expect(stored.remoteAddress == "127.0.0.1:5000")
            #expect(stored.answeredStatus == 200)
            #expect(stored.elapsedMilliseconds == 2.5)
            #expect(stored.id == outcome.id)
            #expect(stored.lastDeliveryId == outcome.deliveryId)
            // A forward after the write: the notification and its delivery show it.
            try await store.recordForward(
                ForwardOutcome(result: "HTTP 503", status: 503, milliseconds: 12.5, answeredStatus: 503, elapsedMilliseconds: 15), delivery: outcome.deliveryId)
            let forwarded = try #require(try await store.notifications(uuids: ["fields"]).first)
            #expect(forwarded.forwardResult == "HTTP 503")
            #expect(forwarded.forwardStatus == 503)
            #expect(forwarded.answeredStatus == 503)
            let deliveries = try await store.deliveries(ofNotification: outcome.id)
            #expect(deliveries.count == 1)
            #expect(deliveries.first?.forwardMilliseconds == 12.5)
            #expect(deliveries.first?.receivedAt == Date(timeIntervalSince1970: 1_800_000_000.123))
        }
    }

    @Test(arguments: StoreKind.allCases) func concurrentUpsertsFromThreeConnectionsStoreOnce(kind: StoreKind) async throws {
        let fixture = try await kind.fixture()
        let stores = [try await fixture.open(), try await fixture.open(), try await fixture.open()]
        let uuids = (0..<20).map { "uuid-\($0)" }
        // Every notification delivered four times, by three receivers, in no particular order.
        let outcomes = try await withThrowingTaskGroup(of: RecordOutcome.self) { group in
            for uuid in uuids.shuffled() {
                for store in [stores[0], stores[1], stores[2], stores.randomElement()!] {
                    group.addTask { try await store.record(delivery(uuid)) }
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(outcomes.count == 80)
        #expect(outcomes.filter { !$0.isDuplicate }.count == 20)
        #expect(Set(outcomes.map(\.deliveryCount)) == [1, 2, 3, 4])
        let rows = try await stores[0].notifications(NotificationFilter())
        #expect(Set(rows.map(\.notificationUUID)) == Set(uuids))
        #expect(rows.count == 20)
        #expect(rows.allSatisfy { $0.deliveryCount == 4 })
        for row in rows {
            #expect(try await stores[1].deliveries(ofNotification: row.id).count == 4)
        }
        for store in stores { try await store.close() }
        await fixture.cleanup()
    }

    /// The Live pane and `received --follow` move a cursor along delivery IDs: with several writers
    /// at once, a reader that polls meanwhile must still see every notification.
    @Test(arguments: StoreKind.allCases) func aCursorMovedWhileOthersWriteMissesNothing(kind: StoreKind) async throws {
        let fixture = try await kind.fixture()
        let writers = [try await fixture.open(), try await fixture.open(), try await fixture.open()]
        let reader = try await fixture.open()
        let uuids = (0..<150).map { "follow-\($0)" }
        let done = Mutex(false)
        // The writers go in waves, each started only once the reader has polled since the last one
        // began: the reads fall between and during the writes however fast the store is.
        let polled = Mutex(0)
        let waves = 5
        let writing = Task {
            // Done however it ends, so that the reader below stops.
            defer { done.withLock { $0 = true } }
            for wave in 0..<waves {
                let start = polled.withLock { $0 }
                while polled.withLock({ $0 }) == start { try await Task.sleep(for: .milliseconds(1)) }
                try await withThrowingTaskGroup(of: Void.self) { group in
                    for (index, uuid) in uuids.enumerated() where index % waves == wave {
                        let store = writers[index % writers.count]
                        group.addTask { _ = try await store.record(delivery(uuid)) }
                    }
                    try await group.waitForAll()
                }
            }
        }
        var seen: Set<String> = []
        var cursor: Int64 = 0
        var polls = 0
        while true {
            // Read before polling: when it says done, this poll comes after every commit and decides.
            let last = done.withLock { $0 }
            let batch = try await reader.notifications(NotificationFilter(afterDelivery: cursor))
            polls += 1
            polled.withLock { $0 += 1 }
            for row in batch {
                seen.insert(row.notificationUUID)
                cursor = max(cursor, row.lastDeliveryId)
            }
            if last { break }
            if batch.isEmpty { try await Task.sleep(for: .milliseconds(1)) }
        }
        try await writing.value
        #expect(polls > waves)
        #expect(seen == Set(uuids))
        for store in writers + [reader] { try await store.close() }
        await fixture.cleanup()
    }

    @Test(arguments: StoreKind.allCases) func aCustomersArrivalsAreCountedOnceWhateverIDTheyCarry(kind: StoreKind) async throws {
        try await kind.fixture().with { store in
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
        }
    }

    @Test(arguments: StoreKind.allCases) func filtersSelectWhatIsListed(kind: StoreKind) async throws {
        try await kind.fixture().with { store in
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
            #expect(try await store.notifications(NotificationFilter(type: "TEST", limit: 1)).map(\.notificationUUID) == ["old"])
            // A cursor past the newest delivery: a redelivery of an old one shows again, with its count.
            let cursor = try #require(try await store.notifications(NotificationFilter()).last?.lastDeliveryId)
            #expect(try await store.notifications(NotificationFilter(afterDelivery: cursor)).isEmpty)
            _ = try await store.record(delivery("old", type: "TEST"))
            let redelivered = try await store.notifications(NotificationFilter(afterDelivery: cursor))
            #expect(redelivered.map(\.notificationUUID) == ["old"])
            #expect(redelivered.first?.deliveryCount == 2)
        }
    }

    @Test(arguments: StoreKind.allCases) func quarantineKeepsBodiesAndReasons(kind: StoreKind) async throws {
        try await kind.fixture().with { store in
            let first = try await store.quarantine(RefusedDelivery(reason: "not-json", detail: "The body is not JSON.", body: Data([0xff, 0x00]), bodySize: 2, truncated: false, receivedAt: Date()))
            let second = try await store.quarantine(RefusedDelivery(reason: "too-large", detail: "big", body: Data("xx".utf8), bodySize: 5_000_000, truncated: true, receivedAt: Date()))
            let all = try await store.quarantined(QuarantineFilter())
            #expect(all.map(\.id) == [first, second])
            #expect(all.first?.body == Data([0xff, 0x00]))
            #expect(all.first?.truncated == false)
            #expect(all.last?.bodySize == 5_000_000)
            #expect(all.last?.truncated == true)
            #expect(try await store.quarantined(QuarantineFilter(afterId: first)).map(\.reason) == ["too-large"])
            #expect(try await store.quarantined(QuarantineFilter(limit: 1)).map(\.reason) == ["too-large"])
        }
    }

    @Test(arguments: StoreKind.allCases) func lookupByUUIDsFindsOnlyThoseStored(kind: StoreKind) async throws {
        try await kind.fixture().with { store in
            let uuids = (0..<1_203).map { "uuid-\($0)" }
            for uuid in uuids where uuid.hasSuffix("7") { _ = try await store.record(signed(uuid, signed: Date())) }
            let found = try await store.notifications(uuids: Set(uuids + ["not-stored"]))
            // More than one chunk of bound values (SQLite), and each stored one once.
            #expect(found.map(\.notificationUUID).sorted() == uuids.filter { $0.hasSuffix("7") }.sorted())
            #expect(try await store.notifications(uuids: []).isEmpty)
        }
    }

    @Test(arguments: StoreKind.allCases) func theWindowIsBySignedDateElseFirstArrival(kind: StoreKind) async throws {
        try await kind.fixture().with { store in
            let now = Date(timeIntervalSince1970: 1_800_000_000)
            let window = now.addingTimeInterval(-7 * 86_400)..<now
            // Signed before the window, arrived inside it (a late retry): outside, as in Apple's history.
            _ = try await store.record(signed("old-signed-late-arrival", signed: now.addingTimeInterval(-8 * 86_400), received: now.addingTimeInterval(-60)))
            _ = try await store.record(signed("inside", signed: now.addingTimeInterval(-86_400), received: now.addingTimeInterval(-86_000)))
            _ = try await store.record(signed("at-start", signed: window.lowerBound, received: now.addingTimeInterval(-86_000)))
            _ = try await store.record(signed("at-end", signed: window.upperBound, received: now))
            _ = try await store.record(signed("unsigned-inside", signed: nil, received: now.addingTimeInterval(-3_600)))
            _ = try await store.record(signed("unsigned-outside", signed: nil, received: now.addingTimeInterval(-9 * 86_400)))
            let withBodies = try await store.notifications(signedIn: window)
            #expect(withBodies.map(\.notificationUUID) == ["at-start", "inside", "unsigned-inside"])
            #expect(withBodies.allSatisfy { !$0.rawBody.isEmpty })
            // Without bodies: the same rows and fields, the raw body and decoded payload left out.
            let summaries = try await store.notifications(signedIn: window, bodies: false)
            #expect(summaries.map(\.notificationUUID) == withBodies.map(\.notificationUUID))
            #expect(summaries.allSatisfy { $0.rawBody.isEmpty && $0.decodedPayload == nil })
            var stripped = withBodies
            for index in stripped.indices {
                stripped[index].rawBody = Data()
                stripped[index].decodedPayload = nil
            }
            #expect(summaries == stripped)
        }
    }

    @Test(arguments: StoreKind.allCases) func aListingWithoutBodiesHasTheSameRowsAndFields(kind: StoreKind) async throws {
        try await kind.fixture().with { store in
            for (index, uuid) in ["first", "second", "third"].enumerated() {
                var delivery = signed(uuid, signed: Date(timeIntervalSince1970: 1_800_000_000 + Double(index)))
                delivery.decodedPayload = Data(#"{"notificationUUID":"\#(uuid)"}"#.utf8)
                _ = try await store.record(delivery)
            }
            let full = try await store.notifications(NotificationFilter(limit: 2))
            let light = try await store.notifications(NotificationFilter(limit: 2, bodies: false))
            #expect(full.map(\.notificationUUID) == ["second", "third"])
            #expect(full.allSatisfy { !$0.rawBody.isEmpty && $0.decodedPayload != nil })
            func stripped(_ rows: [StoredNotification]) -> [StoredNotification] {
                rows.map { row in
                    var row = row
                    row.rawBody = Data()
                    row.decodedPayload = nil
                    return row
                }
            }
            #expect(stripped(light) == stripped(full))
            // Both stores leave the bodies out of the read (the Live pane's 2,000 rows).
            #expect(light.allSatisfy { $0.rawBody.isEmpty && $0.decodedPayload == nil })
        }
    }

    @Test(arguments: StoreKind.allCases) func replaysAreRecordedPerNotification(kind: StoreKind) async throws {
        try await kind.fixture().with { store in
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
        }
    }

    @Test(arguments: StoreKind.allCases) func aClosedStoreSaysSo(kind: StoreKind) async throws {
        let fixture = try await kind.fixture()
        let store = try await fixture.open()
        try await store.close()
        await #expect(throws: (any Error).self) { _ = try await store.record(delivery("after-close")) }
        await fixture.cleanup()
    }
}
