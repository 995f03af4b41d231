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
        // 16 per host: a windowed history's requests go out two or three deep instead of six. With
        // 48, concurrent runs of many clients left requests waiting for seconds on Linux's
        // libcurl-based URLSession.
        configuration.httpMaximumConnectionsPerHost = 16
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
            (data, response) = try await perform(urlRequest)
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

    /// The request as a data task whose cancellation is handed to another queue: a cancel made on
    /// a task's own thread must never wait there for URLSession's locks (Swift's pool has one
    /// thread per core, and the async `data(for:)` froze whole runs of concurrent requests).
    private func perform(_ request: URLRequest) async throws -> (Data, URLResponse) {
        let handle = DataTaskHandle()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<(Data, URLResponse), any Error>) in
                let task = session.dataTask(with: request) { data, response, error in
                    if let error {
                        continuation.resume(throwing: error)
                    } else if let data, let response {
                        continuation.resume(returning: (data, response))
                    } else {
                        continuation.resume(throwing: URLError(.badServerResponse))
                    }
                }
                handle.start(task)
            }
        } onCancel: {
            handle.cancel()
        }
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

/// A data task and whether its Swift task was cancelled, whichever comes first.
private final class DataTaskHandle: @unchecked Sendable {
    private let lock = NSLock()
    private var task: URLSessionDataTask?
    private var cancelled = false

    func start(_ task: URLSessionDataTask) {
        lock.lock()
        self.task = task
        let cancelled = self.cancelled
        lock.unlock()
        task.resume()
        if cancelled { Self.cancelElsewhere(task) }
    }

    func cancel() {
        lock.lock()
        cancelled = true
        let task = self.task
        lock.unlock()
        if let task { Self.cancelElsewhere(task) }
    }

    private static func cancelElsewhere(_ task: URLSessionDataTask) {
        let task = UncheckedTask(task)
        DispatchQueue.global().async { task.value.cancel() }
    }
}

private struct UncheckedTask: @unchecked Sendable {
    let value: URLSessionDataTask
    init(_ value: URLSessionDataTask) { self.value = value }
}
