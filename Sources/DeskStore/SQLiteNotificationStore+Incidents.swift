import Foundation
import SQLiteNIO

/// Watch incidents in the SQLite file (schema version 7).
extension SQLiteNotificationStore: IncidentStore {
    /// At most one open incident per key: a second watch on the file cannot open it again. Each
    /// announcement is a row per channel and phase: `sending` while a watch sends it, then `sent`.
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
            resolved_ms INTEGER
        )
        """,
        "CREATE UNIQUE INDEX incidents_open_key ON incidents(key) WHERE resolved_ms IS NULL",
        "CREATE INDEX incidents_updated ON incidents(updated_ms)",
        """
        CREATE TABLE incident_announcements (
            incident_id INTEGER NOT NULL REFERENCES incidents(id),
            channel TEXT NOT NULL,
            phase TEXT NOT NULL,
            state TEXT NOT NULL,
            at_ms INTEGER NOT NULL,
            PRIMARY KEY (incident_id, channel, phase)
        )
        """,
    ]

    public func activeIncidents(resolvedSince: Date) async throws -> [StoredIncident] {
        try await incidentRows("WHERE resolved_ms IS NULL OR resolved_ms >= ?", [.integer(Self.ms(resolvedSince))])
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

    public func claimAnnouncement(incident: Int64, channel: String, phase: IncidentPhase, at time: Date, staleBefore: Date) async throws -> Bool {
        let connection = self.connection
        let rows = try await transaction {
            try await connection.query(
                """
                INSERT INTO incident_announcements (incident_id, channel, phase, state, at_ms) VALUES (?, ?, ?, 'sending', ?)
                ON CONFLICT (incident_id, channel, phase) DO UPDATE SET at_ms = excluded.at_ms
                WHERE incident_announcements.state = 'sending' AND incident_announcements.at_ms < ?
                RETURNING incident_id
                """,
                [.integer(SQLiteInt64(incident)), .text(channel), .text(phase.rawValue), .integer(Self.ms(time)), .integer(Self.ms(staleBefore))])
        }
        return !rows.isEmpty
    }

    public func finishAnnouncement(incident: Int64, channel: String, phase: IncidentPhase, sent: Bool, at time: Date) async throws {
        let key: [SQLiteData] = [.integer(SQLiteInt64(incident)), .text(channel), .text(phase.rawValue)]
        if sent {
            try await incidentUpdate(
                "UPDATE incident_announcements SET state = 'sent', at_ms = ? WHERE incident_id = ? AND channel = ? AND phase = ?", [.integer(Self.ms(time))] + key)
        } else {
            try await incidentUpdate("DELETE FROM incident_announcements WHERE incident_id = ? AND channel = ? AND phase = ? AND state = 'sending'", key)
        }
    }

    public func sentAnnouncements(channel: String, incidents: [Int64]) async throws -> Set<IncidentAnnouncement> {
        guard !incidents.isEmpty else { return [] }
        let marks = Array(repeating: "?", count: incidents.count).joined(separator: ", ")
        let binds: [SQLiteData] = [.text(channel)] + incidents.map { .integer(SQLiteInt64($0)) }
        let rows = try await gate.run {
            try await self.connection.query(
                "SELECT incident_id, phase FROM incident_announcements WHERE state = 'sent' AND channel = ? AND incident_id IN (\(marks))", binds)
        }
        return Set(rows.compactMap { row in
            guard let id = row.column("incident_id")?.integer, let phase = row.column("phase")?.string.flatMap(IncidentPhase.init) else { return nil }
            return IncidentAnnouncement(incident: Int64(id), phase: phase)
        })
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
            StoredIncident(
                id: Int64(row.column("id")?.integer ?? 0), key: row.column("key")?.string ?? "", kind: row.column("kind")?.string ?? "",
                summary: row.column("summary")?.string ?? "", details: Self.data(row.column("details")) ?? Data(),
                openedAt: Self.date(row.column("opened_ms")), updatedAt: Self.date(row.column("updated_ms")),
                resolvedAt: row.column("resolved_ms")?.integer == nil ? nil : Self.date(row.column("resolved_ms")))
        }
    }
}
