import Foundation

/// One re-post of a notification's body to an endpoint, by `iapdesk replay` or `iapdesk recover`.
public struct ReplayAttempt: Sendable, Equatable {
    /// Where the re-posted body came from.
    public enum Source: String, Sendable {
        /// The raw body the receiver stored.
        case store
        /// `{"signedPayload": ...}` built from Apple's Get Notification History.
        case appleHistory = "apple-history"
    }

    public var notificationUUID: String
    public var targetURL: String
    public var source: Source
    /// "replay" or "recover".
    public var command: String
    public var sentAt: Date
    /// "HTTP 200", "timed out after 10 s", "not delivered: cannot connect".
    public var result: String
    /// The endpoint's HTTP status, when it answered.
    public var status: Int?
    public var milliseconds: Double

    public init(
        notificationUUID: String, targetURL: String, source: Source, command: String, sentAt: Date, result: String, status: Int?,
        milliseconds: Double
    ) {
        self.notificationUUID = notificationUUID
        self.targetURL = targetURL
        self.source = source
        self.command = command
        self.sentAt = sentAt
        self.result = result
        self.status = status
        self.milliseconds = milliseconds
    }

    /// A 2xx: the endpoint took it.
    public var succeeded: Bool { status.map { (200...299).contains($0) } ?? false }
}

/// A re-post as the store keeps it.
public struct StoredReplay: Sendable, Equatable {
    public var id: Int64
    public var attempt: ReplayAttempt

    public init(id: Int64, attempt: ReplayAttempt) {
        self.id = id
        self.attempt = attempt
    }
}
