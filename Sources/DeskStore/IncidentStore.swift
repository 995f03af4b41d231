import Foundation

/// What `iapdesk watch` found wrong, kept in the store so that a restarted watch neither announces
/// an incident twice nor forgets one, and every watch on a team's store sees the same ones. Each
/// announcement is kept per channel (a command, an alert URL), so that a second watch on the store,
/// with other channels or none, neither takes a channel's announcements nor repeats them.
public protocol IncidentStore: Sendable {
    /// Incidents open, and those resolved at or after `resolvedSince`; oldest first.
    func activeIncidents(resolvedSince: Date) async throws -> [StoredIncident]
    /// Opens an incident under `key`; nil when one is open under it already (another watch opened it).
    func openIncident(_ incident: NewIncident) async throws -> StoredIncident?
    /// Replaces what an open incident says (its count and notifications change while it is open).
    func updateIncident(id: Int64, summary: String, details: Data, at time: Date) async throws
    /// Closes it; its key may open a new incident afterwards.
    func resolveIncident(id: Int64, at time: Date) async throws
    /// Takes the announcement of `phase` of the incident on `channel`: false when it was sent, or
    /// another watch is sending it (one that started before `staleBefore` counts as abandoned).
    func claimAnnouncement(incident: Int64, channel: String, phase: IncidentPhase, at time: Date, staleBefore: Date) async throws -> Bool
    /// Says how a claimed announcement went: sent is kept for good, not sent frees it for the next try.
    func finishAnnouncement(incident: Int64, channel: String, phase: IncidentPhase, sent: Bool, at time: Date) async throws
    /// The announcements sent on `channel` of these incidents.
    func sentAnnouncements(channel: String, incidents: [Int64]) async throws -> Set<IncidentAnnouncement>
    /// Every incident opened, updated or resolved since `date`, and those still open; oldest first.
    func incidents(since date: Date) async throws -> [StoredIncident]
}

public enum IncidentPhase: String, Sendable, Equatable, Hashable {
    case opened, resolved
}

/// One announcement sent: which incident, which phase.
public struct IncidentAnnouncement: Sendable, Hashable {
    public var incident: Int64
    public var phase: IncidentPhase

    public init(incident: Int64, phase: IncidentPhase) {
        self.incident = incident
        self.phase = phase
    }
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

    public init(id: Int64, key: String, kind: String, summary: String, details: Data, openedAt: Date, updatedAt: Date, resolvedAt: Date? = nil) {
        self.id = id
        self.key = key
        self.kind = kind
        self.summary = summary
        self.details = details
        self.openedAt = openedAt
        self.updatedAt = updatedAt
        self.resolvedAt = resolvedAt
    }

    public var isOpen: Bool { resolvedAt == nil }
}
