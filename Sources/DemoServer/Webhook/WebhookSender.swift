import AppStoreServerAPI
import Foundation

/// Delivers notifications as Apple does: POST {"signedPayload": JWS} to the configured URL,
/// and reports the outcome as one of Apple's send-attempt results.
struct WebhookSender: Sendable {
    let timeout: TimeInterval
    /// The process's shared HTTP client: a delivery waiting for a slow endpoint costs no CPU.
    var transport: any HTTPTransport = AsyncHTTPClientTransport()

    func deliver(signedPayload: String, to url: URL) async -> SendAttemptResult {
        let body = try? JSONSerialization.data(withJSONObject: ["signedPayload": signedPayload])
        let request = HTTPRequest(
            method: "POST", url: url,
            headers: [("Content-Type", "application/json"), ("User-Agent", "App Store Server Notifications (iapdesk demo)")],
            body: body, timeout: timeout)
        do {
            let response = try await transport.send(request)
            return (200...206).contains(response.status) ? .success : .unsuccessfulHTTPResponseCode
        } catch let failure as TransportFailure {
            return Self.result(for: failure)
        } catch {
            return .other
        }
    }

    static func result(for failure: TransportFailure) -> SendAttemptResult {
        switch failure.kind {
        case .timedOut: return .timedOut
        case .cannotConnect, .dns: return .socketIssue
        case .connectionLost: return .noResponse
        case .tls: return .tlsIssue
        case .responseTooLarge: return .invalidResponse
        case .other: return .other
        }
    }
}
