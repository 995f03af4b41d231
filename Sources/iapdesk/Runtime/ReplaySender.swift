import DeskCore
import DeskStore
import Foundation
import WebhookReceiver

/// Re-posts notification bodies to an endpoint (with listen's forwarder: same timeout and error
/// texts) and records each outcome in the store's replays table.
struct ReplaySender {
    /// Said wherever a re-post is announced: the payload is Apple's, signed, so it cannot be re-dated.
    static let signedDateCaveat =
        "The signedDate stays the original one: Apple signed the payload and it cannot be changed, so the app's handler must accept an old signedDate."

    let target: URL
    let command: String
    let store: any NotificationStore
    let forwarder: Forwarder

    init(target: URL, command: String, timeout: TimeInterval, store: any NotificationStore) {
        self.target = target
        self.command = command
        self.store = store
        forwarder = Forwarder(ForwardConfiguration(url: target, timeout: timeout))
    }

    /// The target as printed and stored: without a user or password, nor query values (they may be secrets).
    var shownTarget: String { Self.redacted(target) }

    static func redacted(_ url: URL) -> String { RedactedURL.text(url) }

    /// Sends one body and records what came of it. The POST is not cancelled by Ctrl-C: it ends
    /// within the timeout and is recorded, so the count said afterwards is true.
    func send(_ body: Data, notificationUUID: String, source: ReplayAttempt.Source) async throws -> ReplayAttempt {
        let sentAt = Date()
        let forwarder = self.forwarder
        let headers = [
            "User-Agent": "iapdesk \(command)", "X-Iapdesk-Notification-UUID": notificationUUID, "X-Iapdesk-Replay": source.rawValue,
        ]
        let result = await Task { await forwarder.post(body, headers: headers) }.value
        let attempt = ReplayAttempt(
            notificationUUID: notificationUUID, targetURL: shownTarget, source: source, command: command, sentAt: sentAt,
            result: result.summary, status: result.status, milliseconds: result.milliseconds)
        do {
            try await store.recordReplay(attempt)
        } catch {
            throw CLIError(
                "Sent \(notificationUUID) (\(result.summary)) but its outcome could not be recorded in the store: \(error).", status: .failure)
        }
        return attempt
    }

    static func line(_ attempt: ReplayAttempt, kind: String?) -> String {
        let source = attempt.source == .store ? "stored body" : "from Apple's history"
        return "\(DisplayFormat.date(attempt.sentAt, seconds: true))  \(attempt.result)  \(String(format: "%.0f ms", attempt.milliseconds))  "
            + "\(kind ?? "?")  \(attempt.notificationUUID)  \(source)"
    }

    /// An http(s) URL with a host, or a usage error saying so.
    static func target(_ text: String) throws -> URL {
        guard let url = URL(string: text), ["http", "https"].contains(url.scheme?.lowercased() ?? ""), url.host?.isEmpty == false else {
            throw CLIError("--to \(text) is not an http(s) URL.", hint: "Give the app's endpoint, such as https://example.com/appstore/notifications.", status: .usage)
        }
        return url
    }
}

/// A re-post as `replay` and `recover` report it: where it went and how it was answered.
struct AttemptOutcome: Encodable {
    var notificationUUID: String
    var target: String
    var source: String
    var result: String
    var status: Int?
    var ms: Double
    var accepted: Bool
    var sentAt: String?
    var sentAtMs: Int64?

    init(_ attempt: ReplayAttempt) {
        (notificationUUID, target, source) = (attempt.notificationUUID, attempt.targetURL, attempt.source.rawValue)
        (result, status, ms, accepted) = (attempt.result, attempt.status, (attempt.milliseconds * 10).rounded() / 10, attempt.succeeded)
        (sentAt, sentAtMs) = DatePair.of(attempt.sentAt)
    }
}
