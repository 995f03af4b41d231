import DeskStore
import Foundation
import PostgresStore
import Testing

/// The bounded quarantine, the same on both stores.
extension StoreContractTests {
    func refused(_ text: String, reason: String = "not-json", at date: Date = Date()) -> HashedRefusal {
        refused(Data(text.utf8), reason: reason, at: date)
    }

    func refused(_ body: Data, reason: String = "not-json", at date: Date = Date()) -> HashedRefusal {
        var entry = RefusedDelivery(reason: reason, detail: "refused: \(reason)", body: body, bodySize: body.count, truncated: false, receivedAt: date)
        entry.remoteAddress = "192.0.2.1:5000"
        // Any text identifies a body here; the receiver gives its SHA-256.
        return HashedRefusal(entry, bodyHash: "hash-" + body.prefix(32).map { String(format: "%02x", $0) }.joined() + "-\(body.count)")
    }

    func bounded(_ store: any NotificationStore) throws -> any BoundedQuarantine {
        try #require(store as? any BoundedQuarantine)
    }

    @Test(arguments: StoreKind.allCases) func identicalRefusedBodiesAreKeptOnceWithACount(kind: StoreKind) async throws {
        try await kind.fixture().with { store in
            let quarantine = try bounded(store)
            let first = Date(timeIntervalSince1970: 1_700_000_000)
            let written = try await quarantine.quarantine(
                [refused("same", at: first), refused("other"), refused("same", reason: "invalid-signature", at: first.addingTimeInterval(5))],
                within: QuarantineLimits())
            #expect(written.kept.map(\.count) == [1, 1, 2])
            #expect(written.kept[0].id == written.kept[2].id)
            #expect(written.dropped == 0)
            let again = try await quarantine.quarantine([refused("same")], within: QuarantineLimits())
            #expect(again.kept.map(\.count) == [3])
            let kept = try await store.quarantined(QuarantineFilter())
            #expect(kept.map { String(decoding: $0.body, as: UTF8.self) } == ["same", "other"])
            #expect(kept.map(\.count) == [3, 1])
            #expect(kept[0].receivedAt == first)
            #expect(kept[0].lastReceivedAt ?? first > first)
            #expect(kept[0].bodyHash == "hash-73616d65-4")
            let usage = try await quarantine.quarantineUsage()
            #expect(usage.bodies == 2)
            #expect(usage.bytes == 9)
        }
    }

    @Test(arguments: StoreKind.allCases) func theOldestAreDroppedToStayWithinTheLimits(kind: StoreKind) async throws {
        try await kind.fixture().with { store in
            let quarantine = try bounded(store)
            var limits = QuarantineLimits()
            limits.maxBodies = 3
            var dropped = 0
            for index in 0..<5 { dropped += try await quarantine.quarantine([refused("body \(index)")], within: limits).dropped }
            #expect(dropped == 2)
            #expect(try await store.quarantined(QuarantineFilter()).map { String(decoding: $0.body, as: UTF8.self) } == ["body 2", "body 3", "body 4"])
            limits.maxBodies = 100
            limits.maxBytes = 250
            let hundred = (0..<4).map { refused(Data(repeating: UInt8(ascii: "a") + UInt8($0), count: 100)) }
            let written = try await quarantine.quarantine(hundred, within: limits)
            // 3 × 6 bytes and 4 × 100 bytes are more than 250: the newest two hundreds stay.
            #expect(written.dropped == 5)
            let usage = try await quarantine.quarantineUsage()
            #expect(usage.bodies == 2)
            #expect(usage.bytes == 200)
            #expect(try await store.quarantined(QuarantineFilter()).map(\.body) == Array(hundred.suffix(2).map(\.refused.body)))
        }
    }

    @Test(arguments: StoreKind.allCases) func aLargeRefusedBodyIsKeptAsItsHashSizeAndPrefix(kind: StoreKind) async throws {
        try await kind.fixture().with { store in
            var limits = QuarantineLimits()
            limits.wholeBodyLimit = 1000
            limits.prefixBytes = 100
            let body = Data((0..<5000).map { UInt8($0 % 251) })
            _ = try await bounded(store).quarantine([refused(body), refused(Data(repeating: 1, count: 1000))], within: limits)
            let kept = try await store.quarantined(QuarantineFilter())
            #expect(kept.map(\.body.count) == [100, 1000])
            #expect(kept[0].body == body.prefix(100))
            #expect(kept[0].bodySize == 5000)
            #expect(kept[0].truncated)
            #expect(kept[0].bodyHash != nil)
            #expect(kept[1].truncated == false)
            #expect(try await bounded(store).quarantineUsage().bytes == 1100)
        }
    }

    @Test(arguments: StoreKind.allCases) func bodiesQuarantinedBeforeTheLimitsAreCountedInThem(kind: StoreKind) async throws {
        let fixture = try await kind.fixture()
        let older: any NotificationStore
        switch kind {
        case .sqlite:
            older = try await SQLiteNotificationStore.open(path: try #require(fixture.path), schemaVersion: 4)
        case .postgres:
            older = try await PostgresNotificationStore.open(try #require(fixture.address), schemaVersion: 4)
        }
        try await older.quarantine(RefusedDelivery(reason: "not-json", detail: "x", body: Data("old one".utf8), bodySize: 7, truncated: false, receivedAt: Date()))
        try await older.quarantine(RefusedDelivery(reason: "not-json", detail: "x", body: Data("old two".utf8), bodySize: 7, truncated: false, receivedAt: Date()))
        try await older.close()
        try await fixture.with { store in
            let quarantine = try bounded(store)
            let usage = try await quarantine.quarantineUsage()
            #expect(usage.bodies == 2)
            #expect(usage.bytes == 14)
            var limits = QuarantineLimits()
            limits.maxBodies = 2
            #expect(try await quarantine.quarantine([refused("new")], within: limits).dropped == 1)
            #expect(try await store.quarantined(QuarantineFilter()).map(\.count) == [1, 1])
            #expect(try await store.quarantined(QuarantineFilter()).map { String(decoding: $0.body, as: UTF8.self) } == ["old two", "new"])
        }
    }
}
