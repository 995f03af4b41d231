import DeskStore
import Foundation

/// What a cycle's findings change in the incidents kept in the store: which open, which say
/// something new while they last, which resolve. Pure.
public struct IncidentChanges: Sendable, Equatable {
    public struct Update: Sendable, Equatable {
        public var incident: StoredIncident
        public var finding: WatchFinding
    }

    public var toOpen: [WatchFinding] = []
    public var toUpdate: [Update] = []
    public var toResolve: [StoredIncident] = []

    /// - Parameters:
    ///   - active: the store's active incidents (of every environment: only this one's are touched).
    ///   - checked: the kinds this cycle looked for; an open incident of another kind is left as it is
    ///     (a cycle that could not read Apple's history resolves nothing it could not see).
    public static func between(
        active: [StoredIncident], findings: [WatchFinding], checked: Set<WatchFinding.Kind>, environment: String
    ) -> IncidentChanges {
        var changes = IncidentChanges()
        let prefix = environment.lowercased() + "/"
        let open = Dictionary(active.filter { $0.isOpen && $0.key.hasPrefix(prefix) }.map { ($0.key, $0) }, uniquingKeysWith: { first, _ in first })
        for finding in findings {
            if let incident = open[finding.key] {
                if incident.summary != finding.summary || IncidentDetails.decode(incident.details)?.count != finding.count {
                    changes.toUpdate.append(Update(incident: incident, finding: finding))
                }
            } else {
                changes.toOpen.append(finding)
            }
        }
        let found = Set(findings.map(\.key))
        for incident in open.values.sorted(by: { $0.id < $1.id }) where !found.contains(incident.key) {
            guard let kind = WatchFinding.Kind(rawValue: incident.kind), checked.contains(kind) else { continue }
            changes.toResolve.append(incident)
        }
        return changes
    }
}

/// An incident's details as kept in the store and announced: the finding's figures and what to do.
public struct IncidentDetails: Codable, Sendable, Equatable {
    public var kind: WatchFinding.Kind
    public var environment: String
    public var severity: WatchFinding.Severity
    public var count: Int
    public var notificationUUIDs: [String]
    public var action: String

    public init(_ finding: WatchFinding) {
        kind = finding.kind
        environment = finding.environment
        severity = finding.kind.severity
        count = finding.count
        notificationUUIDs = finding.notificationUUIDs
        action = finding.action
    }

    public func encoded() -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return (try? encoder.encode(self)) ?? Data("{}".utf8)
    }

    public static func decode(_ data: Data) -> IncidentDetails? { try? JSONDecoder().decode(IncidentDetails.self, from: data) }
}

extension NewIncident {
    public init(_ finding: WatchFinding, at time: Date) {
        self.init(key: finding.key, kind: finding.kind.rawValue, summary: finding.summary, details: IncidentDetails(finding).encoded(), openedAt: time)
    }
}
