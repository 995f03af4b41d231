import AppStoreServerAPI
import DeskStore
import Foundation

/// Where `listen --forward-to` sends each stored notification, as the Stripe CLI's `listen` does.
public struct ForwardConfiguration: Sendable {
    public var url: URL
    /// Seconds the forward may take; then it counts as timed out.
    public var timeout: TimeInterval = 10
    /// Answer the sender with the forward's status (502 when it could not be reached, 504 when
    /// it timed out) instead of 200, so the sender retries what the app's endpoint did not take.
    public var mirrorStatus = false

    public init(url: URL, timeout: TimeInterval = 10, mirrorStatus: Bool = false) {
        self.url = url
        self.timeout = timeout
        self.mirrorStatus = mirrorStatus
    }
}

/// POSTs the body as it arrived to the forward URL and says what came of it. `listen --forward-to`
/// forwards with it; `replay` and `recover` re-post with it.
public final class Forwarder: Sendable {
    /// The process's shared HTTP client: a forward waiting for a slow app costs no CPU.
    private let transport: any HTTPTransport
    public let configuration: ForwardConfiguration

    public init(_ configuration: ForwardConfiguration, transport: any HTTPTransport = AsyncHTTPClientTransport()) {
        self.configuration = configuration
        self.transport = transport
    }

    public struct Result: Sendable, Equatable {
        /// "HTTP 200", "timed out after 10 s", "not delivered: cannot connect".
        public var summary: String
        public var status: Int?
        public var milliseconds: Double
        /// What to answer the sender when mirroring: the forward's status, 502 or 504.
        public var mirrored: Int
    }

    func forward(_ body: Data, notificationUUID: String, deliveryCount: Int) async -> Result {
        await post(body, headers: [
            "User-Agent": "iapdesk listen (forwarded)", "X-Iapdesk-Notification-UUID": notificationUUID,
            "X-Iapdesk-Delivery-Count": String(deliveryCount),
        ])
    }

    /// POSTs `body` as JSON with these headers, within the configured timeout.
    public func post(_ body: Data, headers: [String: String]) async -> Result {
        let request = HTTPRequest(
            method: "POST", url: configuration.url,
            headers: [("Content-Type", "application/json")] + headers.sorted { $0.key < $1.key }.map { (name: $0.key, value: $0.value) },
            body: body, timeout: configuration.timeout)
        let start = ContinuousClock.now
        do {
            // The transport ends the request, answer and body, at the timeout.
            let status = try await transport.send(request).status
            return Result(summary: "HTTP \(status)", status: status, milliseconds: DeliveryHandler.milliseconds(since: start), mirrored: status)
        } catch let failure as TransportFailure where failure.kind == .timedOut {
            return Result(
                summary: "timed out after \(String(format: "%g", configuration.timeout)) s", status: nil, milliseconds: DeliveryHandler.milliseconds(since: start),
                mirrored: 504)
        } catch {
            return Result(
                summary: "not delivered: \(Self.describe(error))", status: nil, milliseconds: DeliveryHandler.milliseconds(since: start),
                mirrored: 502)
        }
    }

    /// A failed POST in a few words ("cannot connect", "TLS failed"), as forwards and re-posts say it.
    public static func describe(_ error: any Error) -> String {
        if let failure = error as? TransportFailure {
            switch failure.kind {
            case .cannotConnect: return "cannot connect"
            case .dns: return "host not found"
            case .connectionLost: return "connection lost"
            case .tls: return "TLS failed"
            case .timedOut: return "timed out"
            case .responseTooLarge: return "answer too large"
            case .other: return failure.detail
            }
        }
        if error is CancellationError { return "cancelled" }
        return "\(error)"
    }
}
