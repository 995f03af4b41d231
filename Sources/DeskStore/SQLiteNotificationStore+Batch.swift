import Foundation
import SQLiteNIO

/// A batch of deliveries written with one statement per table instead of five statements per
/// delivery (savepoint, upsert, delivery row, last delivery, release). Every statement is a trip
/// to SQLite's thread and back, made one after another while later deliveries wait for the batch's
/// commit, so the trips, not SQLite, set how long a batch holds the store.
extension SQLiteNotificationStore {
    /// Rows per statement: 19 bound values each stays far below SQLite's limit of 32,766.
    static let rowsPerStatement = 128

    /// Inserts or counts every delivery, in order, inside the caller's transaction. Throws when
    /// any of them fails: the caller rolls back and writes them one by one to find which.
    func insertAll(_ deliveries: [NotificationDelivery]) async throws -> [RecordOutcome] {
        var outcomes: [RecordOutcome] = []
        outcomes.reserveCapacity(deliveries.count)
        var start = 0
        while start < deliveries.count {
            let chunk = deliveries[start..<min(deliveries.count, start + Self.rowsPerStatement)]
            outcomes += try await insertChunk(chunk)
            start = chunk.endIndex
        }
        // The index only saves a later lookup: a failure to write it never costs a notification its 200.
        try? await insertAccountLinks(AccountLink.merged(deliveries.flatMap(\.accountLinks)))
        return outcomes
    }

    private func insertChunk(_ deliveries: ArraySlice<NotificationDelivery>) async throws -> [RecordOutcome] {
        let connection = self.connection
        // The UNIQUE notificationUUID decides, row by row in VALUES order: a UUID seen before
        // (stored, or earlier in this batch) only counts one more delivery.
        var binds: [SQLiteData] = []
        binds.reserveCapacity(deliveries.count * 19)
        for delivery in deliveries {
            binds += Self.notificationBinds(delivery)
        }
        let upserted = try await connection.query(
            """
            INSERT INTO notifications (
                notification_uuid, notification_type, subtype, environment, bundle_id, app_apple_id, transaction_id,
                original_transaction_id, product_id, signed_date_ms, verdict, verdict_detail, raw_body, decoded_payload,
                first_received_ms, last_received_ms, remote_address, answered_status, elapsed_ms
            ) VALUES \(Self.rows(deliveries.count, of: 19))
            ON CONFLICT(notification_uuid) DO UPDATE SET
                delivery_count = delivery_count + 1, last_received_ms = excluded.last_received_ms,
                remote_address = excluded.remote_address, answered_status = excluded.answered_status,
                elapsed_ms = excluded.elapsed_ms
            RETURNING id, delivery_count, notification_uuid
            """, binds)
        // RETURNING's order is not promised: each UUID's rows are matched to its deliveries by count
        // (a UUID twice in the batch is counted twice, the earlier delivery first).
        var byUUID: [String: [(count: Int, id: Int64)]] = [:]
        for row in upserted {
            guard let id = row.column("id")?.integer, let count = row.column("delivery_count")?.integer,
                  let uuid = row.column("notification_uuid")?.string
            else { throw NotificationStoreError.unwritable(path: path, reason: "the upsert returned an incomplete row") }
            byUUID[uuid, default: []].append((Int(count), Int64(id)))
        }
        for uuid in byUUID.keys { byUUID[uuid]!.sort { $0.count > $1.count } }
        var notifications: [(id: Int64, count: Int)] = []
        notifications.reserveCapacity(deliveries.count)
        for delivery in deliveries {
            guard let next = byUUID[delivery.notificationUUID]?.popLast() else {
                throw NotificationStoreError.unwritable(path: path, reason: "the upsert returned no row for a delivery")
            }
            notifications.append((next.id, next.count))
        }

        binds.removeAll(keepingCapacity: true)
        for (delivery, notification) in zip(deliveries, notifications) {
            binds += [
                .integer(SQLiteInt64(notification.id)), .integer(Self.ms(delivery.receivedAt)), Self.text(delivery.remoteAddress),
                .integer(SQLiteInt64(delivery.answeredStatus)), .float(delivery.elapsedMilliseconds),
            ]
        }
        let inserted = try await connection.query(
            """
            INSERT INTO deliveries (notification_id, received_ms, remote_address, answered_status, elapsed_ms)
            VALUES \(Self.rows(deliveries.count, of: 5)) RETURNING id, notification_id
            """, binds)
        // Rows are inserted in VALUES order with rising IDs; each is checked against its delivery.
        let deliveryRows = inserted.compactMap { row -> (id: Int64, notification: Int64)? in
            guard let id = row.column("id")?.integer, let notification = row.column("notification_id")?.integer else { return nil }
            return (Int64(id), Int64(notification))
        }.sorted { $0.id < $1.id }
        guard deliveryRows.count == notifications.count,
              zip(deliveryRows, notifications).allSatisfy({ $0.notification == $1.id })
        else { throw NotificationStoreError.unwritable(path: path, reason: "the deliveries were not recorded") }

        // Each notification points at its latest delivery.
        var latest: [Int64: Int64] = [:]
        for (row, notification) in zip(deliveryRows, notifications) { latest[notification.id] = row.id }
        binds.removeAll(keepingCapacity: true)
        for (notification, delivery) in latest { binds += [.integer(SQLiteInt64(notification)), .integer(SQLiteInt64(delivery))] }
        _ = try await connection.query(
            """
            UPDATE notifications SET last_delivery_id = latest.column2
            FROM (VALUES \(Self.rows(latest.count, of: 2))) AS latest WHERE notifications.id = latest.column1
            """, binds)
        return zip(deliveryRows, notifications).map { RecordOutcome(id: $1.id, deliveryId: $0.id, deliveryCount: $1.count) }
    }

    /// `(?, ?), (?, ?)` for `count` rows of `width` values.
    static func rows(_ count: Int, of width: Int) -> String {
        let row = "(" + Array(repeating: "?", count: width).joined(separator: ", ") + ")"
        return Array(repeating: row, count: count).joined(separator: ", ")
    }
}
