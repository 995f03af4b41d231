import AppStoreServerAPI
@testable import DeskCore
import Foundation
import Testing

/// What an agent reads about a subscription's earlier extensions before sending another.
@Suite struct RecordedExtensionTests {
    static let path = "/inApps/v1/subscriptions/extend/2000000400000044"

    func account(profile: String, keyId: String, bundleId: String = "com.example.app") -> WriteAccount {
        WriteAccount(profile: profile, environment: .production, baseURL: "https://api.storekit.apple.com", bundleId: bundleId, keyId: keyId)
    }

    func extension_(_ id: String, agent: String, account: WriteAccount, at time: Date, outcome: AuditLedger.OutcomeStatus?, path: String = path) -> [AuditLedger.Entry] {
        let body = #"{"extendByDays":7,"extendReasonCode":3,"requestIdentifier":"\#(id)"}"#
        let intent = AuditLedger.Entry(
            time: time, event: .intent, requestIdentifier: id, write: "extend", method: "PUT", path: path, body: body, account: account,
            subject: "original transaction 2000000400000044", source: .console, agent: agent)
        guard let outcome else { return [intent] }
        var line = intent
        line.event = .outcome
        line.outcome = outcome
        return [intent, line]
    }

    @Test func everyAgentsExtensionOfTheSubscriptionIsListedWithWhoWhenAndWhy() {
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        let mine = account(profile: "support", keyId: "KEYSAM0001")
        let colleague = account(profile: "team", keyId: "KEYKIM0002")
        let entries = extension_("a", agent: "sam", account: mine, at: now.addingTimeInterval(-3 * 86_400), outcome: .applied)
            + extension_("b", agent: "kim", account: colleague, at: now.addingTimeInterval(-3_600), outcome: .unknown)
            + extension_("c", agent: "kim", account: colleague, at: now.addingTimeInterval(-60), outcome: .notSent)
            + extension_("d", agent: "lee", account: account(profile: "x", keyId: "K", bundleId: "com.other.app"), at: now, outcome: .applied)
            + extension_("e", agent: "lee", account: mine, at: now.addingTimeInterval(-400 * 86_400), outcome: .applied)
            + extension_("f", agent: "lee", account: mine, at: now, outcome: .applied, path: "/inApps/v1/subscriptions/extend/2000000999999999")
        let found = RecordedExtension.find(in: WriteRecord.fold(entries), path: Self.path, account: mine, since: now.addingTimeInterval(-365 * 86_400))
        #expect(found.map(\.agent) == ["sam", "kim"])
        #expect(found.first?.line(now: now) == "3 days ago by sam: 7 days, Service issue or outage (applied)")
        #expect(found.last?.applied == false)
        #expect(found.last?.line(now: now).hasPrefix("1 h ago by kim: 7 days, Service issue or outage (may have been applied") == true)
    }

    /// A colleague's extension in flight when the agent looked, answered while the agent's send
    /// waited for the lock: the agent has not seen its outcome and is stopped.
    @Test func aWriteAnsweredAfterTheAgentLookedStopsTheSend() {
        let looked = Date(timeIntervalSince1970: 1_800_000_000)
        let sam = account(profile: "support", keyId: "KEYSAM0001")
        let kim = account(profile: "team", keyId: "KEYKIM0002")
        var inFlight = extension_("kim-1", agent: "kim", account: kim, at: looked.addingTimeInterval(-5), outcome: .applied)
        inFlight[1].time = looked.addingTimeInterval(3)
        let guardOf = SendGuard.sameTarget(path: Self.path, account: sam, seenAt: looked)
        #expect(guardOf.newer(in: WriteRecord.fold(inFlight), than: "sam-1")?.requestIdentifier == "kim-1")
        // Answered before the agent looked: seen, so no reason to stop.
        inFlight[1].time = looked.addingTimeInterval(-2)
        #expect(guardOf.newer(in: WriteRecord.fold(inFlight), than: "sam-1") == nil)
        // Stopped before the network: nothing was sent, nothing to look at.
        let notSent = extension_("kim-2", agent: "kim", account: kim, at: looked.addingTimeInterval(1), outcome: .notSent)
        #expect(guardOf.newer(in: WriteRecord.fold(notSent), than: "sam-1") == nil)
        // Another app's subscription of the same ID path is another thing.
        let other = extension_("lee-1", agent: "lee", account: account(profile: "x", keyId: "K", bundleId: "com.other.app"), at: looked.addingTimeInterval(1), outcome: .applied)
        #expect(guardOf.newer(in: WriteRecord.fold(other), than: "sam-1") == nil)
    }
}
