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
        /// The window and the flags as the findings' commands give them: "24h", " --demo".
        var sinceText = "T"
        var followUpFlags = ""
    }

    struct Outcome: Sendable {
        var findings: [WatchFinding] = []
        var checked = true
        /// Why the cycle could not look (Apple or the store), as `--once` exits with it.
        var failure: CLIError?
        var notifications = 0
        var recovered = 0
        var recoverFailed = 0
        /// The incidents this watch opened or resolved in the cycle.
        var events: [IncidentEvent] = []
        /// Announcements that failed, each with why: tried again next cycle.
        var unannounced: [String] = []
        /// Announcements sent on the channels.
        var announced = 0
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
            report: report, refused: refused, lastArrival: lastArrival, quietAfter: settings.quietAfter, environment: environment, now: now,
            since: settings.sinceText, flags: settings.followUpFlags)
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

    /// How long a resolved incident's resolution is still announced to a channel that missed it.
    static let resolutionsKept: TimeInterval = 86_400

    /// Opens, updates and resolves the incidents the findings say (each change this watch made is
    /// an event of its output), then tells each channel what it was not told yet.
    private func keep(_ findings: [WatchFinding], checked: Set<WatchFinding.Kind>, now: Date, into outcome: inout Outcome) async throws {
        let prefix = environment.lowercased() + "/"
        let resolvedSince = now.addingTimeInterval(-Self.resolutionsKept)
        let changes = IncidentChanges.between(
            active: try await store.activeIncidents(resolvedSince: resolvedSince), findings: findings, checked: checked, environment: environment)
        for finding in changes.toOpen {
            // Another watch on the store may have opened it a moment ago: then it is that one's to say.
            if let opened = try await store.openIncident(NewIncident(finding, at: now)) {
                outcome.events.append(IncidentEvent(opened, phase: .opened, source: source))
            }
        }
        for update in changes.toUpdate {
            try await store.updateIncident(
                id: update.incident.id, summary: update.finding.summary, details: IncidentDetails(update.finding).encoded(), at: now)
        }
        for var incident in changes.toResolve {
            try await store.resolveIncident(id: incident.id, at: now)
            incident.resolvedAt = now
            outcome.events.append(IncidentEvent(incident, phase: .resolved, source: source))
        }
        let active = try await store.activeIncidents(resolvedSince: resolvedSince).filter { $0.key.hasPrefix(prefix) }
        outcome.open = active.filter(\.isOpen)
        for channel in announcer.channels {
            try await announce(active, on: channel, now: now, into: &outcome)
        }
    }

    /// Each incident's opening while it is open, and its resolution once the channel heard of the
    /// opening: a channel is never told of the end of what it was not told began.
    private func announce(_ incidents: [StoredIncident], on channel: IncidentAnnouncer.Channel, now: Date, into outcome: inout Outcome) async throws {
        var sent = try await store.sentAnnouncements(channel: channel.id, incidents: incidents.map(\.id))
        // A claim older than this was left by a watch that stopped while sending.
        let staleBefore = now.addingTimeInterval(-(announcer.timeout + 60))
        for incident in incidents {
            let opened = IncidentAnnouncement(incident: incident.id, phase: .opened)
            let resolved = IncidentAnnouncement(incident: incident.id, phase: .resolved)
            let due: IncidentPhase?
            if incident.isOpen {
                due = sent.contains(opened) ? nil : .opened
            } else {
                due = sent.contains(opened) && !sent.contains(resolved) ? .resolved : nil
            }
            if let phase = due {
                guard try await store.claimAnnouncement(incident: incident.id, channel: channel.id, phase: phase, at: Date(), staleBefore: staleBefore) else {
                    continue
                }
                let failure = await channel.send(IncidentEvent(incident, phase: phase, source: source))
                try await store.finishAnnouncement(incident: incident.id, channel: channel.id, phase: phase, sent: failure == nil, at: Date())
                if let failure {
                    outcome.unannounced.append("\(incident.key) \(phase.rawValue) to \(channel.shown): \(failure)")
                    continue
                }
                sent.insert(IncidentAnnouncement(incident: incident.id, phase: phase))
                outcome.announced += 1
            }
        }
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
