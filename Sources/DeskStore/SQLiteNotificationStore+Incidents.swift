import Foundation
import SQLiteNIO

/// Watch incidents in the SQLite file (schema version 7).
extension SQLiteNotificationStore: IncidentStore {
    /// At most one open incident per key: a second watch on the file cannot open it again.
    static let incidentSchema = [
        """
        CREATE TABLE incidents (
            id INTEGER PRIMARY KEY,
            key TEXT NOT NULL,
            kind TEXT NOT NULL,
            summary TEXT NOT NULL,
            details BLOB NOT NULL,
            opened_ms INTEGER NOT NULL,
            updated_ms INTEGER NOT NULL,
            resolved_ms INTEGER,
            open_announced_ms INTEGER,
            resolve_announced_ms INTEGER
        )
        """,
        "CREATE UNIQUE INDEX incidents_open_key ON incidents(key) WHERE resolved_ms IS NULL",
        "CREATE INDEX incidents_updated ON incidents(updated_ms)",
    ]

    public func activeIncidents() async throws -> [StoredIncident] {
        try await incidentRows("WHERE resolved_ms IS NULL OR resolve_announced_ms IS NULL OR open_announced_ms IS NULL", [])
    }

    public func openIncident(_ incident: NewIncident) async throws -> StoredIncident? {
        let connection = self.connection
        let opened = Self.ms(incident.openedAt)
        let rows = try await transaction {
            try await connection.query(
                """
                INSERT INTO incidents (key, kind, summary, details, opened_ms, updated_ms) VALUES (?, ?, ?, ?, ?, ?)
                ON CONFLICT (key) WHERE resolved_ms IS NULL DO NOTHING RETURNING id
                """,
                [.text(incident.key), .text(incident.kind), .text(incident.summary), .blob(ByteBuffer(bytes: incident.details)), .integer(opened), .integer(opened)])
        }
        guard let id = rows.first?.column("id")?.integer else { return nil }
        let time = Self.date(.integer(opened))
        return StoredIncident(
            id: Int64(id), key: incident.key, kind: incident.kind, summary: incident.summary, details: incident.details, openedAt: time, updatedAt: time)
    }

    public func updateIncident(id: Int64, summary: String, details: Data, at time: Date) async throws {
        try await incidentUpdate(
            "UPDATE incidents SET summary = ?, details = ?, updated_ms = ? WHERE id = ? AND resolved_ms IS NULL",
            [.text(summary), .blob(ByteBuffer(bytes: details)), .integer(Self.ms(time)), .integer(SQLiteInt64(id))])
    }

    public func resolveIncident(id: Int64, at time: Date) async throws {
        try await incidentUpdate(
            "UPDATE incidents SET resolved_ms = ?, updated_ms = ? WHERE id = ? AND resolved_ms IS NULL",
            [.integer(Self.ms(time)), .integer(Self.ms(time)), .integer(SQLiteInt64(id))])
    }

    public func markIncidentAnnounced(id: Int64, _ phase: IncidentPhase, at time: Date) async throws {
        let column = phase == .opened ? "open_announced_ms" : "resolve_announced_ms"
        try await incidentUpdate("UPDATE incidents SET \(column) = ? WHERE id = ? AND \(column) IS NULL", [.integer(Self.ms(time)), .integer(SQLiteInt64(id))])
    }

    public func incidents(since date: Date) async throws -> [StoredIncident] {
        try await incidentRows("WHERE updated_ms >= ? OR opened_ms >= ? OR resolved_ms IS NULL", [.integer(Self.ms(date)), .integer(Self.ms(date))])
    }

    private func incidentUpdate(_ sql: String, _ binds: [SQLiteData]) async throws {
        let connection = self.connection
        try await transaction { _ = try await connection.query(sql, binds) }
    }

    private func incidentRows(_ condition: String, _ binds: [SQLiteData]) async throws -> [StoredIncident] {
        let rows = try await gate.run { try await self.connection.query("SELECT * FROM incidents \(condition) ORDER BY opened_ms, id", binds) }
        return rows.map { row in
            let optionalDate = { (name: String) -> Date? in row.column(name)?.integer == nil ? nil : Self.date(row.column(name)) }
            return StoredIncident(
                id: Int64(row.column("id")?.integer ?? 0), key: row.column("key")?.string ?? "", kind: row.column("kind")?.string ?? "",
                summary: row.column("summary")?.string ?? "", details: Self.data(row.column("details")) ?? Data(),
                openedAt: Self.date(row.column("opened_ms")), updatedAt: Self.date(row.column("updated_ms")), resolvedAt: optionalDate("resolved_ms"),
                openAnnouncedAt: optionalDate("open_announced_ms"), resolveAnnouncedAt: optionalDate("resolve_announced_ms"))
        }
    }
}
