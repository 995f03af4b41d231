import AppStoreServerAPI
import DeskStore
import Foundation
import NotificationReconcile
import Testing

@Suite struct WatchFindingsTests {
    typealias F = ReconcileFixture

    var report: ReconcileReport { Reconciler.reconcile(history: F.history, stored: F.store, window: F.window) }

    @Test func eachKindOfGapIsOneFindingPerEnvironmentWithItsNotifications() throws {
        let findings = WatchFindings.from(report: report, refused: [], lastArrival: F.at(2), quietAfter: nil, environment: "Production", now: F.now)
        let byKind = Dictionary(uniqueKeysWithValues: findings.map { ($0.kind, $0) })
        // "never" failed at Apple; "pending" has no attempt yet but is an hour old: both failed sends.
        #expect(Set(try #require(byKind[.appleFailedSends]).notificationUUIDs) == ["never", "pending"])
        #expect(byKind[.appleFailedSends]?.key == "production/apple-failed-sends")
        #expect(byKind[.appleFailedSends]?.summary.hasPrefix("Apple could not deliver 2 notifications, and they are not here, the first signed") == true)
        #expect(byKind[.missingHere]?.notificationUUIDs == ["elsewhere"])
        #expect(byKind[.missingHere]?.summary.hasPrefix("Apple delivered 1 notification that never arrived here, signed ") == true)
        #expect(byKind[.unknownToApple]?.notificationUUIDs == ["sandbox-one"])
        #expect(byKind[.unreadableHistory]?.count == 1)
        #expect(byKind[.quiet] == nil && byKind[.refusedBodies] == nil && byKind[.forwardFailed] == nil)
        #expect(findings.allSatisfy { $0.environment == "Production" })
    }

    @Test func aNotificationAppleHasNotTriedYetIsGivenTimeBeforeItCounts() {
        let history = [F.entry("just-signed", signed: 0.05, [])]
        let report = Reconciler.reconcile(history: history, stored: [], window: F.window)
        let early = WatchFindings.from(report: report, refused: [], lastArrival: nil, quietAfter: nil, environment: "Production", now: F.now)
        #expect(early.isEmpty)
        let later = WatchFindings.from(
            report: report, refused: [], lastArrival: nil, quietAfter: nil, environment: "Production", now: F.now.addingTimeInterval(WatchFindings.firstAttemptGrace))
        #expect(later.map(\.kind) == [.appleFailedSends])
    }

    @Test func refusedBodiesAndSilenceAreFindingsToo() {
        var body = RefusedDelivery(reason: "invalid-signature", detail: "bad", body: Data("x".utf8), bodySize: 1, truncated: false, receivedAt: F.at(3))
        body.notificationUUID = "forged"
        var kept = QuarantinedDelivery(id: 1, refused: body)
        kept.count = 3
        let empty = Reconciler.reconcile(history: [], stored: [], window: F.window)
        let findings = WatchFindings.from(report: empty, refused: [kept], lastArrival: F.at(2), quietAfter: 3_600, environment: "Sandbox", now: F.now)
        #expect(findings.map(\.kind) == [.refusedBodies, .quiet])
        #expect(findings[0].count == 3 && findings[0].summary.hasPrefix("the receiver refused 3 bodies (invalid-signature 3)"))
        #expect(findings[0].notificationUUIDs == ["forged"])
        #expect(findings[1].key == "sandbox/quiet")
        #expect(findings[1].summary.contains("nothing arrived for more than 1 h"))
        // Within --quiet-after, or without it, silence is no finding.
        #expect(WatchFindings.from(report: empty, refused: [], lastArrival: F.at(0.5), quietAfter: 3_600, environment: "Sandbox", now: F.now).isEmpty)
        #expect(WatchFindings.from(report: empty, refused: [], lastArrival: nil, quietAfter: nil, environment: "Sandbox", now: F.now).isEmpty)
        // An empty store is quiet from the start.
        #expect(WatchFindings.from(report: empty, refused: [], lastArrival: nil, quietAfter: 60, environment: "Sandbox", now: F.now).map(\.kind) == [.quiet])
    }

    func stored(_ finding: WatchFinding, id: Int64, resolved: Bool = false) -> StoredIncident {
        let new = NewIncident(finding, at: F.now)
        return StoredIncident(
            id: id, key: new.key, kind: new.kind, summary: new.summary, details: new.details, openedAt: F.now, updatedAt: F.now,
            resolvedAt: resolved ? F.now : nil)
    }

    @Test func changesOpenWhatIsNewUpdateWhatChangedAndResolveWhatIsGone() {
        let missing = WatchFinding(kind: .missingHere, environment: "Production", count: 2, notificationUUIDs: ["a", "b"], summary: "2 missing")
        let quiet = WatchFinding(kind: .quiet, environment: "Production", count: 0, summary: "quiet")
        let forward = WatchFinding(kind: .forwardFailed, environment: "Production", count: 1, summary: "1 forward failed")
        let sandbox = WatchFinding(kind: .forwardFailed, environment: "Sandbox", count: 1, summary: "sandbox")
        let active = [stored(missing, id: 1), stored(quiet, id: 2), stored(sandbox, id: 3)]
        var grown = missing
        grown.count = 3
        grown.summary = "3 missing"
        let changes = IncidentChanges.between(
            active: active, findings: [grown, forward], checked: Set(WatchFinding.Kind.allCases), environment: "Production")
        #expect(changes.toOpen == [forward])
        #expect(changes.toUpdate.map(\.incident.id) == [1])
        #expect(changes.toUpdate.first?.finding.summary == "3 missing")
        // Quiet is gone; the Sandbox incident belongs to another environment's watch.
        #expect(changes.toResolve.map(\.id) == [2])
        // The same findings again change nothing.
        let same = IncidentChanges.between(active: active, findings: [missing, quiet], checked: Set(WatchFinding.Kind.allCases), environment: "Production")
        #expect(same.toOpen.isEmpty && same.toUpdate.isEmpty && same.toResolve.isEmpty)
    }

    @Test func aCycleThatCouldNotLookResolvesNothingItDidNotSee() {
        let missing = WatchFinding(kind: .missingHere, environment: "Production", count: 2, summary: "2 missing")
        let cannot = WatchFindings.cannotCheck("Apple answered 401", environment: "Production")
        let failed = IncidentChanges.between(active: [stored(missing, id: 1)], findings: [cannot], checked: [.cannotCheck], environment: "Production")
        #expect(failed.toOpen.map(\.kind) == [.cannotCheck])
        #expect(failed.toResolve.isEmpty)
        // The next cycle that looks resolves the failure.
        let back = IncidentChanges.between(
            active: [stored(missing, id: 1), stored(cannot, id: 2)], findings: [missing], checked: Set(WatchFinding.Kind.allCases), environment: "Production")
        #expect(back.toResolve.map(\.id) == [2])
        #expect(back.toOpen.isEmpty)
    }

    @Test func alertsSpeakSlackAndPagerDuty() throws {
        let finding = WatchFinding(kind: .appleFailedSends, environment: "Production", count: 1, notificationUUIDs: ["u-1"], summary: "Apple could not deliver 1 notification")
        var incident = stored(finding, id: 7)
        let opened = IncidentEvent(incident, phase: .opened, source: "host-a")
        let slack = try #require(try JSONSerialization.jsonObject(with: AlertFormat.slack.body(opened, routingKey: nil)) as? [String: Any])
        let text = try #require(slack["text"] as? String)
        #expect(text.contains("OPENED production/apple-failed-sends: Apple could not deliver 1 notification"))
        #expect(text.contains("host-a") && text.contains("u-1") && text.contains(":rotating_light:"))

        let trigger = try #require(try JSONSerialization.jsonObject(with: AlertFormat.pagerduty.body(opened, routingKey: "R0UT1NG")) as? [String: Any])
        #expect(trigger["routing_key"] as? String == "R0UT1NG")
        #expect(trigger["event_action"] as? String == "trigger")
        let dedup = try #require(trigger["dedup_key"] as? String)
        #expect(dedup.hasPrefix("iapdesk/production/apple-failed-sends/"))
        let payload = try #require(trigger["payload"] as? [String: Any])
        #expect(payload["severity"] as? String == "critical")
        #expect(payload["source"] as? String == "host-a")
        #expect((payload["summary"] as? String)?.isEmpty == false)
        #expect((payload["custom_details"] as? [String: Any])?["notificationUUIDs"] as? [String] == ["u-1"])

        incident.resolvedAt = F.now.addingTimeInterval(600)
        let resolved = IncidentEvent(incident, phase: .resolved, source: "host-a")
        #expect(resolved.line.hasPrefix("RESOLVED production/apple-failed-sends after 10 min"))
        let resolve = try #require(try JSONSerialization.jsonObject(with: AlertFormat.pagerduty.body(resolved, routingKey: "R0UT1NG")) as? [String: Any])
        #expect(resolve["event_action"] as? String == "resolve")
        #expect(resolve["dedup_key"] as? String == dedup)
        #expect(resolve["payload"] == nil)
    }
}
