import AppStoreServerAPI
import ArgumentParser
import DeskCore
import DeskStore
import Foundation
import Synchronization
import WebhookReceiver

struct ReceivedCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "received",
        abstract: "List the notifications `iapdesk listen` received, or follow them as they arrive.",
        discussion: "Reads the notification store only; no profile is needed (--profile reads that profile's store). See docs/webhooks.md.")

    @Option(name: .long, help: "Delivered since (1h, 7d, 2026-11-01, ...; default: all).") var since: String?
    @Option(name: .long, help: "Only this notification type, such as DID_RENEW.") var type: String?
    @Option(name: .long, help: "Only notifications about this transaction (its own or original transaction ID).") var transaction: String?
    @Flag(name: .long, help: "List the refused bodies kept in quarantine, with their reasons.") var quarantined = false
    @Flag(name: .long, help: "Keep printing new arrivals until Ctrl-C.") var follow = false
    @Option(name: .long, help: "Show the newest this many (default 50).") var limit: Int = 50
    @Flag(name: .long, help: "Print JSON for scripts (JSON lines with --follow).") var json = false
    @Option(name: .long, help: "Read this profile's store (default: the config file's default profile's; --store and IAPDESK_STORE come first).")
    var profile: String?
    @Flag(name: .long, help: "Read the demo's store: what iapdesk demo and listen --demo received, and what --demo commands re-posted.")
    var demo = false
    @OptionGroup var storeOptions: StoreOptions

    func validate() throws {
        guard limit > 0 else { throw ValidationError("--limit must be at least 1.") }
        if quarantined && (type != nil || transaction != nil) {
            throw ValidationError("--type and --transaction filter notifications; quarantined bodies have only --since.")
        }
    }

    func run() async throws {
        try await runReporting {
            let sinceDate = try since.map { try DateArgument.require($0, "--since") }
            let location: StoreLocation
            if demo && storeOptions.store == nil {
                guard FileManager.default.fileExists(atPath: DemoStore.seededMarker) else {
                    throw CLIError(
                        "The demo has no notification store yet (\(DemoStore.path)).",
                        hint: "iapdesk demo, iapdesk listen --demo or any --demo reconcile makes it.", status: .notFound)
                }
                StoreAccess.noteDemoKeepsItsStore()
                location = .file(path: DemoStore.path)
            } else {
                location = try storeOptions.location(profileStore: StoreOptions.configuredStore(profile: profile))
            }
            let path = location.description
            let store = try await StoreAccess.openExisting(location)
            do {
                try await show(store, path: path, since: sinceDate)
                try? await store.close()
            } catch {
                try? await store.close()
                throw error
            }
        }
    }

    private func show(_ store: any NotificationStore, path: String, since sinceDate: Date?) async throws {
        do {
            let printer = Printer(json: json)
            // A follow's first rows stop where its cursor can stand: nothing another receiver commits later comes before them.
            var filter = NotificationFilter(since: sinceDate, type: type?.uppercased(), transactionId: transaction, limit: limit, settled: follow)
            if quarantined {
                let entries = try await store.quarantined(QuarantineFilter(since: sinceDate, limit: limit, settled: follow))
                if follow {
                    for entry in entries { line(entry) }
                    let latest = try await store.quarantined(QuarantineFilter(limit: 1, settled: true)).last?.id ?? 0
                    try await poll(from: max(entries.last?.id ?? 0, latest)) { cursor in
                        let new = try await store.quarantined(QuarantineFilter(afterId: cursor))
                        for entry in new { line(entry) }
                        return new.last?.id ?? cursor
                    }
                    return
                }
                printer.emit(ReceivedOutput.Quarantined(store: path, count: entries.count, quarantined: entries.map(QuarantineRecord.init)))
                var table = TextTable("RECEIVED", "REASON", "ANSWERED", "SIZE", "TIMES", "FROM", "DETAIL")
                for entry in entries {
                    table.add(
                        DisplayFormat.date(entry.receivedAt, seconds: true), entry.reason, String(entry.answeredStatus),
                        "\(entry.bodySize)\(entry.truncated ? "+" : "")", String(entry.count), entry.remoteAddress ?? "-", entry.detail)
                }
                printer.text(entries.isEmpty ? "Nothing quarantined in \(path)." : "\(entries.count) quarantined in \(path)\n\n" + table.render())
                return
            }
            let rows = try await store.notifications(filter)
            if follow {
                for row in rows { line(row) }
                filter.limit = nil
                let latest = try await store.notifications(NotificationFilter(limit: 1, settled: true)).last?.lastDeliveryId ?? 0
                try await poll(from: max(rows.last?.lastDeliveryId ?? 0, latest)) { [filter] cursor in
                    var next = filter
                    next.afterDelivery = cursor
                    let new = try await store.notifications(next)
                    for row in new { line(row) }
                    return new.last?.lastDeliveryId ?? cursor
                }
                return
            }
            // Each notification's re-posts by replay and recover, oldest first: the latest says where it stands.
            var replays: [String: [StoredReplay]] = [:]
            for replay in try await store.replays(uuids: Set(rows.map(\.notificationUUID))).sorted(by: { $0.id < $1.id }) {
                replays[replay.attempt.notificationUUID.lowercased(), default: []].append(replay)
            }
            printer.emit(ReceivedOutput.Notifications(store: path, count: rows.count, notifications: rows.map { row in
                StoredNotificationRecord(row, replays: replays[row.notificationUUID.lowercased()])
            }))
            var table = TextTable("RECEIVED", "TYPE", "SUBTYPE", "UUID", "VERDICT", "DELIVERIES", "ANSWERED", "TRANSACTION")
            let sentOn = rows.contains { $0.forwardResult != nil || replays[$0.notificationUUID.lowercased()] != nil }
            if sentOn { table.headers.append("TO THE APP (LATEST)") }
            for row in rows {
                var cells = [
                    DisplayFormat.date(row.lastReceivedAt, seconds: true), row.notificationType ?? "?", row.subtype ?? "-", row.notificationUUID,
                    row.verdict, String(row.deliveryCount), String(row.answeredStatus), row.transactionId ?? row.originalTransactionId ?? "-",
                ]
                if sentOn {
                    // A re-post is later than the forward made at arrival, so it is what holds now.
                    let latest = replays[row.notificationUUID.lowercased()]?.last.map { "\($0.attempt.command): \($0.attempt.result)" }
                    cells.append(latest ?? row.forwardResult.map { "forward: \($0)" } ?? "-")
                }
                table.add(cells)
            }
            printer.text(rows.isEmpty ? "No notifications match in \(path)." : "\(rows.count) notification\(rows.count == 1 ? "" : "s") in \(path)\n\n" + table.render())
        } catch let error as NotificationStoreError {
            throw CLIError(error.description, status: .failure)
        } catch {
            throw CLIError("The notification store at \(path) cannot be read: \(error).", status: .failure)
        }
    }

    /// Calls `step` every half second with the cursor it last returned, until Ctrl-C or SIGTERM.
    private func poll(from start: Int64, _ step: @escaping @Sendable (Int64) async throws -> Int64) async throws {
        // On standard error, so that piped lines stay rows only: an empty store must not look like a hang.
        Self.note("following \(quarantined ? "refused bodies" : "notifications") as they are stored; Ctrl-C stops.")
        let stopped = Task { await ShutdownSignal.wait() }
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { await stopped.value }
            group.addTask {
                var cursor = start
                var down = false
                while !Task.isCancelled {
                    try await Task.sleep(for: .milliseconds(down ? 2_000 : 500))
                    // A store that goes away (a server restarted, a dropped connection) is said once,
                    // and followed again when it is back: silence would read as "nothing arriving".
                    do {
                        cursor = try await step(cursor)
                        if down { Self.note("the store is back; following again.") }
                        down = false
                    } catch is CancellationError {
                        return
                    } catch {
                        // Stopped (Ctrl-C) while a read waited: the read's failure says nothing about the store.
                        if Task.isCancelled { return }
                        if !down { Self.note("the store cannot be read (\(error)); retrying every 2 s, Ctrl-C stops.") }
                        down = true
                    }
                }
            }
            do {
                try await group.next()
            } catch is CancellationError {}
            group.cancelAll()
        }
    }

    private func line(_ row: StoredNotification) {
        if json {
            Self.write(JSONLine.render(StoredNotificationRecord(row)))
        } else {
            Self.write("\(DisplayFormat.date(row.lastReceivedAt, seconds: true))  \(row.notificationType ?? "?")\(row.subtype.map { "/" + $0 } ?? "")  "
                + "\(row.notificationUUID)  \(row.verdict)  deliveries \(row.deliveryCount)  answered \(row.answeredStatus)  "
                + "\(row.transactionId ?? row.originalTransactionId ?? "-")")
        }
    }

    private static func write(_ line: String) {
        StandardStreams.output(Data((line + "\n").utf8))
    }

    /// About following itself, on standard error: standard output stays one line per notification.
    private static func note(_ text: String) {
        StandardStreams.error("note: \(text)\n")
    }

    private func line(_ entry: QuarantinedDelivery) {
        if json {
            Self.write(JSONLine.render(QuarantineRecord(entry)))
        } else {
            Self.write("\(DisplayFormat.date(entry.receivedAt, seconds: true))  \(entry.reason)  answered \(entry.answeredStatus)  \(entry.detail)")
        }
    }
}

/// `received --json`: the store's notifications, or with `--quarantined` its refused bodies.
enum ReceivedOutput {
    struct Notifications: Encodable {
        var store: String
        var count: Int
        var notifications: [StoredNotificationRecord]
    }

    struct Quarantined: Encodable {
        var store: String
        var count: Int
        var quarantined: [QuarantineRecord]
    }
}
