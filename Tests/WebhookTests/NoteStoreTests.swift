import DeskStore
import Foundation
import Testing

/// Case notes: the same on the SQLite file and on a team's server.
@Suite struct NoteStoreTests {
    @Test(arguments: StoreKind.allCases) func aNoteIsFoundByAnyIDItWasKeptUnderAndByEveryAgent(kind: StoreKind) async throws {
        let fixture = try await kind.fixture()
        let sam = try #require(try await fixture.open() as? any NoteStore)
        let kim = try #require(try await fixture.open() as? any NoteStore)
        let time = Date(timeIntervalSince1970: 1_800_000_000.25)
        let first = try await sam.addNote("Outage on the 3rd; extended 7 days", agent: "sam", at: time, subjects: ["MK5TTTVWJH", "2000000400000044"])
        _ = try await kim.addNote("Called back: all fine ✓", agent: "kim", at: time.addingTimeInterval(60), subjects: ["2000000400000044"])
        _ = try await kim.addNote("Another customer", agent: "kim", at: time, subjects: ["2000000999999999"])
        #expect(first.agent == "sam")
        let byOrder = try await kim.notes(concerning: ["MK5TTTVWJH"])
        #expect(byOrder.map(\.text) == ["Outage on the 3rd; extended 7 days"])
        #expect(byOrder.first?.time == Date(timeIntervalSince1970: 1_800_000_000.25))
        // Found by both IDs, still once, oldest first.
        let all = try await sam.notes(concerning: ["MK5TTTVWJH", "2000000400000044"])
        #expect(all.map(\.agent) == ["sam", "kim"])
        #expect(all.map(\.text) == ["Outage on the 3rd; extended 7 days", "Called back: all fine ✓"])
        #expect(try await sam.notes(concerning: []).isEmpty)
        #expect(try await sam.notes(concerning: ["nobody"]).isEmpty)
        for store in [sam, kim] { try await (store as? any NotificationStore)?.close() }
        await fixture.cleanup()
    }
}
