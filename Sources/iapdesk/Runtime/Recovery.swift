import AppStoreServerAPI
import ArgumentParser
import DeskCore
import DeskStore
import Foundation
import NotificationReconcile

/// Sends a recovery plan at the rate asked, reporting each outcome; Ctrl-C stops between two POSTs.
struct Recovery {
    let plan: RecoveryPlan
    let sender: ReplaySender
    let rate: Double
    let dryRun: Bool
    let window: Range<Date>
    let storePath: String
    let recordedIn: String
    let printer: Printer

    struct Sent: Sendable {
        var attempts: [ReplayAttempt] = []
        var interrupted = false
        /// Why sending stopped early, other than Ctrl-C.
        var failure: CLIError?
    }

    func run() async throws {
        let count = plan.candidates.count
        printer.text("""
            \(DisplayFormat.count(count, "notification")) that did not reach the app between \(DisplayFormat.date(window.lowerBound)) and \
            \(DisplayFormat.date(window.upperBound)) to re-post to \(sender.shownTarget)\(dryRun ? "" : ", at most \(String(format: "%g", rate)) a second")\
            \(plan.skipped.isEmpty ? "" : "; \(plan.skipped.count) skipped").
            \(ReplaySender.signedDateCaveat)
            """)
        if !plan.skipped.isEmpty && !printer.json {
            var skipped = TextTable("SKIPPED", "WHY")
            for skip in plan.skipped { skipped.add(skip.notificationUUID ?? "(unreadable)", skip.reason) }
            printer.text("\n" + skipped.render())
        }
        if dryRun {
            var table = TextTable("SIGNED", "TYPE", "UUID", "BODY", "WHY")
            for candidate in plan.candidates {
                table.add(
                    DisplayFormat.date(candidate.signedDate, seconds: true), Self.kind(candidate), candidate.notificationUUID,
                    candidate.source == .store ? "stored" : "Apple's history", candidate.reason)
            }
            printer.emit(document(Sent()))
            printer.text((count > 0 ? "\n" + table.render() + "\n" : "\n") + "Dry run: nothing was sent.")
            return
        }
        if count > 0 { printer.text("") }
        let task = Task { await send() }
        let sent = await Interruption.cancelling(task)
        printer.emit(document(sent))
        let refused = sent.attempts.filter { !$0.succeeded }.count
        let tally = "Sent \(sent.attempts.count) of \(count): \(sent.attempts.count - refused) taken (2xx), \(refused) not. Recorded in \(recordedIn)."
        if sent.interrupted {
            throw CLIError(
                "Interrupted: sent \(sent.attempts.count) of \(count) (each recorded); \(sent.attempts.count - refused) taken.",
                hint: "Run the same command again to send the rest: those taken are not sent again.", status: .interrupted)
        }
        printer.text("\n" + tally)
        if let failure = sent.failure { throw failure }
        if refused > 0 {
            throw CLIError(
                "\(DisplayFormat.count(refused, "notification")) not taken by \(sender.shownTarget).",
                hint: "Check the app's endpoint and logs, then run the same command again: those taken are not sent again.", status: .gapsFound)
        }
    }

    /// One POST after another, the n-th no sooner than n / rate seconds after the first.
    private func send() async -> Sent {
        var sent = Sent()
        let clock = ContinuousClock()
        let start = clock.now
        let spacing = Duration.milliseconds(Int64((1000 / rate).rounded(.up)))
        for (index, candidate) in plan.candidates.enumerated() {
            do {
                try await clock.sleep(until: start + spacing * index)
                try Task.checkCancellation()
                let attempt = try await sender.send(candidate.body, notificationUUID: candidate.notificationUUID, source: candidate.source)
                sent.attempts.append(attempt)
                printer.text(ReplaySender.line(attempt, kind: Self.kind(candidate)))
            } catch is CancellationError {
                sent.interrupted = true
                break
            } catch {
                // The outcome could not be recorded: stop rather than send what cannot be accounted for.
                sent.failure = StoreAccess.failure(error, path: storePath)
                break
            }
        }
        if Task.isCancelled { sent.interrupted = true }
        return sent
    }

    private func document(_ sent: Sent) -> RecoverOutput {
        let outcomes = Dictionary(sent.attempts.map { ($0.notificationUUID, $0) }, uniquingKeysWith: { $1 })
        var document = RecoverOutput(
            target: sender.shownTarget, rate: rate, dryRun: dryRun, interrupted: sent.interrupted,
            sent: sent.attempts.count, accepted: sent.attempts.filter(\.succeeded).count,
            notifications: plan.candidates.map { RecoverOutput.Notification($0, outcome: outcomes[$0.notificationUUID]) },
            skipped: plan.skipped.map { RecoverOutput.Skipped(notificationUUID: $0.notificationUUID, reason: $0.reason) })
        (document.since, document.sinceMs) = DatePair.of(window.lowerBound)
        (document.until, document.untilMs) = DatePair.of(window.upperBound)
        return document
    }

    static func kind(_ candidate: RecoveryPlan.Candidate) -> String {
        [candidate.notificationType ?? "?", candidate.subtype].compactMap { $0 }.joined(separator: "/")
    }
}

/// `recover --json`: the window, the rate, each notification planned with its outcome, and those skipped.
struct RecoverOutput: Encodable {
    struct Notification: Encodable {
        var notificationUUID: String
        var notificationType: String?
        var subtype: String?
        var source: String
        var reason: String
        var outcome: AttemptOutcome?
        var signedDate: String?
        var signedDateMs: Int64?

        init(_ candidate: RecoveryPlan.Candidate, outcome: ReplayAttempt?) {
            (notificationUUID, notificationType, subtype) = (candidate.notificationUUID, candidate.notificationType, candidate.subtype)
            (source, reason) = (candidate.source.rawValue, candidate.reason)
            self.outcome = outcome.map(AttemptOutcome.init)
            (signedDate, signedDateMs) = DatePair.of(candidate.signedDate)
        }
    }

    struct Skipped: Encodable {
        var notificationUUID: String?
        var reason: String
    }

    var target: String
    var rate: Double
    var dryRun: Bool
    var interrupted: Bool
    var note = ReplaySender.signedDateCaveat
    var sent: Int
    var accepted: Int
    var notifications: [Notification]
    var skipped: [Skipped]
    var since: String?
    var sinceMs: Int64?
    var until: String?
    var untilMs: Int64?

    init(target: String, rate: Double, dryRun: Bool, interrupted: Bool, sent: Int, accepted: Int, notifications: [Notification], skipped: [Skipped]) {
        (self.target, self.rate, self.dryRun, self.interrupted) = (target, rate, dryRun, interrupted)
        (self.sent, self.accepted, self.notifications, self.skipped) = (sent, accepted, notifications, skipped)
    }
}
