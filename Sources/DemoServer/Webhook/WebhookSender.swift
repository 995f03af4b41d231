import AppStoreServerAPI
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Delivers notifications as Apple does: POST {"signedPayload": JWS} to the configured URL,
/// and reports the outcome as one of Apple's send-attempt results.
struct WebhookSender: Sendable {
    let timeout: TimeInterval

    func deliver(signedPayload: String, to url: URL) async -> SendAttemptResult {
        var request = URLRequest(url: url, timeoutInterval: timeout)
        request.httpMethod = "POST"
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.setValue("App Store Server Notifications (iapdesk demo)", forHTTPHeaderField: "User-Agent")
        request.httpBody = try? JSONSerialization.data(withJSONObject: ["signedPayload": signedPayload])
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = timeout
        configuration.timeoutIntervalForResource = timeout
        let session = URLSession(configuration: configuration)
        defer { session.finishTasksAndInvalidate() }
        do {
            let (_, response) = try await session.data(for: request)
            guard let http = response as? HTTPURLResponse else { return .invalidResponse }
            return (200...206).contains(http.statusCode) ? .success : .unsuccessfulHTTPResponseCode
        } catch let error as URLError {
            return Self.result(for: error)
        } catch {
            return .other
        }
    }

    static func result(for error: URLError) -> SendAttemptResult {
        switch error.code {
        case .timedOut: return .timedOut
        case .cannotConnectToHost, .cannotFindHost, .dnsLookupFailed, .notConnectedToInternet: return .socketIssue
        case .networkConnectionLost: return .noResponse
        case .badServerResponse, .zeroByteResource: return .invalidResponse
        case .secureConnectionFailed, .serverCertificateUntrusted, .serverCertificateHasBadDate,
             .serverCertificateNotYetValid, .serverCertificateHasUnknownRoot, .clientCertificateRejected,
             .clientCertificateRequired:
            return .tlsIssue
        case .httpTooManyRedirects, .redirectToNonExistentLocation: return .circularRedirect
        case .cannotDecodeContentData, .cannotDecodeRawData, .cannotParseResponse: return .unsupportedCharset
        default: return .other
        }
    }
}
