import DeskStore
import Foundation
import Testing

/// Watch incidents, the same on both stores.
extension StoreContractTests {
    func incidents(_ store: any NotificationStore) throws -> any IncidentStore {
        try #require(store as? any IncidentStore)
    }

    @Test(arguments: StoreKind.allCases) func anIncidentOpensOncePerKeyUntilItResolves(kind: StoreKind) async throws {
        try await kind.fixture().with { store in
            let kept = try incidents(store)
            let opened = Date(timeIntervalSince1970: 1_800_000_000)
            let new = NewIncident(key: "production/missing-here", kind: "missing-here", summary: "2 missing", details: Data(#"{"count":2}"#.utf8), openedAt: opened)
            let first = try #require(try await kept.openIncident(new))
            #expect(first.key == "production/missing-here" && first.openedAt == opened && first.isOpen)
            #expect(first.unannounced == [.opened])
            // A second watch on the same store finds it open: nothing new.
            #expect(try await kept.openIncident(new) == nil)
            // Another key opens beside it.
            let other = try #require(try await kept.openIncident(NewIncident(
                key: "sandbox/quiet", kind: "quiet", summary: "quiet", details: Data("{}".utf8), openedAt: opened.addingTimeInterval(1))))

            try await kept.updateIncident(id: first.id, summary: "3 missing", details: Data(#"{"count":3}"#.utf8), at: opened.addingTimeInterval(60))
            try await kept.markIncidentAnnounced(id: first.id, .opened, at: opened.addingTimeInterval(61))
            var active = try await kept.activeIncidents()
            #expect(active.map(\.id) == [first.id, other.id])
            #expect(active[0].summary == "3 missing" && active[0].details == Data(#"{"count":3}"#.utf8))
            #expect(active[0].unannounced.isEmpty)

            try await kept.resolveIncident(id: first.id, at: opened.addingTimeInterval(120))
            active = try await kept.activeIncidents()
            // Resolved but its resolution not yet announced: still active.
            #expect(active.first { $0.id == first.id }?.unannounced == [.resolved])
            #expect(active.first { $0.id == first.id }?.resolvedAt == opened.addingTimeInterval(120))
            try await kept.markIncidentAnnounced(id: first.id, .resolved, at: opened.addingTimeInterval(121))
            #expect(try await kept.activeIncidents().map(\.id) == [other.id])

            // The key may open again: a new incident.
            let again = try #require(try await kept.openIncident(NewIncident(
                key: "production/missing-here", kind: "missing-here", summary: "1 missing", details: Data("{}".utf8), openedAt: opened.addingTimeInterval(600))))
            #expect(again.id != first.id)
            let history = try await kept.incidents(since: opened)
            #expect(history.map(\.id) == [first.id, other.id, again.id])
            #expect(history[0].resolveAnnouncedAt == opened.addingTimeInterval(121))
        }
    }

    @Test(arguments: StoreKind.allCases) func twoWatchesOpeningOneKeyAtOnceOpenItOnce(kind: StoreKind) async throws {
        let fixture = try await kind.fixture()
        try await fixture.with { store in
            let second = try await fixture.open()
            let stores = [try incidents(store), try incidents(second)]
            let new = NewIncident(key: "production/forward-failed", kind: "forward-failed", summary: "x", details: Data("{}".utf8), openedAt: Date())
            let opened = try await withThrowingTaskGroup(of: Bool.self) { group in
                for index in 0..<8 { group.addTask { try await stores[index % 2].openIncident(new) != nil } }
                return try await group.reduce(0) { $0 + ($1 ? 1 : 0) }
            }
            try await second.close()
            #expect(opened == 1)
            #expect(try await stores[0].activeIncidents().count == 1)
        }
    }
}
