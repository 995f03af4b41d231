import Crypto
import DeskCore
import Foundation
import NotificationReconcile
import WebhookReceiver

/// Where incidents are announced: `--exec` (the event as JSON on standard input) and `--alert-url`
/// (Slack-compatible text or a PagerDuty event). Each channel keeps its own record in the store of
/// what it was told, so one that fails is tried again alone, and another watch's channels are theirs.
struct IncidentAnnouncer: Sendable {
    struct Channel: Sendable {
        /// Names the channel in the store without its secrets: a hash of what it is.
        let id: String
        /// How it is shown: "--exec", "slack to https://hooks.slack.com/…".
        let shown: String
        let send: @Sendable (IncidentEvent) async -> String?
    }

    let channels: [Channel]
    /// How long the command or the POST may take.
    let timeout: TimeInterval

    static let routingKeyVariable = "IAPDESK_PAGERDUTY_ROUTING_KEY"

    init(exec: String?, alertURL: URL?, format: AlertFormat, routingKey: String?, timeout: TimeInterval) {
        self.timeout = timeout
        var channels: [Channel] = []
        if let exec {
            channels.append(Channel(id: Self.id("exec", exec), shown: "--exec") { event in await Self.run(exec, event: event, timeout: timeout) })
        }
        if let alertURL {
            channels.append(Channel(id: Self.id(format.rawValue, alertURL.absoluteString), shown: "\(format.rawValue) to \(Self.shown(alertURL))") { event in
                await Self.post(event, to: alertURL, format: format, routingKey: routingKey, timeout: timeout)
            })
        }
        self.channels = channels
    }

    /// Where alerts go, without the secrets an incoming-webhook URL carries in its path.
    static func shown(_ url: URL) -> String { "\(url.scheme ?? "https")://\(url.host ?? "?")\(url.port.map { ":\($0)" } ?? "")/…" }

    static func id(_ kind: String, _ value: String) -> String {
        kind + ":" + SHA256.hash(data: Data(value.utf8)).prefix(12).map { String(format: "%02x", $0) }.joined()
    }

    private static func post(_ event: IncidentEvent, to url: URL, format: AlertFormat, routingKey: String?, timeout: TimeInterval) async -> String? {
        let forwarder = Forwarder(ForwardConfiguration(url: url, timeout: timeout))
        let result = await forwarder.post(format.body(event, routingKey: routingKey), headers: ["User-Agent": "iapdesk watch"])
        if let status = result.status, (200...299).contains(status) { return nil }
        return "\(format.rawValue) to \(shown(url)) failed: \(result.summary)"
    }

    /// The command gets the event as one JSON line on standard input; it must exit 0 within the timeout.
    private static func run(_ command: String, event: IncidentEvent, timeout: TimeInterval) async -> String? {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let json = ((try? encoder.encode(event)) ?? Data()) + Data([0x0A])
        var environment = ProcessInfo.processInfo.environment
        environment["IAPDESK_INCIDENT_EVENT"] = event.event
        environment["IAPDESK_INCIDENT_KEY"] = event.key
        switch await ShellCommand.run(command, input: json, environment: environment, timeout: timeout) {
        case .exited(0): return nil
        case .exited(let status): return "--exec exited \(status)"
        case .killedBySignal(let signal): return "--exec was killed by signal \(signal)"
        case .timedOut: return "--exec did not finish within \(String(format: "%g", timeout)) s: stopped"
        case .couldNotStart(let why): return "--exec could not start: \(why)"
        }
    }
}
