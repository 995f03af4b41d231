import AppStoreServerAPI
import ArgumentParser
import DeskCore
import DeskStore
import Foundation
import NotificationReconcile

struct ReplayCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "replay",
        abstract: "Re-post one notification's original body to a URL.",
        discussion: """
            Sends the body iapdesk listen stored for the notificationUUID, as it arrived. When it never arrived, the \
            notification is looked up in Apple's Get Notification History of the last 180 days (30 in Sandbox), verified, and \
            sent as {"signedPayload": ...}, as Apple sends it. The outcome (status, milliseconds) is recorded in the store's \
            replays table. \(ReplaySender.signedDateCaveat) Exit 0 when the URL answered 2xx, 10 when it did not. See \
            docs/webhooks.md.
            """)

    @Argument(help: "The notificationUUID.") var uuid: String
    @Option(name: .long, help: ArgumentHelp("POST it here (the app's endpoint).", valueName: "url")) var to: String
    @Option(name: .long, help: ArgumentHelp("Seconds the POST may take.", valueName: "seconds")) var sendTimeout: Double = 10
    @OptionGroup var storeOptions: StoreOptions
    @OptionGroup var global: GlobalOptions

    func validate() throws {
        guard UUID(uuidString: uuid) != nil else {
            throw ValidationError("\(uuid) is not a notificationUUID: it has 32 hex digits in groups of 8-4-4-4-12.")
        }
        guard sendTimeout.isFinite, sendTimeout > 0, sendTimeout <= 600 else {
            throw ValidationError("--send-timeout must be more than 0 and at most 600 seconds.")
        }
    }

    func run() async throws {
        try await runReporting {
            let target = try ReplaySender.target(to)
            // The demo's replays never go into the real store: without --store, the demo's own.
            let resolved: ResolvedStore
            if global.demo && storeOptions.store == nil {
                let session = try await Session.open(global)
                do {
                    resolved = try await StoreAccess.resolve(storeOptions, session: session)
                } catch {
                    await session.close()
                    throw error
                }
                await session.close()
            } else {
                let profileStore = global.demo ? nil : try ReceivingProfile.resolve(global).store
                resolved = ResolvedStore(location: try storeOptions.location(profileStore: profileStore))
            }
            let path = resolved.location.description
            let printer = Printer(json: global.json)
            try await StoreAccess.with(resolved.location) { store in
                let found: [StoredNotification]
                do {
                    found = try await store.notifications(uuids: [uuid, uuid.lowercased()])
                } catch {
                    throw StoreAccess.failure(error, path: path)
                }
                let body: Data
                // As Apple or the store spells it, whatever case was typed.
                let notificationUUID: String
                let source: ReplayAttempt.Source
                let kind: String?
                let signedDate: Date?
                if let stored = found.first {
                    body = stored.rawBody
                    notificationUUID = stored.notificationUUID
                    source = .store
                    signedDate = stored.signedDate
                    kind = [stored.notificationType ?? "?", stored.subtype].compactMap { $0 }.joined(separator: "/")
                } else {
                    let entry = try await Self.fromAppleHistory(uuid, options: global)
                    guard let entryBody = entry.webhookBody else {
                        throw CLIError("Apple's history holds no signedPayload for \(uuid): nothing to send.", status: .failure)
                    }
                    body = entryBody
                    notificationUUID = entry.notificationUUID ?? uuid
                    source = .appleHistory
                    signedDate = entry.signedDate
                    kind = [entry.notificationType ?? "?", entry.subtype].compactMap { $0 }.joined(separator: "/")
                }
                let sender = ReplaySender(target: target, command: "replay", timeout: sendTimeout, store: store)
                let attempt = try await sender.send(body, notificationUUID: notificationUUID, source: source)
                printer.emit(ReplayOutput(attempt: AttemptOutcome(attempt), notificationType: kind, signedDate: signedDate))
                let origin = source == .store ? "the body stored when it arrived" : "Apple's history (it never arrived here)"
                printer.text("""
                    Replayed \(notificationUUID) (\(kind ?? "?"), signed \(DisplayFormat.date(signedDate, seconds: true))) from \(origin) to \(sender.shownTarget): \
                    \(attempt.result) in \(String(format: "%.0f", attempt.milliseconds)) ms. Recorded in \(resolved.recordedIn).
                    \(ReplaySender.signedDateCaveat)
                    """)
                guard attempt.succeeded else {
                    throw CLIError("\(sender.shownTarget) did not take it: \(attempt.result).", hint: "Check the URL and the app's logs, then replay it again.", status: .gapsFound)
                }
            }
        }
    }

    /// The notification from Apple's history of the last 180 days (30 in Sandbox); it must verify to be sent.
    static func fromAppleHistory(_ uuid: String, options: GlobalOptions) async throws -> NotificationHistoryEntry {
        let session = try await Session.open(options)
        do {
            let entry = try await Deadline.$current.withValue(Deadline(seconds: session.timeout)) { () async throws -> NotificationHistoryEntry in
                let days = session.environment.notificationHistoryRetentionDays
                let window = try NotificationHistoryWindow.make(since: "\(days)d", until: nil, environment: session.environment)
                let history = try await NotificationHistoryFetch.entries(session, window: window.range)
                guard let entry = history.first(where: { $0.notificationUUID?.lowercased() == uuid.lowercased() }) else {
                    throw CLIError(
                        "\(uuid) is neither in the store nor in Apple's notification history of the last \(days) days in \(session.environmentLabel).",
                        hint: "Check the UUID, the store (--store) and the environment (--environment).", status: .notFound)
                }
                if case .failed(let failure) = entry.verification { throw CLIError(unverified: failure) }
                return entry
            }
            await session.close()
            return entry
        } catch {
            await session.close()
            throw error
        }
    }
}

/// `replay --json`: the re-post's outcome, with what was re-posted and the caveat about its signed date.
struct ReplayOutput: Encodable {
    var attempt: AttemptOutcome
    var notificationType: String?
    var note = ReplaySender.signedDateCaveat
    var signedDate: String?
    var signedDateMs: Int64?

    init(attempt: AttemptOutcome, notificationType: String?, signedDate: Date?) {
        (self.attempt, self.notificationType) = (attempt, notificationType)
        (self.signedDate, signedDateMs) = DatePair.of(signedDate)
    }

    private enum CodingKeys: String, CodingKey { case notificationType, note, signedDate, signedDateMs }

    /// The attempt's members, then these beside them in the same object.
    func encode(to encoder: any Encoder) throws {
        try attempt.encode(to: encoder)
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encodeIfPresent(notificationType, forKey: .notificationType)
        try container.encode(note, forKey: .note)
        try container.encodeIfPresent(signedDate, forKey: .signedDate)
        try container.encodeIfPresent(signedDateMs, forKey: .signedDateMs)
    }
}
