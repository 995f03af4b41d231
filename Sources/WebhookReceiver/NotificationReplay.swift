import Foundation

/// Re-posts a body that arrived earlier to an endpoint, the way the receiver forwards one.
public enum NotificationReplay {
    public struct Outcome: Sendable, Equatable {
        /// "HTTP 200", "timed out after 10 s", "not delivered: cannot connect".
        public var summary: String
        public var status: Int?
        public var milliseconds: Double
    }

    public static func post(_ body: Data, notificationUUID: String, deliveryCount: Int, to url: URL, timeout: TimeInterval = 10) async -> Outcome {
        let result = await Forwarder(ForwardConfiguration(url: url, timeout: timeout))
            .forward(body, notificationUUID: notificationUUID, deliveryCount: deliveryCount)
        return Outcome(summary: result.summary, status: result.status, milliseconds: result.milliseconds)
    }
}
