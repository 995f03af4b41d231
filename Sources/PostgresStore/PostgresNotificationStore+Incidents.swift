import DeskStore
import Foundation
import PostgresNIO

/// Watch incidents on the team's server (schema version 7): every watch on it sees the same ones.
extension PostgresNotificationStore: IncidentStore {
    /// At most one open incident per key: a second watch on the server cannot open it again.
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
            resolved TIMESTAMPTZ,
            open_announced TIMESTAMPTZ,
            resolve_announced TIMESTAMPTZ
        )
        """,
        "CREATE UNIQUE INDEX incidents_open_key ON incidents(key) WHERE resolved IS NULL",
        "CREATE INDEX incidents_updated ON incidents(updated)",
    ]

    public func activeIncidents() async throws -> [StoredIncident] {
        try await rows(
            "SELECT * FROM incidents WHERE resolved IS NULL OR resolve_announced IS NULL OR open_announced IS NULL ORDER BY opened, id", Self.incident)
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
        try await run {
            _ = try await self.client.query(
                "UPDATE incidents SET summary = \(summary), details = \(details), updated = \(time) WHERE id = \(id) AND resolved IS NULL",
                logger: Self.logger)
        }
    }

    public func resolveIncident(id: Int64, at time: Date) async throws {
        let time = Self.rounded(time)
        try await run {
            _ = try await self.client.query(
                "UPDATE incidents SET resolved = \(time), updated = \(time) WHERE id = \(id) AND resolved IS NULL", logger: Self.logger)
        }
    }

    public func markIncidentAnnounced(id: Int64, _ phase: IncidentPhase, at time: Date) async throws {
        let time = Self.rounded(time)
        try await run {
            switch phase {
            case .opened:
                _ = try await self.client.query(
                    "UPDATE incidents SET open_announced = \(time) WHERE id = \(id) AND open_announced IS NULL", logger: Self.logger)
            case .resolved:
                _ = try await self.client.query(
                    "UPDATE incidents SET resolve_announced = \(time) WHERE id = \(id) AND resolve_announced IS NULL", logger: Self.logger)
            }
        }
    }

    public func incidents(since date: Date) async throws -> [StoredIncident] {
        try await rows("SELECT * FROM incidents WHERE updated >= \(date) OR opened >= \(date) OR resolved IS NULL ORDER BY opened, id", Self.incident)
    }

    @Sendable private static func incident(_ row: PostgresRandomAccessRow) throws -> StoredIncident {
        let optional = { (name: String) throws -> Date? in try row[name].decode(Date?.self).map(rounded) }
        return StoredIncident(
            id: try row["id"].decode(Int64.self), key: try row["key"].decode(String.self), kind: try row["kind"].decode(String.self),
            summary: try row["summary"].decode(String.self), details: try row["details"].decode(Data.self),
            openedAt: rounded(try row["opened"].decode(Date.self)), updatedAt: rounded(try row["updated"].decode(Date.self)),
            resolvedAt: try optional("resolved"), openAnnouncedAt: try optional("open_announced"), resolveAnnouncedAt: try optional("resolve_announced"))
    }
}
