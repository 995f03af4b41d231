import AppStoreServerAPI
import DeskStore
import Foundation

/// An incident opening or resolving, as `--exec` reads it on standard input and as the alert
/// formats are made from.
public struct IncidentEvent: Encodable, Sendable, Equatable {
    public var event: IncidentPhase.RawValue
    public var id: Int64
    public var key: String
    public var kind: String
    public var environment: String?
    public var severity: String?
    public var summary: String
    public var count: Int?
    public var notificationUUIDs: [String]
    public var action: String?
    public var openedAt: String
    public var openedAtMs: Int64
    public var resolvedAt: String?
    public var resolvedAtMs: Int64?
    /// Where it was seen: the store and the host, so that an alert says which watch sent it.
    public var source: String

    public init(_ incident: StoredIncident, phase: IncidentPhase, source: String) {
        let details = IncidentDetails.decode(incident.details)
        event = phase.rawValue
        id = incident.id
        key = incident.key
        kind = incident.kind
        environment = details?.environment
        severity = details?.severity.rawValue
        summary = incident.summary
        count = details?.count
        notificationUUIDs = details?.notificationUUIDs ?? []
        action = details?.action
        (openedAt, openedAtMs) = (Self.stamp(incident.openedAt), Self.ms(incident.openedAt))
        if phase == .resolved, let resolved = incident.resolvedAt {
            (resolvedAt, resolvedAtMs) = (Self.stamp(resolved), Self.ms(resolved))
        }
        self.source = source
    }

    public var isResolved: Bool { event == IncidentPhase.resolved.rawValue }

    /// One line for people: the log, the Slack message.
    public var line: String {
        guard isResolved else { return "OPENED \(key): \(summary). What to do: \(action ?? "see iapdesk reconcile")." }
        let lasted = resolvedAtMs.map { " after " + Self.duration(Double($0 - openedAtMs) / 1000) } ?? ""
        return "RESOLVED \(key)\(lasted); it was: \(summary)."
    }

    static func stamp(_ date: Date) -> String {
        InternetTime.string(from: date, fractional: true)
    }

    static func ms(_ date: Date) -> Int64 { Int64((date.timeIntervalSince1970 * 1000).rounded()) }

    static func duration(_ seconds: Double) -> String {
        if seconds < 90 { return "\(Int(seconds.rounded())) s" }
        if seconds < 5400 { return "\(Int((seconds / 60).rounded())) min" }
        return String(format: "%.1f h", seconds / 3600)
    }
}

/// How `--alert-url` is spoken to.
public enum AlertFormat: String, CaseIterable, Sendable {
    /// An incoming webhook that takes `{"text": ...}`: Slack, Mattermost, Rocket.Chat, Teams' Slack-compatible hooks.
    case slack
    /// PagerDuty's Events API v2: a trigger on opening, a resolve on resolution, deduplicated by the incident.
    case pagerduty

    /// The body to POST for `event`; `routingKey` is PagerDuty's integration key.
    public func body(_ event: IncidentEvent, routingKey: String?) -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        switch self {
        case .slack:
            let mark = event.isResolved ? ":white_check_mark:" : (event.severity == WatchFinding.Severity.critical.rawValue ? ":rotating_light:" : ":warning:")
            let uuids = event.notificationUUIDs.isEmpty || event.isResolved ? "" : "\nNotifications: " + event.notificationUUIDs.prefix(10).joined(separator: ", ")
                + (event.notificationUUIDs.count > 10 ? ", …" : "")
            let text = "\(mark) [iapdesk watch on \(event.source)] \(event.line)\(uuids)"
            return (try? encoder.encode(["text": text])) ?? Data()
        case .pagerduty:
            return (try? encoder.encode(PagerDutyEvent(event, routingKey: routingKey ?? ""))) ?? Data()
        }
    }
}

/// The Events API v2 body (https://developer.pagerduty.com/docs/events-api-v2/trigger-events/).
struct PagerDutyEvent: Encodable {
    struct Payload: Encodable {
        var summary: String
        var source: String
        var severity: String
        var timestamp: String
        var component = "app-store-server-notifications"
        var group: String?
        var `class`: String
        var customDetails: IncidentEvent

        enum CodingKeys: String, CodingKey {
            case summary, source, severity, timestamp, component, group, `class`, customDetails = "custom_details"
        }
    }

    var routingKey: String
    var eventAction: String
    /// The incident's own: a key that opens again later is a new PagerDuty incident.
    var dedupKey: String
    var payload: Payload?

    enum CodingKeys: String, CodingKey {
        case routingKey = "routing_key", eventAction = "event_action", dedupKey = "dedup_key", payload
    }

    init(_ event: IncidentEvent, routingKey: String) {
        self.routingKey = routingKey
        eventAction = event.isResolved ? "resolve" : "trigger"
        dedupKey = "iapdesk/\(event.key)/\(event.openedAtMs)"
        payload = event.isResolved ? nil : Payload(
            summary: String(event.line.prefix(1024)), source: event.source, severity: event.severity ?? "error", timestamp: event.openedAt,
            group: event.environment, class: event.kind, customDetails: event)
    }
}
