import Foundation

public struct HTTPRequest: Sendable, Equatable {
    public var method: String
    public var url: URL
    /// Header names as sent; order kept.
    public var headers: [(name: String, value: String)]
    public var body: Data?
    /// Seconds the whole exchange may take: connecting, sending, the answer and its body.
    public var timeout: TimeInterval

    public init(method: String, url: URL, headers: [(name: String, value: String)] = [], body: Data? = nil, timeout: TimeInterval = 30) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
        self.timeout = timeout
    }

    public func header(_ name: String) -> String? {
        headers.first { $0.name.caseInsensitiveCompare(name) == .orderedSame }?.value
    }

    public static func == (lhs: HTTPRequest, rhs: HTTPRequest) -> Bool {
        lhs.method == rhs.method && lhs.url == rhs.url && lhs.body == rhs.body && lhs.timeout == rhs.timeout
            && lhs.headers.map(\.name) == rhs.headers.map(\.name) && lhs.headers.map(\.value) == rhs.headers.map(\.value)
    }
}

public struct HTTPResponse: Sendable, Equatable {
    public var status: Int
    /// Header names lowercased.
    public var headers: [String: String]
    public var body: Data

    public init(status: Int, headers: [String: String] = [:], body: Data = Data()) {
        self.status = status
        self.headers = Dictionary(headers.map { ($0.key.lowercased(), $0.value) }, uniquingKeysWith: { _, last in last })
        self.body = body
    }

    public func header(_ name: String) -> String? { headers[name.lowercased()] }
}

/// The one seam between the client and the network; tests inject their own.
public protocol HTTPTransport: Sendable {
    /// Sends the request; throws `TransportFailure` when no HTTP answer arrived (kind `.timedOut`
    /// when no complete answer arrived within `request.timeout`) and `CancellationError` when the
    /// calling task was cancelled. `AsyncHTTPClientTransport` is the network's.
    func send(_ request: HTTPRequest) async throws -> HTTPResponse
}
