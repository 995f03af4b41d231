import AppStoreServerAPI
import ArgumentParser
import DeskCore
import DeskStore
import Foundation
import NotificationReconcile

struct ReconcileCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "reconcile",
        abstract: "Compare Apple's notification history with what iapdesk listen stored, notification by notification.",
        discussion: """
            Reads Get Notification History for the window (Apple keeps 180 days in Production, 30 in Sandbox; an older --since \
            is moved up to that, saying so), verifies each signedPayload with the profile's verifier (an entry that does not \
            verify is kept and reported), and joins it with the store by notificationUUID. Each notification gets one verdict:

              received                              Apple delivered it and it arrived once
              failed at Apple but arrived           Apple logged a failed attempt (TIMED_OUT, ...) yet it is stored
              delivered per Apple but missing here  Apple's last attempt succeeded, nothing arrived (another URL? receiver down?)
              not delivered and missing             Apple could not deliver it and nothing arrived: iapdesk recover
              arrived, but the forward failed       stored here, but listen's forward to the app failed: iapdesk recover
              recovered by a re-post                it never arrived here, but recover or replay re-posted it and the app took it (2xx)
              arrived but unknown to Apple          stored, signed in the window, not in Apple's history (another app or environment, or forged)
              duplicate from retries                it arrived more than once

            Counts per verdict first, then one row per notification (--json: one document). Exit 0 when every notification \
            reached the app (received, or recovered by a re-post), 10 when a notification is missing here or unknown to Apple (or a history entry cannot be read), and \
            the usual codes for errors. See docs/webhooks.md.
            """)

    @Option(name: .long, help: "From this signed date (default 7d; 2026-11-01, 24h, ...).") var since: String = "7d"
    @Option(name: .long, help: "Until this signed date (default now).") var until: String?
    @OptionGroup var storeOptions: StoreOptions
    @OptionGroup var global: GlobalOptions

    func run() async throws {
        try await withSession(global) { session, printer in
            let window = try NotificationHistoryWindow.make(since: since, until: until, environment: session.environment)
            if let note = window.clampNote { StandardStreams.error("note: \(note)\n") }
            let resolved = try await StoreAccess.resolve(storeOptions, session: session)
            let path = resolved.location.description
            let report = try await StoreAccess.with(resolved.location) { store in
                let history = try await NotificationHistoryFetch.entries(session, window: window.range)
                do {
                    return try await WindowReconcile.report(history: history, window: window.range, store: store)
                } catch {
                    throw StoreAccess.failure(error, path: path)
                }
            }
            // The next commands as they can be pasted: the same window, account and store.
            let flags = global.followUpFlags + (storeOptions.store.map { " --store \(GlobalOptions.quoted($0))" } ?? "")
            let recover = "iapdesk recover --since \(since) --to URL\(flags)"
            ReconcileOutput(report: report, store: path, session: session, printer: printer, recoverCommand: recover).print()
            if report.hasGaps {
                let gaps = report.rows.filter(\.verdict.isGap).count + report.unreadable.count
                let unknown = report.rows.contains { $0.verdict == .unknownToApple }
                let missing = report.rows.contains { $0.verdict.isGap && $0.verdict != .unknownToApple }
                let hints = [
                    missing ? "Missing ones: \(recover) (or iapdesk replay UUID --to URL\(flags)), then run this again." : nil,
                    unknown ? "Unknown to Apple: check their verdict with iapdesk received --json\(flags)." : nil,
                ].compactMap { $0 }
                throw CLIError(
                    "Gaps found: \(DisplayFormat.count(gaps, "notification")) on one side only.",
                    hint: hints.isEmpty ? nil : hints.joined(separator: " "), status: .gapsFound)
            }
        }
    }
}
