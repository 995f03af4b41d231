import AppStoreServerAPI
import ArgumentParser
import DeskCore
import Foundation

struct NotificationsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "notifications", abstract: "List App Store Server Notifications with every send attempt.")

    @Option(name: .long, help: "From this date (default 7d; 2026-11-01, 24h, ...).") var since: String = "7d"
    @Option(name: .long, help: "Until this date (default now).") var until: String?
    @Option(name: .long, help: "Only this type, such as DID_RENEW.") var type: String?
    @Option(name: .long, help: "Only this subtype (needs --type), such as GRACE_PERIOD.") var subtype: String?
    @Option(name: .long, help: "Only notifications about this customer (any of their transaction IDs).") var transaction: String?
    @Flag(name: .long, help: "Only notifications that were never delivered (including ones still being retried).") var failures = false
    @Option(name: .long, help: "Stop after this many notifications.") var limit: Int?
    @OptionGroup var rawOption: RawOption
    @OptionGroup var global: GlobalOptions

    func validate() throws {
        if subtype != nil && type == nil { throw ValidationError("--subtype needs --type.") }
        if type != nil && transaction != nil { throw ValidationError("Apple filters by --type or by --transaction, not both.") }
    }

    func run() async throws {
        try await withSession(global) { session, printer in
            var request = NotificationHistoryRequest()
            let start = try DateArgument.require(since, "--since")
            // Apple counts its window from its own clock: a start just inside it here can be outside
            // it there, so "180d" starts a few minutes later, and anything older is brought inside.
            let retention = session.environment.notificationHistoryRetention
            let earliest = Date().addingTimeInterval(-retention + 300)
            if start < earliest.addingTimeInterval(-86_400) {
                StandardStreams.error("Note: \(session.environment.label) keeps \(session.environment.notificationHistoryRetentionDays) days of notification history; listing from \(DisplayFormat.date(earliest)).\n")
            }
            request.startDate = max(start, earliest)
            request.endDate = try until.map { try DateArgument.require($0, "--until") } ?? Date()
            request.notificationType = type.map { NotificationType($0.uppercased()) }
            request.notificationSubtype = subtype.map { NotificationSubtype($0.uppercased()) }
            request.transactionId = transaction
            request.onlyFailures = failures ? true : nil
            let listing = await PagedListing.fetch(session.client.notificationHistoryPages(request: request), noun: "notifications", limit: limit) { page in
                var entries: [Entry] = []
                for item in page.notificationHistory ?? [] { entries.append(await Entry(item, session: session)) }
                return entries
            }
            try listing.requireFirstPage()
            var rows: [NotificationsOutput.Row] = []
            var table = TextTable("SIGNED", "TYPE", "SUBTYPE", "FIRST ATTEMPT", "TRIES", "LAST RESULT", "UUID")
            for entry in listing.items {
                let payload = entry.payload
                let attempts = entry.attempts
                rows.append(NotificationsOutput.Row(entry))
                table.add(
                    DisplayFormat.date(payload?.signedDate), payload?.notificationType?.rawValue ?? "?", payload?.subtype?.rawValue ?? "-",
                    attempts.first?.sendAttemptResult?.rawValue ?? "(none)", String(attempts.count),
                    attempts.last?.sendAttemptResult?.rawValue ?? "-", payload?.notificationUUID ?? "-")
                if rawOption.raw {
                    if let transaction = entry.transaction {
                        table.note("transactionId: \(transaction.transactionId ?? "-"), originalTransactionId: \(transaction.originalTransactionId ?? "-")")
                    }
                    table.note(Records.rawLine("signedPayload", entry.signedPayload))
                }
            }
            printer.emit(NotificationsOutput(environment: session.environment, rows: rows, listing: listing))
            let partial = listing.isPartial ? " (partial)" : ""
            printer.text(rows.isEmpty ? "No notifications match in \(session.environmentLabel)\(partial)." : "\(rows.count) notification\(rows.count == 1 ? "" : "s") in \(session.environmentLabel)\(partial)\n\n" + table.render())
            try listing.requireComplete(noun: "notifications")
            // The nested transaction and renewal info count too: each is signed on its own.
            try requireVerified(listing.items.flatMap { entry in
                [entry.decoded?.notification.status, entry.decoded?.transaction?.status, entry.decoded?.renewalInfo?.status].compactMap { $0 }
            })
        }
    }

    /// One notification of the history, decoded (and verified when a verifier can be made).
    struct Entry: Sendable {
        let decoded: DecodedNotification?
        let payload: NotificationPayload?
        /// The transaction the notification concerns (from its nested signed transaction), if any.
        let transaction: TransactionPayload?
        let attempts: [SendAttemptItem]
        /// The notification's signed string as Apple sent it.
        let signedPayload: String?

        init(_ item: NotificationHistoryResponseItem, session: Session) async {
            decoded = await item.signedPayload.asyncMap { await session.verification.notification($0) } ?? nil
            payload = decoded?.notification.payload
                ?? item.signedPayload.flatMap { session.verification.unverified($0, as: NotificationPayload.self).payload }
            transaction = decoded?.transaction?.payload
                ?? payload?.data?.signedTransactionInfo.flatMap { session.verification.unverified($0, as: TransactionPayload.self).payload }
            attempts = item.sendAttempts ?? []
            signedPayload = item.signedPayload
        }
    }
}

/// `notifications --json`: Apple's notification history, each notification with its send attempts.
struct NotificationsOutput: Encodable {
    struct Row: Encodable {
        var notificationUUID: String?
        var notificationType: NotificationType?
        var subtype: NotificationSubtype?
        var verification: VerificationRecord?
        var sendAttempts: [AttemptRecord]
        // What it concerns, and the signed strings exactly as Apple sent them.
        var transactionId: String?
        var originalTransactionId: String?
        var signedPayload: String?
        var signedTransactionInfo: String?
        var signedRenewalInfo: String?
        var signedDate: String?
        var signedDateMs: Int64?

        init(_ entry: NotificationsCommand.Entry) {
            let payload = entry.payload
            (notificationUUID, notificationType, subtype) = (payload?.notificationUUID, payload?.notificationType, payload?.subtype)
            verification = entry.decoded.map { VerificationRecord($0.notification.status, checks: $0.notification.checks) }
            sendAttempts = entry.attempts.map(AttemptRecord.init)
            (transactionId, originalTransactionId) = (entry.transaction?.transactionId, entry.transaction?.originalTransactionId)
            signedPayload = entry.signedPayload
            (signedTransactionInfo, signedRenewalInfo) = (payload?.data?.signedTransactionInfo, payload?.data?.signedRenewalInfo)
            (signedDate, signedDateMs) = DatePair.of(payload?.signedDate)
        }
    }

    var environment: AppStoreEnvironment
    var count: Int
    var notifications: [Row]
    var partial: Bool
    var stoppedBy: String?
    var error: String?

    init(environment: AppStoreEnvironment, rows: [Row], listing: PagedListing<NotificationsCommand.Entry>) {
        (self.environment, count, notifications) = (environment, rows.count, rows)
        (partial, stoppedBy, error) = listing.jsonEnd
    }
}
