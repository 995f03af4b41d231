import DeskStore
import Foundation
import Testing

/// The consumption policy's overrides and claims: the same on the SQLite file and on a team's server.
@Suite struct RefundPolicyStoreTests {
    @Test(arguments: StoreKind.allCases) func overridesKeepEveryChangeAndTheLatestApplies(kind: StoreKind) async throws {
        let fixture = try await kind.fixture()
        let sam = try #require(try await fixture.open() as? any RefundPolicyStore & NotificationStore)
        let kim = try #require(try await fixture.open() as? any RefundPolicyStore & NotificationStore)
        let time = Date(timeIntervalSince1970: 1_800_000_000.25)
        try await sam.recordRefundOverride(RefundOverride(
            kind: .originalTransactionId, account: "2000000400002107", refundPreference: "grant-full", note: "outage on the 3rd", agent: "sam", time: time))
        try await kim.recordRefundOverride(RefundOverride(
            kind: .appAccountToken, account: "D2BCD010-7AA6-4831-9EBE-EDF71FA3146B", refundPreference: "decline", note: nil, agent: "kim", time: time.addingTimeInterval(1)))
        try await kim.recordRefundOverride(RefundOverride(
            kind: .originalTransactionId, account: "2000000400002107", refundPreference: nil, note: "resolved", agent: "kim", time: time.addingTimeInterval(2)))
        let changes = try await sam.refundOverrideChanges()
        #expect(changes.map(\.agent) == ["sam", "kim", "kim"])
        #expect(changes.first?.time == time)
        #expect(changes.first?.note == "outage on the 3rd")
        // The token is kept in lower case; the removal leaves only the token's override in force.
        let current = RefundOverride.current(changes)
        #expect(current.map(\.account) == ["d2bcd010-7aa6-4831-9ebe-edf71fa3146b"])
        #expect(current.first?.refundPreference == "decline")
        for store in [sam, kim] { try await store.close() }
        await fixture.cleanup()
    }

    @Test(arguments: StoreKind.allCases) func aClaimIsWonOnceHeldUntilItsTimeAndTakenOverAfter(kind: StoreKind) async throws {
        let fixture = try await kind.fixture()
        let first = try #require(try await fixture.open() as? any RefundPolicyStore & NotificationStore)
        let second = try #require(try await fixture.open() as? any RefundPolicyStore & NotificationStore)
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        let uuid = "6f1b3c2e-0000-4000-8000-000000000001"
        // Two receivers at once: one wins.
        async let a = first.claimPolicyAnswer(uuid, claimant: "a", now: now, until: now.addingTimeInterval(120), replacing: nil)
        async let b = second.claimPolicyAnswer(uuid, claimant: "b", now: now, until: now.addingTimeInterval(120), replacing: nil)
        let results = try await [a, b]
        let won = results.compactMap { result -> String? in if case .claimed(let claim, _) = result { claim.claimant } else { nil } }
        #expect(won.count == 1)
        let winner = try #require(won.first)
        let loser = winner == "a" ? "b" : "a"
        let loserStore = winner == "a" ? second : first
        // Held while its time runs; a holder that stopped may be replaced by name.
        guard case .held(let held) = try await loserStore.claimPolicyAnswer(uuid, claimant: loser, now: now.addingTimeInterval(60), until: now.addingTimeInterval(180), replacing: nil) else {
            Issue.record("expected the claim to be held")
            return
        }
        #expect(held.claimant == winner)
        // Past its time, the other takes it over; the first can no longer move it on.
        let later = now.addingTimeInterval(121)
        guard case .claimed(_, let previous) = try await loserStore.claimPolicyAnswer(uuid, claimant: loser, now: later, until: later.addingTimeInterval(120), replacing: nil) else {
            Issue.record("expected the claim to be taken over")
            return
        }
        #expect(previous == winner)
        #expect(try await (winner == "a" ? first : second).updatePolicyClaim(uuid, claimant: winner, state: .answered, detail: nil, until: later, now: later) == false)
        #expect(try await loserStore.updatePolicyClaim(uuid, claimant: loser, state: .answered, detail: "answered: delivered", until: later, now: later))
        // Settled: a later claim says how it ended.
        guard case .settled(let settled) = try await first.claimPolicyAnswer(uuid, claimant: "c", now: later, until: later.addingTimeInterval(120), replacing: nil) else {
            Issue.record("expected the claim to be settled")
            return
        }
        #expect(settled.state == .answered)
        #expect(settled.detail == "answered: delivered")
        #expect(try await second.policyClaims([uuid, "other"]).map(\.claimant) == [loser])
        for store in [first, second] { try await store.close() }
        await fixture.cleanup()
    }

    @Test(arguments: StoreKind.allCases) func aHolderKnownToHaveStoppedIsReplacedAtOnce(kind: StoreKind) async throws {
        try await kind.fixture().with { store in
            let store = try #require(store as? any RefundPolicyStore)
            let now = Date(timeIntervalSince1970: 1_800_000_000)
            _ = try await store.claimPolicyAnswer("u", claimant: "stopped", now: now, until: now.addingTimeInterval(600), replacing: nil)
            guard case .claimed(_, let previous) = try await store.claimPolicyAnswer("u", claimant: "new", now: now, until: now.addingTimeInterval(600), replacing: "stopped") else {
                Issue.record("expected the stopped holder to be replaced")
                return
            }
            #expect(previous == "stopped")
        }
    }
}
