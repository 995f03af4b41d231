import AppStoreServerAPI
import DeskCore
import DeskStore
import Foundation
import NotificationReconcile

/// One look of `iapdesk watch`: Apple's notification history for the window joined with the store,
/// what is missing re-posted when asked, the findings turned into incidents kept in the store, and
/// every change of an incident announced once.
struct WatchCycle: Sendable {
    struct Settings: Sendable {
        var window: TimeInterval
        var quietAfter: TimeInterval?
        /// Re-posts what did not reach the app here, at most `recoverRate` a second, for at most `recoverBudget` a cycle.
        var recoverTo: ReplaySender?
        var recoverRate: Double = 5
        var recoverBudget: Duration = .seconds(60)
    }

    struct Outcome: Sendable {
        var findings: [WatchFinding] = []
        var checked = true
        /// Why the cycle could not look (Apple or the store), as `--once` exits with it.
        var failure: CLIError?
        var notifications = 0
        var recovered = 0
        var recoverFailed = 0
        var events: [IncidentEvent] = []
        /// Announcements that failed, each with why: tried again next cycle.
        var unannounced: [String] = []
        /// Incidents open after the cycle, of this environment.
        var open: [StoredIncident] = []
    }

    let session: Session
    let store: any NotificationStore & IncidentStore
    let settings: Settings
    let announcer: IncidentAnnouncer
    /// Names this watch in its announcements.
    let source: String

    var environment: String { session.environment.label }

    func run(now: Date = Date()) async throws -> Outcome {
        var outcome = Outcome()
        let kinds: Set<WatchFinding.Kind>
        do {
            try await look(now: now, into: &outcome)
            kinds = Set(WatchFinding.Kind.allCases)
        } catch is CancellationError {
            throw CancellationError()
        } catch let error as CLIError where error.status == .interrupted {
            throw CancellationError()
        } catch {
            outcome.checked = false
            outcome.failure = Self.cliError(error)
            outcome.findings = [WatchFindings.cannotCheck(Self.reason(error), environment: environment)]
            kinds = [.cannotCheck]
        }
        // Once looked, the incidents are kept and announced even when a stop comes meanwhile: an
        // alert cut off half-sent would be neither delivered nor tried again.
        let looked = outcome
        return try await Task {
            var outcome = looked
            try await keep(outcome.findings, checked: kinds, now: now, into: &outcome)
            return outcome
        }.value
    }

    private func look(now: Date, into outcome: inout Outcome) async throws {
        let oldest = now.addingTimeInterval(-session.environment.notificationHistoryRetention + 60)
        let window = max(now.addingTimeInterval(-settings.window), oldest)..<now
        let history = try await Deadline.$current.withValue(Deadline(seconds: session.timeout)) {
            try await NotificationHistoryFetch.entries(session, window: window)
        }
        outcome.notifications = history.count
        var report = try await WindowReconcile.report(history: history, window: window, store: store)
        if let sender = settings.recoverTo, report.rows.contains(where: { $0.verdict.isGap }) {
            let uuids = Set(history.compactMap(\.notificationUUID))
            let plan = RecoveryPlan.make(
                history: history, stored: try await ForwardHistory.settled(store.notifications(uuids: uuids), in: store),
                replays: try await store.replays(uuids: uuids), target: sender.shownTarget)
            let sent = try await recover(plan, with: sender)
            outcome.recovered = sent.filter(\.succeeded).count
            outcome.recoverFailed = sent.count - outcome.recovered
            if !sent.isEmpty { report = try await WindowReconcile.report(history: history, window: window, store: store) }
        }
        let refused = try await store.quarantined(QuarantineFilter(since: window.lowerBound))
        let newest = try await store.notifications(NotificationFilter(limit: 1)).first?.lastReceivedAt
        let newestRefused = try await store.quarantined(QuarantineFilter(limit: 1)).first.map { $0.lastReceivedAt ?? $0.refused.receivedAt }
        let lastArrival = [newest, newestRefused].compactMap { $0 }.max()
        outcome.findings = WatchFindings.from(
            report: report, refused: refused, lastArrival: lastArrival, quietAfter: settings.quietAfter, environment: environment, now: now)
    }

    /// One POST after another at the rate, within the cycle's budget; the rest waits for the next cycle.
    private func recover(_ plan: RecoveryPlan, with sender: ReplaySender) async throws -> [ReplayAttempt] {
        let clock = ContinuousClock()
        let start = clock.now
        let spacing = Duration.milliseconds(Int64((1000 / settings.recoverRate).rounded(.up)))
        var attempts: [ReplayAttempt] = []
        for (index, candidate) in plan.candidates.enumerated() {
            let due = start + spacing * index
            guard due - start < settings.recoverBudget else { break }
            try await clock.sleep(until: due)
            attempts.append(try await sender.send(candidate.body, notificationUUID: candidate.notificationUUID, source: candidate.source))
        }
        return attempts
    }

    /// Opens, updates and resolves the incidents the findings say, then announces what is unannounced.
    private func keep(_ findings: [WatchFinding], checked: Set<WatchFinding.Kind>, now: Date, into outcome: inout Outcome) async throws {
        let changes = IncidentChanges.between(active: try await store.activeIncidents(), findings: findings, checked: checked, environment: environment)
        for finding in changes.toOpen { _ = try await store.openIncident(NewIncident(finding, at: now)) }
        for update in changes.toUpdate {
            try await store.updateIncident(
                id: update.incident.id, summary: update.finding.summary, details: IncidentDetails(update.finding).encoded(), at: now)
        }
        for incident in changes.toResolve { try await store.resolveIncident(id: incident.id, at: now) }
        // Every watch of the store announces what none announced yet (a crash between a change and
        // its announcement included); this environment's only.
        let prefix = environment.lowercased() + "/"
        let active = try await store.activeIncidents().filter { $0.key.hasPrefix(prefix) }
        for incident in active {
            for phase in incident.unannounced {
                let event = IncidentEvent(incident, phase: phase, source: source)
                if let failure = await announcer.announce(event) {
                    outcome.unannounced.append("\(incident.key) \(phase.rawValue): \(failure)")
                    break
                }
                try await store.markIncidentAnnounced(id: incident.id, phase, at: Date())
                outcome.events.append(event)
            }
        }
        outcome.open = active.filter(\.isOpen)
    }

    static func cliError(_ error: any Error) -> CLIError {
        if let error = error as? CLIError { return error }
        if let error = error as? APIError { return CLIError(error) }
        return CLIError(reason(error), status: .failure)
    }

    static func reason(_ error: any Error) -> String {
        if let error = error as? CLIError { return error.message }
        if let error = error as? APIError { return error.summary }
        if let error = error as? NotificationStoreError { return error.description }
        return "\(error)"
    }
}
