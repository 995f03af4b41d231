import Foundation
import Synchronization
import SQLiteNIO

/// The lookups `reconcile` joins with Apple's history, and the replays table of `replay` and `recover`.
extension SQLiteNotificationStore {
    /// SQLite allows a bounded number of bound values per statement; large sets go in chunks.
    static let lookupChunk = 500

    public func notifications(uuids: Set<String>) async throws -> [StoredNotification] {
        var found: [StoredNotification] = []
        for chunk in Self.chunks(uuids.sorted()) {
            let marks = Array(repeating: "?", count: chunk.count).joined(separator: ", ")
            let sql = "SELECT * FROM notifications WHERE notification_uuid IN (\(marks)) ORDER BY id"
            let binds = chunk.map { SQLiteData.text($0) }
            let rows = try await gate.run { try await self.connection.query(sql, binds) }
            found += rows.map(Self.notification)
        }
        return found
    }

    public func count(concerning transactionIds: Set<String>) async throws -> Int {
        var seen: Set<Int64> = []
        for chunk in Self.chunks(transactionIds.sorted()) {
            let marks = Array(repeating: "?", count: chunk.count).joined(separator: ", ")
            let sql = "SELECT id FROM notifications WHERE transaction_id IN (\(marks)) OR original_transaction_id IN (\(marks))"
            let binds = (chunk + chunk).map { SQLiteData.text($0) }
            let rows = try await gate.run { try await self.connection.query(sql, binds) }
            seen.formUnion(rows.compactMap { $0.column("id")?.integer.map(Int64.init) })
        }
        return seen.count
    }

    public func notifications(signedIn window: Range<Date>, bodies: Bool) async throws -> [StoredNotification] {
        let lower = Self.ms(window.lowerBound)
        let upper = Self.ms(window.upperBound)
        let columns = bodies ? "*" : Self.columnsWithoutBodies
        // Each row becomes a notification as it is read: a window of many thousands never holds
        // the driver's rows and the notifications at once (watch's memory budget).
        let found = Mutex<[StoredNotification]>([])
        try await gate.run {
            try await self.connection.query(
                """
                SELECT \(columns) FROM notifications
                WHERE (signed_date_ms >= ? AND signed_date_ms < ?)
                   OR (signed_date_ms IS NULL AND first_received_ms >= ? AND first_received_ms < ?)
                ORDER BY COALESCE(signed_date_ms, first_received_ms), id
                """,
                [.integer(lower), .integer(upper), .integer(lower), .integer(upper)]
            ) { row in
                let notification = Self.notification(row)
                found.withLock { $0.append(notification) }
            }
        }
        return found.withLock { $0 }
    }

    @discardableResult
    public func recordReplay(_ replay: ReplayAttempt) async throws -> Int64 {
        let connection = self.connection
        return try await transaction {
            let rows = try await connection.query(
                """
                INSERT INTO replays (notification_uuid, target_url, source, command, sent_ms, result, status, elapsed_ms)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?) RETURNING id
                """,
                [
                    .text(replay.notificationUUID), .text(replay.targetURL), .text(replay.source.rawValue), .text(replay.command),
                    .integer(Self.ms(replay.sentAt)), .text(replay.result), replay.status.map { .integer(SQLiteInt64($0)) } ?? .null,
                    .float(replay.milliseconds),
                ])
            return Int64(rows.first?.column("id")?.integer ?? 0)
        }
    }

    public func replays(uuids: Set<String>) async throws -> [StoredReplay] {
        var found: [StoredReplay] = []
        for chunk in Self.chunks(uuids.sorted()) {
            let marks = Array(repeating: "?", count: chunk.count).joined(separator: ", ")
            let sql = "SELECT * FROM replays WHERE notification_uuid IN (\(marks)) ORDER BY id"
            let binds = chunk.map { SQLiteData.text($0) }
            let rows = try await gate.run { try await self.connection.query(sql, binds) }
            found += rows.map { row in
                StoredReplay(
                    id: Int64(row.column("id")?.integer ?? 0),
                    attempt: ReplayAttempt(
                        notificationUUID: row.column("notification_uuid")?.string ?? "", targetURL: row.column("target_url")?.string ?? "",
                        source: ReplayAttempt.Source(rawValue: row.column("source")?.string ?? "") ?? .store,
                        command: row.column("command")?.string ?? "", sentAt: Self.date(row.column("sent_ms")),
                        result: row.column("result")?.string ?? "", status: row.column("status")?.integer.map { Int($0) },
                        milliseconds: row.column("elapsed_ms")?.double ?? 0))
            }
        }
        return found.sorted { $0.id < $1.id }
    }

    /// Every column `notification(_:)` reads, the raw body and decoded payload left empty.
    static let columnsWithoutBodies = """
        id, notification_uuid, notification_type, subtype, environment, bundle_id, app_apple_id, transaction_id, original_transaction_id,
        product_id, signed_date_ms, verdict, verdict_detail, x'' AS raw_body, NULL AS decoded_payload, first_received_ms, last_received_ms,
        remote_address, answered_status, elapsed_ms, forward_result, forward_status, delivery_count, last_delivery_id
        """

    private static func chunks(_ values: [String]) -> [ArraySlice<String>] {
        stride(from: 0, to: values.count, by: lookupChunk).map { values[$0..<min($0 + lookupChunk, values.count)] }
    }
}
