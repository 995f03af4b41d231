import DeskStore
import Foundation
import Testing

/// Watch incidents and their announcements per channel, the same on both stores.
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
            // A second watch on the same store finds it open: nothing new.
            #expect(try await kept.openIncident(new) == nil)
            let other = try #require(try await kept.openIncident(NewIncident(
                key: "sandbox/quiet", kind: "quiet", summary: "quiet", details: Data("{}".utf8), openedAt: opened.addingTimeInterval(1))))

            try await kept.updateIncident(id: first.id, summary: "3 missing", details: Data(#"{"count":3}"#.utf8), at: opened.addingTimeInterval(60))
            var active = try await kept.activeIncidents(resolvedSince: opened)
            #expect(active.map(\.id) == [first.id, other.id])
            #expect(active[0].summary == "3 missing" && active[0].details == Data(#"{"count":3}"#.utf8))

            try await kept.resolveIncident(id: first.id, at: opened.addingTimeInterval(120))
            active = try await kept.activeIncidents(resolvedSince: opened)
            #expect(active.first { $0.id == first.id }?.resolvedAt == opened.addingTimeInterval(120))
            // Resolved before the date asked: no longer active.
            #expect(try await kept.activeIncidents(resolvedSince: opened.addingTimeInterval(121)).map(\.id) == [other.id])

            // The key may open again: a new incident.
            let again = try #require(try await kept.openIncident(NewIncident(
                key: "production/missing-here", kind: "missing-here", summary: "1 missing", details: Data("{}".utf8), openedAt: opened.addingTimeInterval(600))))
            #expect(again.id != first.id)
            #expect(try await kept.incidents(since: opened).map(\.id) == [first.id, other.id, again.id])
        }
    }

    @Test(arguments: StoreKind.allCases) func eachChannelIsToldOnceAndAFailedSendIsTriedAgain(kind: StoreKind) async throws {
        try await kind.fixture().with { store in
            let kept = try incidents(store)
            let now = Date(timeIntervalSince1970: 1_800_000_000)
            let incident = try #require(try await kept.openIncident(NewIncident(
                key: "production/forward-failed", kind: "forward-failed", summary: "1", details: Data("{}".utf8), openedAt: now)))
            let stale = now.addingTimeInterval(-120)
            // Slack claims the opening; a second watch with the same Slack cannot while it sends.
            #expect(try await kept.claimAnnouncement(incident: incident.id, channel: "slack:a", phase: .opened, at: now, staleBefore: stale))
            #expect(try await kept.claimAnnouncement(incident: incident.id, channel: "slack:a", phase: .opened, at: now, staleBefore: stale) == false)
            // Another channel is its own.
            #expect(try await kept.claimAnnouncement(incident: incident.id, channel: "exec:b", phase: .opened, at: now, staleBefore: stale))
            try await kept.finishAnnouncement(incident: incident.id, channel: "slack:a", phase: .opened, sent: true, at: now)
            // The command failed: its claim is freed and it is tried again.
            try await kept.finishAnnouncement(incident: incident.id, channel: "exec:b", phase: .opened, sent: false, at: now)
            #expect(try await kept.sentAnnouncements(channel: "slack:a", incidents: [incident.id]) == [IncidentAnnouncement(incident: incident.id, phase: .opened)])
            #expect(try await kept.sentAnnouncements(channel: "exec:b", incidents: [incident.id]).isEmpty)
            #expect(try await kept.claimAnnouncement(incident: incident.id, channel: "exec:b", phase: .opened, at: now, staleBefore: stale))
            // Sent is sent for good.
            #expect(try await kept.claimAnnouncement(incident: incident.id, channel: "slack:a", phase: .opened, at: now, staleBefore: now.addingTimeInterval(60)) == false)
            // A watch that stopped while sending leaves a claim that is taken over once stale.
            let later = now.addingTimeInterval(300)
            #expect(try await kept.claimAnnouncement(incident: incident.id, channel: "exec:b", phase: .opened, at: later, staleBefore: later.addingTimeInterval(-120)))
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
            #expect(try await stores[0].activeIncidents(resolvedSince: .distantPast).count == 1)
        }
    }
}
