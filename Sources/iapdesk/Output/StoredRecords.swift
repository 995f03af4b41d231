import DeskStore
import Foundation

/// What the store keeps, as `--json` shows it: `received`'s notifications, re-posts and
/// quarantined bodies, and the re-posts in `reconcile`'s rows.
enum StoredRecords {
    static func record(_ row: StoredNotification) -> [String: Any?] {
        var record: [String: Any?] = [
            "notificationUUID": row.notificationUUID, "notificationType": row.notificationType, "subtype": row.subtype,
            "environment": row.environment, "bundleId": row.bundleId, "appAppleId": row.appAppleId, "transactionId": row.transactionId,
            "originalTransactionId": row.originalTransactionId, "productId": row.productId, "verdict": row.verdict,
            "verdictDetail": row.verdictDetail, "deliveryCount": row.deliveryCount, "answeredStatus": row.answeredStatus,
            "elapsedMs": row.elapsedMilliseconds, "remoteAddress": row.remoteAddress, "forwardResult": row.forwardResult, "forwardStatus": row.forwardStatus,
            "signedPayload": signedPayload(row.rawBody),
        ]
        record.merge(Printer.date("signedDate", row.signedDate))
        record.merge(Printer.date("firstReceivedAt", row.firstReceivedAt))
        record.merge(Printer.date("lastReceivedAt", row.lastReceivedAt))
        return record
    }

    static func record(_ replay: StoredReplay) -> [String: Any?] {
        var record: [String: Any?] = [
            "command": replay.attempt.command, "targetURL": replay.attempt.targetURL, "source": replay.attempt.source.rawValue,
            "result": replay.attempt.result, "status": replay.attempt.status, "succeeded": replay.attempt.succeeded, "elapsedMs": replay.attempt.milliseconds,
        ]
        record.merge(Printer.date("sentAt", replay.attempt.sentAt))
        return record
    }

    static func record(_ entry: QuarantinedDelivery) -> [String: Any?] {
        var record: [String: Any?] = [
            "reason": entry.reason, "detail": entry.detail, "answeredStatus": entry.answeredStatus, "bodySize": entry.bodySize,
            "truncated": entry.truncated, "notificationUUID": entry.notificationUUID, "notificationType": entry.notificationType,
            "remoteAddress": entry.remoteAddress, "elapsedMs": entry.elapsedMilliseconds,
            "body": String(data: entry.body, encoding: .utf8) ?? entry.body.base64EncodedString(),
            "bodyEncoding": String(data: entry.body, encoding: .utf8) == nil ? "base64" : "utf8",
            "count": entry.count, "bodySHA256": entry.bodyHash,
        ]
        record.merge(Printer.date("receivedAt", entry.receivedAt))
        if let last = entry.lastReceivedAt { record.merge(Printer.date("lastReceivedAt", last)) }
        return record
    }

    static func signedPayload(_ body: Data) -> String? {
        (try? JSONSerialization.jsonObject(with: body) as? [String: Any])?["signedPayload"] as? String
    }
}
