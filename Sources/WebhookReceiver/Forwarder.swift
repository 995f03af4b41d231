import DeskStore
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

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
public final class Forwarder: @unchecked Sendable {
    // URLSession is thread-safe; it is not marked Sendable on every platform.
    private let session: URLSession
    public let configuration: ForwardConfiguration

    public init(_ configuration: ForwardConfiguration) {
        self.configuration = configuration
        let sessionConfiguration = URLSessionConfiguration.ephemeral
        // The deadline is kept here (see forward); URLSession's own, in whole seconds on Linux, only backs it up.
        sessionConfiguration.timeoutIntervalForRequest = configuration.timeout.rounded(.up) + 1
        sessionConfiguration.timeoutIntervalForResource = configuration.timeout.rounded(.up) + 1
        session = URLSession(configuration: sessionConfiguration)
    }

    deinit { session.finishTasksAndInvalidate() }

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
        var request = URLRequest(url: configuration.url, timeoutInterval: configuration.timeout.rounded(.up) + 1)
        request.httpMethod = "POST"
        request.httpBody = body
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        let start = ContinuousClock.now
        let session = self.session
        let timeout = configuration.timeout
        do {
            // The HTTP status, nil for an answer that is not HTTP; the outer nil is the deadline.
            let answer: Int?? = try await withThrowingTaskGroup(of: Int??.self) { [request] group in
                group.addTask { .some((try await session.data(for: request).1 as? HTTPURLResponse)?.statusCode) }
                group.addTask {
                    try await Task.sleep(for: .milliseconds(Int64(timeout * 1000)))
                    return .none
                }
                let first = try await group.next() ?? .none
                group.cancelAll()
                return first
            }
            guard let status = answer else { throw URLError(.timedOut) }
            let milliseconds = DeliveryHandler.milliseconds(since: start)
            guard let status else {
                return Result(summary: "not an HTTP answer", status: nil, milliseconds: milliseconds, mirrored: 502)
            }
            return Result(summary: "HTTP \(status)", status: status, milliseconds: milliseconds, mirrored: status)
        } catch let error as URLError where error.code == .timedOut {
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
        if let error = error as? URLError {
            switch error.code {
            case .cannotConnectToHost: return "cannot connect"
            case .cannotFindHost, .dnsLookupFailed: return "host not found"
            case .networkConnectionLost: return "connection lost"
            case .secureConnectionFailed, .serverCertificateUntrusted, .serverCertificateHasBadDate, .serverCertificateHasUnknownRoot,
                 .serverCertificateNotYetValid:
                return "TLS failed"
            default: return "URL error \(error.code.rawValue)"
            }
        }
        return "\(error)"
    }
}
