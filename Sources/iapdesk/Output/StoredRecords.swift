import DeskStore
import Foundation

// What the store keeps, as `--json` shows it: `received`'s notifications, re-posts and
// quarantined bodies (also one a line with `--follow`), and the re-posts in `reconcile`'s rows.

/// A notification `listen` stored; `replays` only in `received`'s document, when it was re-posted.
struct StoredNotificationRecord: Encodable {
    var notificationUUID: String
    var notificationType: String?
    var subtype: String?
    var environment: String?
    var bundleId: String?
    var appAppleId: Int64?
    var transactionId: String?
    var originalTransactionId: String?
    var productId: String?
    var verdict: String
    var verdictDetail: String?
    var deliveryCount: Int
    var answeredStatus: Int
    var elapsedMs: Double
    var remoteAddress: String?
    var forwardResult: String?
    var forwardStatus: Int?
    var signedPayload: String?
    var signedDate: String?
    var signedDateMs: Int64?
    var firstReceivedAt: String?
    var firstReceivedAtMs: Int64?
    var lastReceivedAt: String?
    var lastReceivedAtMs: Int64?
    var replays: [ReplayRecord]?

    init(_ row: StoredNotification, replays: [StoredReplay]? = nil) {
        (notificationUUID, notificationType, subtype, environment) = (row.notificationUUID, row.notificationType, row.subtype, row.environment)
        (bundleId, appAppleId, transactionId) = (row.bundleId, row.appAppleId, row.transactionId)
        (originalTransactionId, productId, verdict, verdictDetail) = (row.originalTransactionId, row.productId, row.verdict, row.verdictDetail)
        (deliveryCount, answeredStatus, elapsedMs) = (row.deliveryCount, row.answeredStatus, row.elapsedMilliseconds)
        (remoteAddress, forwardResult, forwardStatus) = (row.remoteAddress, row.forwardResult, row.forwardStatus)
        signedPayload = StoredRecords.signedPayload(row.rawBody)
        (signedDate, signedDateMs) = DatePair.of(row.signedDate)
        (firstReceivedAt, firstReceivedAtMs) = DatePair.of(row.firstReceivedAt)
        (lastReceivedAt, lastReceivedAtMs) = DatePair.of(row.lastReceivedAt)
        self.replays = replays?.map(ReplayRecord.init)
    }
}

/// A re-post by `replay` or `recover`, as the store recorded it.
struct ReplayRecord: Encodable {
    var command: String
    var targetURL: String
    var source: String
    var result: String
    var status: Int?
    var succeeded: Bool
    var elapsedMs: Double
    var sentAt: String?
    var sentAtMs: Int64?

    init(_ replay: StoredReplay) {
        let attempt = replay.attempt
        (command, targetURL, source, result) = (attempt.command, attempt.targetURL, attempt.source.rawValue, attempt.result)
        (status, succeeded, elapsedMs) = (attempt.status, attempt.succeeded, attempt.milliseconds)
        (sentAt, sentAtMs) = DatePair.of(attempt.sentAt)
    }
}

/// A refused body `listen` kept, with why it was refused; the body as text, or base64 when it is not UTF-8.
struct QuarantineRecord: Encodable {
    var reason: String
    var detail: String
    var answeredStatus: Int
    var bodySize: Int
    var truncated: Bool
    var notificationUUID: String?
    var notificationType: String?
    var remoteAddress: String?
    var elapsedMs: Double
    var body: String
    var bodyEncoding: String
    var count: Int
    var bodySHA256: String?
    var receivedAt: String?
    var receivedAtMs: Int64?
    var lastReceivedAt: String?
    var lastReceivedAtMs: Int64?

    init(_ entry: QuarantinedDelivery) {
        (reason, detail, answeredStatus, bodySize, truncated) = (entry.reason, entry.detail, entry.answeredStatus, entry.bodySize, entry.truncated)
        (notificationUUID, notificationType, remoteAddress) = (entry.notificationUUID, entry.notificationType, entry.remoteAddress)
        elapsedMs = entry.elapsedMilliseconds
        let text = String(data: entry.body, encoding: .utf8)
        body = text ?? entry.body.base64EncodedString()
        bodyEncoding = text == nil ? "base64" : "utf8"
        (count, bodySHA256) = (entry.count, entry.bodyHash)
        (receivedAt, receivedAtMs) = DatePair.of(entry.receivedAt)
        (lastReceivedAt, lastReceivedAtMs) = DatePair.of(entry.lastReceivedAt)
    }
}

enum StoredRecords {
    static func signedPayload(_ body: Data) -> String? {
        (try? JSONSerialization.jsonObject(with: body) as? [String: Any])?["signedPayload"] as? String
    }
}
