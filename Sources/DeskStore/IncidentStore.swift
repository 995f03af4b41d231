import Foundation

/// What `iapdesk watch` found wrong, kept in the store so that a restarted watch neither announces
/// an incident twice nor forgets one, and every watch on a team's store sees the same ones.
public protocol IncidentStore: Sendable {
    /// Incidents still open, and resolved ones whose resolution was not announced yet; oldest first.
    func activeIncidents() async throws -> [StoredIncident]
    /// Opens an incident under `key`; nil when one is open under it already (another watch opened it).
    func openIncident(_ incident: NewIncident) async throws -> StoredIncident?
    /// Replaces what an open incident says (its count and notifications change while it is open).
    func updateIncident(id: Int64, summary: String, details: Data, at time: Date) async throws
    /// Closes it; its key may open a new incident afterwards.
    func resolveIncident(id: Int64, at time: Date) async throws
    /// Records that its opening or resolution was announced: it is not announced again.
    func markIncidentAnnounced(id: Int64, _ phase: IncidentPhase, at time: Date) async throws
    /// Every incident opened or resolved since `date`, oldest first.
    func incidents(since date: Date) async throws -> [StoredIncident]
}

public enum IncidentPhase: String, Sendable, Equatable {
    case opened, resolved
}

public struct NewIncident: Sendable, Equatable {
    /// Stable for the same finding: "production/missing-here".
    public var key: String
    public var kind: String
    public var summary: String
    /// The finding as JSON: counts, notification UUIDs, what to do.
    public var details: Data
    public var openedAt: Date

    public init(key: String, kind: String, summary: String, details: Data, openedAt: Date) {
        self.key = key
        self.kind = kind
        self.summary = summary
        self.details = details
        self.openedAt = openedAt
    }
}

public struct StoredIncident: Sendable, Equatable {
    public var id: Int64
    public var key: String
    public var kind: String
    public var summary: String
    public var details: Data
    public var openedAt: Date
    public var updatedAt: Date
    public var resolvedAt: Date?
    public var openAnnouncedAt: Date?
    public var resolveAnnouncedAt: Date?

    public init(
        id: Int64, key: String, kind: String, summary: String, details: Data, openedAt: Date, updatedAt: Date, resolvedAt: Date? = nil,
        openAnnouncedAt: Date? = nil, resolveAnnouncedAt: Date? = nil
    ) {
        self.id = id
        self.key = key
        self.kind = kind
        self.summary = summary
        self.details = details
        self.openedAt = openedAt
        self.updatedAt = updatedAt
        self.resolvedAt = resolvedAt
        self.openAnnouncedAt = openAnnouncedAt
        self.resolveAnnouncedAt = resolveAnnouncedAt
    }

    public var isOpen: Bool { resolvedAt == nil }

    /// What is still to be announced: its opening first, then (once resolved) its resolution.
    public var unannounced: [IncidentPhase] {
        var phases: [IncidentPhase] = []
        if openAnnouncedAt == nil { phases.append(.opened) }
        if resolvedAt != nil && resolveAnnouncedAt == nil { phases.append(.resolved) }
        return phases
    }
}
