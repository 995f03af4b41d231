import DeskStore
import Foundation
import PostgresNIO

/// The quarantine within its limits, as in the SQLite store: identical bodies share a row, and a
/// trigger keeps the rows' count and bytes in `quarantine_usage`.
extension PostgresNotificationStore: BoundedQuarantine {
    static let quarantineBounds = [
        "ALTER TABLE quarantine ADD COLUMN body_hash TEXT",
        "ALTER TABLE quarantine ADD COLUMN times INTEGER NOT NULL DEFAULT 1",
        "ALTER TABLE quarantine ADD COLUMN last_received TIMESTAMPTZ",
        "CREATE UNIQUE INDEX quarantine_hash ON quarantine(body_hash)",
        "CREATE TABLE quarantine_usage (id INTEGER PRIMARY KEY CHECK (id = 1), bodies BIGINT NOT NULL, bytes BIGINT NOT NULL)",
        "INSERT INTO quarantine_usage SELECT 1, count(*), coalesce(sum(length(body)), 0) FROM quarantine",
        """
        CREATE FUNCTION iapdesk_quarantine_usage() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            IF TG_OP = 'INSERT' THEN
                UPDATE quarantine_usage SET bodies = bodies + 1, bytes = bytes + length(NEW.body);
                RETURN NEW;
            END IF;
            UPDATE quarantine_usage SET bodies = bodies - 1, bytes = bytes - length(OLD.body);
            RETURN OLD;
        END
        $$
        """,
        "CREATE TRIGGER quarantine_usage AFTER INSERT OR DELETE ON quarantine FOR EACH ROW EXECUTE FUNCTION iapdesk_quarantine_usage()",
    ]

    public func quarantine(_ bodies: [HashedRefusal], within limits: QuarantineLimits) async throws -> QuarantineWrite {
        try await run {
            try await self.client.withTransaction(logger: Self.logger) { connection in
                try await Self.holdArrivals(connection)
                var kept: [QuarantineWrite.Kept] = []
                for entry in bodies {
                    let body = entry.refused
                    let (data, cut) = limits.kept(body.body)
                    let received = Self.rounded(body.receivedAt)
                    let rows = try await connection.query(
                        """
                        INSERT INTO quarantine (
                            reason, detail, body, body_size, truncated, notification_uuid, notification_type, received,
                            remote_address, answered_status, elapsed_ms, body_hash, last_received
                        ) VALUES (
                            \(body.reason), \(body.detail), \(data), \(body.bodySize), \(body.truncated || cut), \(body.notificationUUID),
                            \(body.notificationType), \(received), \(body.remoteAddress), \(body.answeredStatus),
                            \(body.elapsedMilliseconds), \(entry.bodyHash), \(received)
                        )
                        ON CONFLICT (body_hash) DO UPDATE SET
                            times = quarantine.times + 1, last_received = excluded.received, reason = excluded.reason,
                            detail = excluded.detail, remote_address = excluded.remote_address, answered_status = excluded.answered_status
                        RETURNING id, times
                        """, logger: Self.logger)
                    var row: (Int64, Int)?
                    for try await value in rows.decode((Int64, Int).self) { row = value }
                    guard let row else { throw StoreFailure("the quarantine upsert returned no row") }
                    kept.append(.init(id: row.0, count: row.1))
                }
                return QuarantineWrite(kept: kept, dropped: try await Self.dropOldest(within: limits, on: connection))
            }
        }
    }

    public func quarantineUsage() async throws -> (bodies: Int, bytes: Int) {
        try await run {
            let rows = try await self.client.query("SELECT bodies, bytes FROM quarantine_usage", logger: Self.logger)
            for try await (bodies, bytes) in rows.decode((Int, Int).self) { return (bodies, bytes) }
            return (0, 0)
        }
    }

    /// Removes the oldest rows until both limits hold; how many were removed.
    private static func dropOldest(within limits: QuarantineLimits, on connection: PostgresConnection) async throws -> Int {
        let usage = try await connection.query("SELECT bodies, bytes FROM quarantine_usage", logger: logger)
        var bodies = 0
        var bytes = 0
        for try await (count, size) in usage.decode((Int, Int).self) { (bodies, bytes) = (count, size) }
        guard bodies > limits.maxBodies || bytes > limits.maxBytes else { return 0 }
        // The newest rows that fit within both limits stay; everything older goes.
        let rows = try await connection.query(
            """
            WITH kept AS (
                SELECT id, row_number() OVER (ORDER BY id DESC) AS n, sum(length(body)) OVER (ORDER BY id DESC) AS running
                FROM quarantine
            ), removed AS (
                DELETE FROM quarantine WHERE id IN (SELECT id FROM kept WHERE n > \(limits.maxBodies) OR running > \(limits.maxBytes))
                RETURNING id
            )
            SELECT count(*) FROM removed
            """, logger: logger)
        for try await dropped in rows.decode(Int.self) { return dropped }
        return 0
    }
}

extension QuarantinedDelivery {
    /// With the count, last arrival and hash of a row that has them (schema 5 on).
    func counted(_ row: PostgresRandomAccessRow) throws -> QuarantinedDelivery {
        var entry = self
        entry.count = try row["times"].decode(Int.self)
        entry.lastReceivedAt = try row["last_received"].decode(Date?.self).map(PostgresNotificationStore.rounded)
        entry.bodyHash = try row["body_hash"].decode(String?.self)
        return entry
    }
}
