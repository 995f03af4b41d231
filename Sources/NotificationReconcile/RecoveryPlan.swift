import AppStoreServerAPI
import DeskStore
import Foundation

/// What `iapdesk recover` re-posts: every notification of Apple's history that did not reach the
/// app: not in the store (Apple could not deliver it, or delivered it elsewhere), or in it but its
/// forward to the app failed. Pure: the caller fetches the history, the store's rows and earlier replays.
public struct RecoveryPlan: Sendable, Equatable {
    public struct Candidate: Sendable, Equatable {
        public var notificationUUID: String
        public var notificationType: String?
        public var subtype: String?
        public var signedDate: Date?
        /// The bytes to POST: the stored raw body, else `{"signedPayload": ...}` from Apple's history.
        public var body: Data
        public var source: ReplayAttempt.Source
        /// Why it is re-posted, in words.
        public var reason: String
    }

    public struct Skipped: Sendable, Equatable {
        public var notificationUUID: String?
        public var reason: String
    }

    public var candidates: [Candidate]
    /// Notifications Apple could not deliver that are not re-posted, with why.
    public var skipped: [Skipped]

    public static func make(history: [NotificationHistoryEntry], stored: [StoredNotification], replays: [StoredReplay], target: String) -> RecoveryPlan {
        var storedByUUID: [String: StoredNotification] = [:]
        for row in stored { storedByUUID[Reconciler.key(row.notificationUUID)] = row }
        var recovered: [String: StoredReplay] = [:]
        for replay in replays where replay.attempt.succeeded && replay.attempt.targetURL == target {
            recovered[Reconciler.key(replay.attempt.notificationUUID)] = replay
        }
        var plan = RecoveryPlan(candidates: [], skipped: [])
        var seen: Set<String> = []
        for entry in history {
            // Delivered by Apple and here: it reached the app as the store is its receiver or forwards it.
            if entry.deliveredPerApple, let uuid = entry.notificationUUID, let row = storedByUUID[Reconciler.key(uuid)],
               row.forwardResult == nil || row.forwardStatus.map({ (200...299).contains($0) }) == true {
                continue
            }
            guard let uuid = entry.notificationUUID, !uuid.isEmpty else {
                plan.skipped.append(Skipped(notificationUUID: nil, reason: "its signed payload cannot be decoded"))
                continue
            }
            guard seen.insert(Reconciler.key(uuid)).inserted else { continue }
            if let earlier = recovered[Reconciler.key(uuid)] {
                plan.skipped.append(Skipped(notificationUUID: uuid, reason: "already recovered to this URL (\(earlier.attempt.result))"))
                continue
            }
            var candidate = Candidate(
                notificationUUID: uuid, notificationType: entry.notificationType, subtype: entry.subtype, signedDate: entry.signedDate,
                body: Data(), source: .appleHistory, reason: "")
            let lastResult = entry.lastAttempt?.sendAttemptResult?.rawValue ?? "no attempt yet"
            if let row = storedByUUID[Reconciler.key(uuid)] {
                guard let forward = row.forwardResult else {
                    plan.skipped.append(Skipped(notificationUUID: uuid, reason: "arrived here and was not forwarded: use replay to send it on"))
                    continue
                }
                if let status = row.forwardStatus, (200...299).contains(status) {
                    plan.skipped.append(Skipped(notificationUUID: uuid, reason: "arrived here and its forward succeeded (\(forward))"))
                    continue
                }
                candidate.body = row.rawBody
                candidate.source = .store
                candidate.reason = "Apple: \(lastResult); arrived here but the forward failed (\(forward))"
            } else {
                if case .failed(let failure) = entry.verification {
                    plan.skipped.append(Skipped(notificationUUID: uuid, reason: "Apple's payload did not verify (\(failure.appleStatus)): not sent"))
                    continue
                }
                guard let body = entry.webhookBody else {
                    plan.skipped.append(Skipped(notificationUUID: uuid, reason: "Apple's history carries no signedPayload"))
                    continue
                }
                candidate.body = body
                candidate.reason = entry.deliveredPerApple
                    ? "Apple: SUCCESS to the URL it has, yet it never arrived here" : "Apple: \(lastResult); never arrived here"
            }
            plan.candidates.append(candidate)
        }
        plan.candidates.sort { ($0.signedDate ?? .distantPast, $0.notificationUUID) < ($1.signedDate ?? .distantPast, $1.notificationUUID) }
        return plan
    }
}
