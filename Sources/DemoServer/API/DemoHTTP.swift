import AppStoreServerAPI
import Foundation

/// A request as the demo's routes see it, independent of the HTTP server library.
public struct DemoRequest: Sendable {
    public var method: String
    /// Percent-decoded path segments, without the environment prefix.
    public var segments: [String]
    public var query: [(name: String, value: String)]
    /// Header names lowercased.
    public var headers: [String: String]
    public var body: Data

    public init(method: String, segments: [String], query: [(name: String, value: String)], headers: [String: String], body: Data) {
        self.method = method
        self.segments = segments
        self.query = query
        self.headers = headers
        self.body = body
    }

    func queryValues(_ name: String) -> [String] { query.filter { $0.name == name }.map(\.value) }
    func queryValue(_ name: String) -> String? { query.first { $0.name == name }?.value }
}

public struct DemoResponse: Sendable {
    public var status: Int
    public var headers: [(name: String, value: String)]
    public var body: Data

    public init(status: Int, headers: [(name: String, value: String)] = [], body: Data = Data()) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    static func json(_ value: some Encodable, status: Int = 200) -> DemoResponse {
        let body = (try? AppStoreJSON.encoder().encode(value)) ?? Data("{}".utf8)
        return DemoResponse(status: status, headers: [("Content-Type", "application/json")], body: body)
    }

    static let empty = DemoResponse(status: 200)
}

/// An answer in Apple's error shape: the status is the first three digits of the code.
struct DemoAPIError: Error, Sendable {
    let code: Int64
    let message: String
    var retryAfter: Date?

    init(_ code: Int64, _ message: String) {
        self.code = code
        self.message = message
    }

    var status: Int { Int(code / 10_000) }

    var response: DemoResponse {
        var response = DemoResponse.json(ErrorPayload(errorCode: code, errorMessage: message), status: status)
        // Apple's Python client reads error bodies only under exactly this content type.
        response.headers = [("Content-Type", "application/json")]
        if let retryAfter { response.headers.append(("Retry-After", String(retryAfter.epochMilliseconds))) }
        return response
    }

    static let invalidTransactionId = DemoAPIError(4_000_006, "Invalid transaction id.")
    static let invalidOriginalTransactionId = DemoAPIError(4_000_008, "Invalid original transaction id.")
    static let transactionIdNotFound = DemoAPIError(4_040_010, "Transaction id not found.")
    static let originalTransactionIdNotFound = DemoAPIError(4_040_005, "Original transaction id not found.")
    static let appTransactionIdNotSupported = DemoAPIError(4_000_048, "Invalid request. App transactions aren't supported by this endpoint.")
    static let rateLimitExceeded = DemoAPIError(4_290_000, "Rate limit exceeded.")
    static let generalInternal = DemoAPIError(5_000_000, "An unknown error occurred.")
    static let generalInternalRetryable = DemoAPIError(5_000_001, "An unknown error occurred. Please try again.")
}
