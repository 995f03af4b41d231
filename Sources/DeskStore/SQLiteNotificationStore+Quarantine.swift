import Foundation
import SQLiteNIO

/// The quarantine within its limits: identical bodies share a row, and triggers keep the rows' count
/// and bytes in `quarantine_usage`, so a write knows whether to drop old rows without summing them.
extension SQLiteNotificationStore: BoundedQuarantine {
    static let quarantineBounds = [
        "ALTER TABLE quarantine ADD COLUMN body_hash TEXT",
        "ALTER TABLE quarantine ADD COLUMN times INTEGER NOT NULL DEFAULT 1",
        "ALTER TABLE quarantine ADD COLUMN last_received_ms INTEGER",
        "CREATE UNIQUE INDEX quarantine_hash ON quarantine(body_hash)",
        "CREATE TABLE quarantine_usage (id INTEGER PRIMARY KEY CHECK (id = 1), bodies INTEGER NOT NULL, bytes INTEGER NOT NULL)",
        "INSERT INTO quarantine_usage SELECT 1, count(*), coalesce(sum(length(body)), 0) FROM quarantine",
        """
        CREATE TRIGGER quarantine_added AFTER INSERT ON quarantine BEGIN
            UPDATE quarantine_usage SET bodies = bodies + 1, bytes = bytes + length(NEW.body);
        END
        """,
        """
        CREATE TRIGGER quarantine_removed AFTER DELETE ON quarantine BEGIN
            UPDATE quarantine_usage SET bodies = bodies - 1, bytes = bytes - length(OLD.body);
        END
        """,
    ]

    public func quarantine(_ bodies: [HashedRefusal], within limits: QuarantineLimits) async throws -> QuarantineWrite {
        let connection = self.connection
        return try await transaction {
            var kept: [QuarantineWrite.Kept] = []
            for entry in bodies {
                let body = entry.refused
                let (data, cut) = limits.kept(body.body)
                let rows = try await connection.query(
                    """
                    INSERT INTO quarantine (
                        reason, detail, body, body_size, truncated, notification_uuid, notification_type, received_ms,
                        remote_address, answered_status, elapsed_ms, body_hash, last_received_ms
                    ) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                    ON CONFLICT(body_hash) DO UPDATE SET
                        times = times + 1, last_received_ms = excluded.received_ms, reason = excluded.reason, detail = excluded.detail,
                        remote_address = excluded.remote_address, answered_status = excluded.answered_status
                    RETURNING id, times
                    """,
                    [
                        .text(body.reason), .text(body.detail), .blob(ByteBuffer(bytes: data)), .integer(SQLiteInt64(body.bodySize)),
                        .integer(body.truncated || cut ? 1 : 0), Self.text(body.notificationUUID), Self.text(body.notificationType),
                        .integer(Self.ms(body.receivedAt)), Self.text(body.remoteAddress), .integer(SQLiteInt64(body.answeredStatus)),
                        .float(body.elapsedMilliseconds), .text(entry.bodyHash), .integer(Self.ms(body.receivedAt)),
                    ])
                guard let row = rows.first, let id = row.column("id")?.integer, let times = row.column("times")?.integer else {
                    throw NotificationStoreError.unwritable(path: self.path, reason: "the quarantine upsert returned no row")
                }
                kept.append(.init(id: Int64(id), count: Int(times)))
            }
            return QuarantineWrite(kept: kept, dropped: try await self.dropOldest(within: limits))
        }
    }

    public func quarantineUsage() async throws -> (bodies: Int, bytes: Int) {
        try await gate.run { try await self.usage() }
    }

    private func usage() async throws -> (bodies: Int, bytes: Int) {
        let row = try await connection.query("SELECT bodies, bytes FROM quarantine_usage").first
        return (Int(row?.column("bodies")?.integer ?? 0), Int(row?.column("bytes")?.integer ?? 0))
    }

    /// Removes the oldest rows until both limits hold; how many were removed.
    private func dropOldest(within limits: QuarantineLimits) async throws -> Int {
        var (bodies, bytes) = try await usage()
        guard bodies > limits.maxBodies || bytes > limits.maxBytes else { return 0 }
        var dropped = 0
        var last: Int64?
        while bodies > limits.maxBodies || bytes > limits.maxBytes {
            let oldest = try await connection.query(
                "SELECT id, length(body) AS size FROM quarantine WHERE id > ? ORDER BY id LIMIT 256", [.integer(SQLiteInt64(last ?? 0))])
            guard !oldest.isEmpty else { break }
            for row in oldest where bodies > limits.maxBodies || bytes > limits.maxBytes {
                last = Int64(row.column("id")?.integer ?? 0)
                bodies -= 1
                bytes -= Int(row.column("size")?.integer ?? 0)
                dropped += 1
            }
        }
        if let last { _ = try await connection.query("DELETE FROM quarantine WHERE id <= ?", [.integer(SQLiteInt64(last))]) }
        return dropped
    }
}

extension QuarantinedDelivery {
    /// With the count, last arrival and hash of a row that has them (schema 5 on).
    func counted(_ row: SQLiteRow) -> QuarantinedDelivery {
        var entry = self
        entry.count = Int(row.column("times")?.integer ?? 1)
        entry.lastReceivedAt = row.column("last_received_ms").flatMap { $0.isNull ? nil : SQLiteNotificationStore.date($0) }
        entry.bodyHash = row.column("body_hash")?.string
        return entry
    }
}
