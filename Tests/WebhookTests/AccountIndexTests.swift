import DeskStore
import Foundation
import Testing

/// The account index: the same on the SQLite file and on a team's server.
@Suite struct AccountIndexTests {
    let token = "7389a31a-fb6d-4569-a2a6-db7d85d84813"

    func arrival(_ uuid: String, original: String, token: String?, app: String?, at time: Date) -> NotificationDelivery {
        var delivery = StoreContractTests().signed(uuid, signed: time.addingTimeInterval(-1), received: time)
        delivery.originalTransactionId = original
        delivery.environment = "Production"
        delivery.appAccountToken = token
        delivery.appTransactionId = app
        return delivery
    }

    @Test(arguments: StoreKind.allCases) func whatListenReceivesAndLookupsSeeIsFoundByEveryAgent(kind: StoreKind) async throws {
        let fixture = try await kind.fixture()
        let receiver = try await fixture.open()
        let agent = try #require(try await fixture.open() as? any AccountIndex)
        let start = Date(timeIntervalSince1970: 1_800_000_000)
        // Delivered twice (Apple retried), and once for another subscription of the same customer.
        _ = try await receiver.record(arrival("n1", original: "2000000000000001", token: token, app: "704000000000001", at: start))
        _ = try await receiver.record(arrival("n1", original: "2000000000000001", token: token, app: "704000000000001", at: start.addingTimeInterval(5)))
        _ = try await receiver.record(arrival("n2", original: "2000000000000009", token: token.uppercased(), app: nil, at: start.addingTimeInterval(60)))
        // No token, or an empty one as Apple sends: nothing to index.
        _ = try await receiver.record(arrival("n3", original: "2000000000000100", token: "", app: nil, at: start))

        let found = try await agent.accountLinks(.appAccountToken, token.uppercased())
        #expect(found.map(\.originalTransactionId) == ["2000000000000009", "2000000000000001"])
        #expect(found.allSatisfy { $0.source == .listen && $0.environment == "Production" && $0.account == token })
        let first = try #require(found.last)
        #expect(first.firstSeen == start)
        #expect(first.lastSeen == start.addingTimeInterval(5))
        #expect(first.signedDate == start.addingTimeInterval(4))
        #expect(try await agent.accountLinks(.appTransactionId, "704000000000001").map(\.originalTransactionId) == ["2000000000000001"])

        // A later lookup moves the sighting forward and says where; an older one changes nothing of it.
        let later = start.addingTimeInterval(3600)
        try await agent.recordAccountLinks(AccountLink.links(
            appAccountToken: token, appTransactionId: nil, originalTransactionId: "2000000000000001", environment: "Production", source: .lookup,
            seen: later, signedDate: later))
        try await agent.recordAccountLinks(AccountLink.links(
            appAccountToken: token, appTransactionId: nil, originalTransactionId: "2000000000000001", environment: "Production", source: .store,
            seen: start.addingTimeInterval(-100), signedDate: start.addingTimeInterval(-100)))
        let moved = try await agent.accountLinks(.appAccountToken, token)
        #expect(moved.first?.originalTransactionId == "2000000000000001")
        #expect(moved.first?.source == .lookup)
        #expect(moved.first?.lastSeen == later)
        #expect(moved.first?.firstSeen == start.addingTimeInterval(-100))
        #expect(moved.first?.signedDate == later)

        #expect(try await agent.accountLinks(.appAccountToken, "00000000-0000-4000-8000-000000000000").isEmpty)
        let sizes = try await agent.accountIndexSize()
        #expect(sizes[.appAccountToken] == 1)
        #expect(sizes[.appTransactionId] == 1)
        try await receiver.close()
        try await (agent as? any NotificationStore)?.close()
        await fixture.cleanup()
    }

    @Test func aVersion5FileGetsAnEmptyIndexAndKeepsItsNotifications() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let old = try await SQLiteNotificationStore.open(path: folder.storePath, schemaVersion: 5)
        _ = try await old.record(arrival("old", original: "2000000000000001", token: nil, app: nil, at: Date()))
        try await old.close()
        let store = try await SQLiteNotificationStore.open(path: folder.storePath, create: false)
        #expect(try await store.userVersion() == SQLiteNotificationStore.schemaVersion)
        #expect(try await store.notifications(uuids: ["old"]).count == 1)
        #expect(try await store.accountLinks(.appAccountToken, token).isEmpty)
        _ = try await store.record(arrival("new", original: "2000000000000002", token: token, app: nil, at: Date()))
        #expect(try await store.accountLinks(.appAccountToken, token).map(\.originalTransactionId) == ["2000000000000002"])
        try await store.close()
    }

    @Test func linksAreMergedByAccountTransactionAndEnvironment() throws {
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        let a = AccountLink.links(
            appAccountToken: token.uppercased(), appTransactionId: "704", originalTransactionId: "1", environment: "Sandbox", source: .store, seen: now,
            signedDate: nil)
        let b = AccountLink.links(
            appAccountToken: token, appTransactionId: "not digits", originalTransactionId: "1", environment: "Sandbox", source: .lookup,
            seen: now.addingTimeInterval(9), signedDate: now)
        #expect(a.count == 2)
        #expect(b.count == 1)
        let merged = AccountLink.merged(a + b)
        #expect(merged.count == 2)
        let tokenLink = try #require(merged.first { $0.kind == .appAccountToken })
        #expect(tokenLink.source == .lookup)
        #expect(tokenLink.firstSeen == now)
        #expect(tokenLink.lastSeen == now.addingTimeInterval(9))
        #expect(AccountLink.links(appAccountToken: token, appTransactionId: nil, originalTransactionId: nil, environment: nil, source: .listen, seen: now, signedDate: nil).isEmpty)
    }
}
