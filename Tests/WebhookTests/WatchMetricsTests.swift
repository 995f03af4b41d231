import DeskStore
import Foundation
import NotificationReconcile
import Testing

@testable import iapdesk

/// What `watch --metrics-address` serves, read back with the exposition parser the receiver's tests use.
@Suite struct WatchMetricsTests {
    func incident(_ kind: WatchFinding.Kind, id: Int64) -> StoredIncident {
        StoredIncident(id: id, key: "production/\(kind.rawValue)", kind: kind.rawValue, summary: "s", details: Data(), openedAt: Date(), updatedAt: Date())
    }

    @Test func aCycleIsCountedAndItsIncidentsAreGauges() throws {
        let metrics = WatchMetrics(environment: "Production", staleAfter: .seconds(3_600))
        let before = metrics.answer("/healthz")
        #expect(before.status == 503)
        #expect(String(decoding: before.body, as: UTF8.self).contains("no cycle has checked yet"))

        var outcome = WatchCycle.Outcome()
        outcome.notifications = 40
        outcome.recovered = 3
        outcome.recoverFailed = 1
        outcome.findings = [WatchFinding(kind: .missingHere, environment: "Production", count: 4, summary: "4 missing")]
        outcome.open = [incident(.missingHere, id: 1)]
        metrics.record(outcome, took: .milliseconds(250))

        let served = metrics.answer("/metrics")
        #expect(served.status == 200 && served.contentType.hasPrefix("text/plain; version=0.0.4"))
        let exposition = try Exposition(String(decoding: served.body, as: UTF8.self))
        let production = ["environment": "Production"]
        #expect(exposition.value(WatchMetrics.Name.cycles, production.merging(["outcome": "checked"]) { $1 }) == 1)
        #expect(exposition.value(WatchMetrics.Name.cycles, production.merging(["outcome": "failed"]) { $1 }) == 0)
        #expect(exposition.value(WatchMetrics.Name.open, production.merging(["kind": "missing-here"]) { $1 }) == 1)
        #expect(exposition.value(WatchMetrics.Name.open, production.merging(["kind": "quiet"]) { $1 }) == 0)
        #expect(exposition.value(WatchMetrics.Name.findings, production.merging(["kind": "missing-here"]) { $1 }) == 4)
        #expect(exposition.value(WatchMetrics.Name.checked, production) == 40)
        #expect(exposition.value(WatchMetrics.Name.reposts, production.merging(["outcome": "taken"]) { $1 }) == 3)
        #expect(exposition.value(WatchMetrics.Name.reposts, production.merging(["outcome": "not-taken"]) { $1 }) == 1)
        #expect(exposition.value(WatchMetrics.Name.cycleSeconds + "_count", production) == 1)

        let health = metrics.answer("/healthz")
        #expect(health.status == 200)
        let document = try #require(try JSONSerialization.jsonObject(with: Data(health.body)) as? [String: Any])
        #expect(document["status"] as? String == "ok")
        #expect(document["openIncidents"] as? Int == 1)
        #expect(metrics.answer("/other").status == 404)
    }

    @Test func aWatchThatCannotCheckIsUnhealthyWithTheReason() {
        let metrics = WatchMetrics(environment: "Sandbox", staleAfter: .zero)
        var failed = WatchCycle.Outcome()
        failed.checked = false
        failed.failure = CLIError("Apple answered 401: the token was refused.", status: .unauthorized)
        metrics.record(failed, took: .milliseconds(10))
        let health = metrics.answer("/healthz")
        #expect(health.status == 503)
        #expect(String(decoding: health.body, as: UTF8.self).contains("Apple answered 401"))
    }
}
