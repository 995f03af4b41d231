import DeskStore
import Foundation
import PostgresNIO

/// Watch incidents on the team's server (schema version 7): every watch on it sees the same ones.
extension PostgresNotificationStore: IncidentStore {
    /// At most one open incident per key: a second watch on the server cannot open it again. Each
    /// announcement is a row per channel and phase: `sending` while a watch sends it, then `sent`.
    static let incidentSchema = [
        """
        CREATE TABLE incidents (
            id BIGSERIAL PRIMARY KEY,
            key TEXT NOT NULL,
            kind TEXT NOT NULL,
            summary TEXT NOT NULL,
            details BYTEA NOT NULL,
            opened TIMESTAMPTZ NOT NULL,
            updated TIMESTAMPTZ NOT NULL,
            resolved TIMESTAMPTZ
        )
        """,
        "CREATE UNIQUE INDEX incidents_open_key ON incidents(key) WHERE resolved IS NULL",
        "CREATE INDEX incidents_updated ON incidents(updated)",
        """
        CREATE TABLE incident_announcements (
            incident_id BIGINT NOT NULL REFERENCES incidents(id),
            channel TEXT NOT NULL,
            phase TEXT NOT NULL,
            state TEXT NOT NULL,
            at TIMESTAMPTZ NOT NULL,
            PRIMARY KEY (incident_id, channel, phase)
        )
        """,
    ]

    public func activeIncidents(resolvedSince: Date) async throws -> [StoredIncident] {
        try await rows("SELECT * FROM incidents WHERE resolved IS NULL OR resolved >= \(resolvedSince) ORDER BY opened, id", Self.incident)
    }

    public func openIncident(_ incident: NewIncident) async throws -> StoredIncident? {
        let opened = Self.rounded(incident.openedAt)
        let ids = try await rows(
            """
            INSERT INTO incidents (key, kind, summary, details, opened, updated)
            VALUES (\(incident.key), \(incident.kind), \(incident.summary), \(incident.details), \(opened), \(opened))
            ON CONFLICT (key) WHERE resolved IS NULL DO NOTHING RETURNING id
            """
        ) { try $0["id"].decode(Int64.self) }
        guard let id = ids.first else { return nil }
        return StoredIncident(
            id: id, key: incident.key, kind: incident.kind, summary: incident.summary, details: incident.details, openedAt: opened, updatedAt: opened)
    }

    public func updateIncident(id: Int64, summary: String, details: Data, at time: Date) async throws {
        let time = Self.rounded(time)
        try await execute("UPDATE incidents SET summary = \(summary), details = \(details), updated = \(time) WHERE id = \(id) AND resolved IS NULL")
    }

    public func resolveIncident(id: Int64, at time: Date) async throws {
        let time = Self.rounded(time)
        try await execute("UPDATE incidents SET resolved = \(time), updated = \(time) WHERE id = \(id) AND resolved IS NULL")
    }

    public func claimAnnouncement(incident: Int64, channel: String, phase: IncidentPhase, at time: Date, staleBefore: Date) async throws -> Bool {
        let claimed = try await rows(
            """
            INSERT INTO incident_announcements (incident_id, channel, phase, state, at) VALUES (\(incident), \(channel), \(phase.rawValue), 'sending', \(time))
            ON CONFLICT (incident_id, channel, phase) DO UPDATE SET at = excluded.at
            WHERE incident_announcements.state = 'sending' AND incident_announcements.at < \(staleBefore)
            RETURNING incident_id
            """
        ) { try $0["incident_id"].decode(Int64.self) }
        return !claimed.isEmpty
    }

    public func finishAnnouncement(incident: Int64, channel: String, phase: IncidentPhase, sent: Bool, at time: Date) async throws {
        if sent {
            try await execute(
                "UPDATE incident_announcements SET state = 'sent', at = \(time) WHERE incident_id = \(incident) AND channel = \(channel) AND phase = \(phase.rawValue)")
        } else {
            try await execute(
                "DELETE FROM incident_announcements WHERE incident_id = \(incident) AND channel = \(channel) AND phase = \(phase.rawValue) AND state = 'sending'")
        }
    }

    public func sentAnnouncements(channel: String, incidents: [Int64]) async throws -> Set<IncidentAnnouncement> {
        guard !incidents.isEmpty else { return [] }
        let found = try await rows(
            "SELECT incident_id, phase FROM incident_announcements WHERE state = 'sent' AND channel = \(channel) AND incident_id = ANY(\(incidents))"
        ) { row in (try row["incident_id"].decode(Int64.self), try row["phase"].decode(String.self)) }
        return Set(found.compactMap { id, phase in IncidentPhase(rawValue: phase).map { IncidentAnnouncement(incident: id, phase: $0) } })
    }

    public func incidents(since date: Date) async throws -> [StoredIncident] {
        try await rows("SELECT * FROM incidents WHERE updated >= \(date) OR opened >= \(date) OR resolved IS NULL ORDER BY opened, id", Self.incident)
    }

    private func execute(_ query: PostgresQuery) async throws {
        try await run { _ = try await self.client.query(query, logger: Self.logger) }
    }

    @Sendable private static func incident(_ row: PostgresRandomAccessRow) throws -> StoredIncident {
        StoredIncident(
            id: try row["id"].decode(Int64.self), key: try row["key"].decode(String.self), kind: try row["kind"].decode(String.self),
            summary: try row["summary"].decode(String.self), details: try row["details"].decode(Data.self),
            openedAt: rounded(try row["opened"].decode(Date.self)), updatedAt: rounded(try row["updated"].decode(Date.self)),
            resolvedAt: try row["resolved"].decode(Date?.self).map(rounded))
    }
}
