import AppStoreServerAPI
import DeskCore
import Foundation
import NotificationReconcile

/// The date window `reconcile` and `recover` read Apple's Get Notification History for, kept
/// within what Apple keeps (180 days in Production, 30 in Sandbox).
struct NotificationHistoryWindow {
    var range: Range<Date>
    /// Said on standard error when --since asked for more than Apple keeps.
    var clampNote: String?

    static func make(since: String, until: String?, environment: AppStoreEnvironment, now: Date = Date()) throws -> NotificationHistoryWindow {
        var start = try DateArgument.require(since, "--since", now: now)
        // Apple reads a future end as now.
        let end = min(try until.map { try DateArgument.require($0, "--until", now: now) } ?? now, now)
        guard start < end else {
            throw CLIError("--since \(since) is not before --until \(until ?? "now").", hint: "Give a --since earlier than --until.", status: .usage)
        }
        let days = environment.notificationHistoryRetentionDays
        // A minute inside the limit, so the server's clock (a little later than ours) still accepts it.
        let oldest = now.addingTimeInterval(-environment.notificationHistoryRetention + 60)
        var note: String?
        if start < oldest {
            guard end > oldest else {
                throw CLIError(
                    "Apple keeps \(days) days of notification history in \(environment.label): the window ends before that.",
                    hint: "Give a --until within the last \(days) days.", status: .usage)
            }
            // `--since 180d` asks for exactly what Apple keeps: only a start moved further is worth saying.
            if oldest.timeIntervalSince(start) > 3600 {
                note = "Apple keeps \(days) days of notification history in \(environment.label): reading from \(DisplayFormat.date(oldest)), not \(DisplayFormat.date(start))."
            }
            start = oldest
        }
        return NotificationHistoryWindow(range: start..<end, clampNote: note)
    }
}

/// Apple's notification history as the entries the join reads.
enum NotificationHistoryFetch {
    /// Every notification signed in the window, or a failure: a join over part of the history would
    /// call the rest "unknown to Apple".
    static func entries(_ session: Session, window: Range<Date>, onlyFailures: Bool = false) async throws -> [NotificationHistoryEntry] {
        var request = NotificationHistoryRequest()
        request.startDate = window.lowerBound
        request.endDate = window.upperBound
        request.onlyFailures = onlyFailures ? true : nil
        let listing = await PagedListing.fetch(session.client.notificationHistoryPages(request: request), noun: "notifications") { page in
            var entries: [NotificationHistoryEntry] = []
            for item in page.notificationHistory ?? [] { entries.append(await entry(item, session: session)) }
            return entries
        }
        try listing.requireFirstPage()
        let read = "\(listing.items.count) notifications in \(listing.pages) page\(listing.pages == 1 ? "" : "s")"
        switch listing.end {
        case .complete, .stopped: return listing.items
        case .interrupted:
            throw CLIError("Interrupted while reading Apple's notification history (\(read) read): nothing was compared.", status: .interrupted)
        case .failed(let error):
            let cause = CLIError(error)
            throw CLIError(
                "Apple's notification history stopped after \(read): \(error.summary) Nothing was compared.", hint: cause.hint, status: cause.status)
        }
    }

    /// Decodes one history item, verifying it with the session's verifier when there is one; an
    /// entry that does not verify is kept with its failure.
    static func entry(_ item: NotificationHistoryResponseItem, session: Session) async -> NotificationHistoryEntry {
        let decoded = await item.signedPayload.asyncMap { await session.verification.notification($0) } ?? nil
        let payload = decoded?.notification.payload
            ?? item.signedPayload.flatMap { session.verification.unverified($0, as: NotificationPayload.self).payload }
        let verification: VerificationStatus
        if let decoded {
            // The nested transaction and renewal info are signed on their own and count too.
            let statuses = [decoded.notification.status, decoded.transaction?.status, decoded.renewalInfo?.status].compactMap { $0 }
            verification = statuses.first { !$0.isVerified } ?? .verified
        } else {
            verification = .notChecked(item.signedPayload == nil ? "no signedPayload" : session.verifierProblem ?? "no verifier")
        }
        return NotificationHistoryEntry(
            notificationUUID: payload?.notificationUUID, notificationType: payload?.notificationType?.rawValue, subtype: payload?.subtype?.rawValue,
            signedDate: payload?.signedDate, attempts: item.sendAttempts ?? [], signedPayload: item.signedPayload, verification: verification)
    }
}
