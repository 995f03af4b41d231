import AppStoreServerAPI
import DeskStore
import Foundation

/// One notification of the join: Apple's entry, the store's row, or both, and its verdict.
public struct ReconcileRow: Sendable, Equatable {
    public var verdict: ReconcileVerdict
    public var notificationUUID: String
    public var apple: NotificationHistoryEntry?
    public var stored: StoredNotification?
    /// Its re-posts by `replay` and `recover`, oldest first.
    public var replays: [StoredReplay] = []

    /// The re-post that delivered it to the app, the latest if several did.
    public var recovery: StoredReplay? { replays.last { $0.attempt.succeeded } }

    /// When it was signed (Apple's, else the store's), else when it first arrived.
    public var time: Date {
        apple?.signedDate ?? stored?.signedDate ?? stored?.firstReceivedAt ?? .distantPast
    }

    public var notificationType: String? { apple?.notificationType ?? stored?.notificationType }
    public var subtype: String? { apple?.subtype ?? stored?.subtype }

    /// How long after it was signed the first delivery arrived here.
    public var arrivalAfterSigned: TimeInterval? {
        guard let stored, let signed = apple?.signedDate ?? stored.signedDate else { return nil }
        return stored.firstReceivedAt.timeIntervalSince(signed)
    }

    /// How long after Apple's first failed attempt the first delivery arrived here: near zero, the
    /// receiver took it but answered too late; hours, a retry brought it.
    public var arrivalAfterFailedAttempt: TimeInterval? {
        guard let stored, let failed = apple?.firstFailedAttempt?.attemptDate else { return nil }
        return stored.firstReceivedAt.timeIntervalSince(failed)
    }
}

/// The whole join over a window.
public struct ReconcileReport: Sendable, Equatable {
    public var window: Range<Date>
    /// Oldest first.
    public var rows: [ReconcileRow]
    /// History entries whose payload could not be decoded to a notificationUUID: they cannot be joined.
    public var unreadable: [NotificationHistoryEntry]

    /// Rows per verdict, every verdict present (0 when none).
    public var counts: [ReconcileVerdict: Int] {
        var counts = Dictionary(uniqueKeysWithValues: ReconcileVerdict.allCases.map { ($0, 0) })
        for row in rows { counts[row.verdict, default: 0] += 1 }
        return counts
    }

    /// A notification on one side only, or a history entry that could not be read.
    public var hasGaps: Bool { rows.contains { $0.verdict.isGap } || !unreadable.isEmpty }

    /// History entries that did not verify with the session's verifier (joined all the same).
    public var unverified: [ReconcileRow] {
        rows.filter { row in
            if case .failed = row.apple?.verification { return true }
            return false
        }
    }
}

/// Joins Apple's notification history with the store by notificationUUID. Pure: the caller fetches both sides.
public enum Reconciler {
    /// `stored` holds the store's rows for the history's UUIDs and its rows signed within `window`;
    /// store rows outside the window that Apple does not list are left out. A notification missing
    /// here that a re-post in `replays` delivered to the app (2xx) is recovered, not missing.
    public static func reconcile(
        history: [NotificationHistoryEntry], stored: [StoredNotification], replays: [StoredReplay] = [], window: Range<Date>
    ) -> ReconcileReport {
        var replaysByUUID: [String: [StoredReplay]] = [:]
        for replay in replays.sorted(by: { $0.id < $1.id }) { replaysByUUID[key(replay.attempt.notificationUUID), default: []].append(replay) }
        // Positions, not copies: a window of many thousands of rows is held once (watch's memory budget).
        var storedByUUID: [String: Int] = [:]
        storedByUUID.reserveCapacity(stored.count)
        for (index, row) in stored.enumerated() { storedByUUID[key(row.notificationUUID)] = index }
        var rows: [ReconcileRow] = []
        rows.reserveCapacity(history.count + stored.count)
        var unreadable: [NotificationHistoryEntry] = []
        var seen: Set<String> = []
        for entry in history {
            guard let uuid = entry.notificationUUID, !uuid.isEmpty else {
                unreadable.append(entry)
                continue
            }
            // Apple lists a notification once; a repeat across pages adds nothing.
            guard seen.insert(key(uuid)).inserted else { continue }
            let match = storedByUUID[key(uuid)].map { stored[$0] }
            var row = ReconcileRow(verdict: verdict(apple: entry, stored: match), notificationUUID: uuid, apple: entry, stored: match)
            row.replays = replaysByUUID[key(uuid)] ?? []
            if let recovery = row.recovery {
                // Missing; here but its forward to the app failed; or here only because the re-post
                // brought it (to a receiver in front of the app): it reached the app by the re-post.
                let forwardFailed = match.map { $0.forwardResult != nil && !($0.forwardStatus.map { (200...299).contains($0) } ?? false) } ?? false
                let broughtHere = match.map { $0.firstReceivedAt >= recovery.attempt.sentAt.addingTimeInterval(-1) } ?? false
                if (row.verdict.isGap && match == nil) || forwardFailed || broughtHere { row.verdict = .recovered }
            }
            rows.append(row)
        }
        for row in stored where !seen.contains(key(row.notificationUUID)) && inWindow(row, window) {
            seen.insert(key(row.notificationUUID))
            let verdict: ReconcileVerdict = row.notificationType == "TEST" ? .testNotification : .unknownToApple
            rows.append(ReconcileRow(
                verdict: verdict, notificationUUID: row.notificationUUID, apple: nil, stored: row, replays: replaysByUUID[key(row.notificationUUID)] ?? []))
        }
        rows.sort { ($0.time, $0.notificationUUID) < ($1.time, $1.notificationUUID) }
        return ReconcileReport(window: window, rows: rows, unreadable: unreadable)
    }

    /// The verdict of a notification as the store alone knows it (the Live pane: no Apple history
    /// at hand): its forward, its re-posts and its deliveries, by the same rules as the join.
    public static func verdict(arrival stored: StoredNotification, replays: [StoredReplay]) -> ReconcileVerdict {
        var verdict: ReconcileVerdict = stored.notificationType == "TEST" ? .testNotification : .received
        if let status = stored.forwardStatus, !(200...299).contains(status) { verdict = .forwardFailed }
        if stored.forwardResult != nil, stored.forwardStatus == nil { verdict = .forwardFailed }
        if verdict == .received, stored.deliveryCount > 1 { verdict = .duplicate }
        if verdict == .forwardFailed, replays.contains(where: { $0.attempt.succeeded && key($0.attempt.notificationUUID) == key(stored.notificationUUID) }) {
            verdict = .recovered
        }
        return verdict
    }

    static func verdict(apple: NotificationHistoryEntry, stored: StoredNotification?) -> ReconcileVerdict {
        guard let stored else { return apple.deliveredPerApple ? .deliveredButMissing : .notDeliveredAndMissing }
        // Stored is not reached: a receiver that forwards and failed to leaves the app without it.
        if let status = stored.forwardStatus, !(200...299).contains(status) { return .forwardFailed }
        if stored.forwardResult != nil, stored.forwardStatus == nil { return .forwardFailed }
        if stored.deliveryCount > 1 { return .duplicate }
        if !apple.deliveredPerApple || apple.firstFailedAttempt != nil { return .failedAtAppleButArrived }
        return .received
    }

    /// Apple selects by signedDate; a stored row without one counts by its first arrival.
    static func inWindow(_ row: StoredNotification, _ window: Range<Date>) -> Bool {
        window.contains(row.signedDate ?? row.firstReceivedAt)
    }

    /// UUIDs compare without case: Apple writes them in lower case, others may not.
    static func key(_ uuid: String) -> String { uuid.lowercased() }
}
