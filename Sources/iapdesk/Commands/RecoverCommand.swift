import AppStoreServerAPI
import ArgumentParser
import DeskCore
import DeskStore
import Foundation
import NotificationReconcile

struct RecoverCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "recover",
        abstract: "Re-post every notification of a window that did not reach the app, at a bounded rate.",
        discussion: """
            Reads Get Notification History for the window and re-posts each notification that did not reach the app: not in \
            the store, whether Apple could not deliver it or delivered it to another URL (Apple's {"signedPayload": ...} is \
            sent), or in the store with a failed forward (the stored body is sent). Skipped, and listed: ones that arrived here and \
            were not forwarded (the store is their receiver: use replay), ones whose forward succeeded, ones already \
            recovered to the same URL, and ones whose payload does not verify. At most --rate a second, one at a time; each \
            outcome is printed and recorded in the store's replays table. \(ReplaySender.signedDateCaveat) Ctrl-C stops \
            after the POST in flight and says how many were sent (exit 130); running the command again sends only the rest. \
            Exit 0 when every one was taken (2xx), 10 when one was not. See docs/webhooks.md.
            """)

    @Option(name: .long, help: "From this signed date (2026-11-01, 7d, 24h, ...).") var since: String
    @Option(name: .long, help: "Until this signed date (default now).") var until: String?
    @Option(name: .long, help: ArgumentHelp("POST them here (the app's endpoint).", valueName: "url")) var to: String
    @Flag(name: .long, help: "List what would be sent; send nothing.") var dryRun = false
    @Option(name: .long, help: ArgumentHelp("At most this many POSTs a second.", valueName: "N")) var rate: Double = 5
    @Option(name: .long, help: ArgumentHelp("Seconds each POST may take.", valueName: "seconds")) var sendTimeout: Double = 10
    @OptionGroup var storeOptions: StoreOptions
    @OptionGroup var global: GlobalOptions

    func validate() throws {
        guard rate.isFinite, rate > 0, rate <= 100 else { throw ValidationError("--rate must be more than 0 and at most 100 a second.") }
        guard sendTimeout.isFinite, sendTimeout > 0, sendTimeout <= 600 else {
            throw ValidationError("--send-timeout must be more than 0 and at most 600 seconds.")
        }
    }

    func run() async throws {
        try await withSession(global) { session, printer in
            let target = try ReplaySender.target(to)
            let window = try NotificationHistoryWindow.make(since: since, until: until, environment: session.environment)
            if let note = window.clampNote { StandardStreams.error("note: \(note)\n") }
            let resolved = try await StoreAccess.resolve(storeOptions, session: session)
            let path = resolved.location.description
            try await StoreAccess.with(resolved.location) { store in
                let sender = ReplaySender(target: target, command: "recover", timeout: sendTimeout, store: store)
                let history = try await NotificationHistoryFetch.entries(session, window: window.range)
                let plan: RecoveryPlan
                do {
                    let uuids = Set(history.compactMap(\.notificationUUID))
                    plan = RecoveryPlan.make(
                        history: history, stored: try await ForwardHistory.settled(store.notifications(uuids: uuids), in: store), replays: try await store.replays(uuids: uuids),
                        target: sender.shownTarget)
                } catch {
                    throw StoreAccess.failure(error, path: path)
                }
                try await Recovery(plan: plan, sender: sender, rate: rate, dryRun: dryRun, window: window.range, storePath: path, recordedIn: resolved.recordedIn, printer: printer).run()
            }
        }
    }
}
