import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// HTTP over URLSession (libcurl on Linux): honours HTTPS_PROXY and the system CA store.
public final class URLSessionTransport: HTTPTransport {
    private let session: URLSession
    /// Bodies larger than this are refused: no App Store Server API answer comes close.
    public let maximumResponseBytes: Int

    public init(maximumResponseBytes: Int = 8 << 20) {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.httpShouldSetCookies = false
        configuration.urlCache = nil
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        // A windowed history sends about 30 requests at once; the default of 6 per host would queue them.
        configuration.httpMaximumConnectionsPerHost = 48
        self.session = URLSession(configuration: configuration)
        self.maximumResponseBytes = maximumResponseBytes
    }

    deinit { session.finishTasksAndInvalidate() }

    public func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        var urlRequest = URLRequest(url: request.url, timeoutInterval: request.timeout)
        urlRequest.httpMethod = request.method
        for header in request.headers { urlRequest.addValue(header.value, forHTTPHeaderField: header.name) }
        urlRequest.httpBody = request.body
        let data: Data
        let response: URLResponse
        do {
            (data, response) = try await session.data(for: urlRequest)
        } catch let error as URLError {
            if error.code == .cancelled || Task.isCancelled { throw CancellationError() }
            throw Self.failure(for: error)
        } catch {
            if Task.isCancelled { throw CancellationError() }
            throw TransportFailure(kind: .other, detail: error.localizedDescription)
        }
        guard let http = response as? HTTPURLResponse else {
            throw TransportFailure(kind: .other, detail: "the answer was not HTTP")
        }
        guard data.count <= maximumResponseBytes else {
            throw TransportFailure(kind: .responseTooLarge, detail: "\(data.count) bytes")
        }
        var headers: [String: String] = [:]
        for (key, value) in http.allHeaderFields {
            if let key = key as? String, let value = value as? String { headers[key.lowercased()] = value }
        }
        return HTTPResponse(status: http.statusCode, headers: headers, body: data)
    }

    static func failure(for error: URLError) -> TransportFailure {
        let host = error.failingURL?.host ?? "server"
        switch error.code {
        case .timedOut: return TransportFailure(kind: .timedOut, detail: "no answer from \(host) in time")
        case .cannotConnectToHost, .notConnectedToInternet:
            return TransportFailure(kind: .cannotConnect, detail: "\(host) refused or is unreachable")
        case .cannotFindHost, .dnsLookupFailed: return TransportFailure(kind: .dns, detail: host)
        case .networkConnectionLost: return TransportFailure(kind: .connectionLost, detail: "\(host) closed the connection")
        case .secureConnectionFailed, .serverCertificateUntrusted, .serverCertificateHasBadDate,
             .serverCertificateNotYetValid, .serverCertificateHasUnknownRoot, .clientCertificateRejected:
            return TransportFailure(kind: .tls, detail: host)
        case .dataLengthExceedsMaximum: return TransportFailure(kind: .responseTooLarge, detail: host)
        default: return TransportFailure(kind: .other, detail: "\(host): \(error.localizedDescription)")
        }
    }
}
