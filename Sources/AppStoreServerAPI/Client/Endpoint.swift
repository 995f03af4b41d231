import Crypto
import Foundation

/// One App Store Server API call described as data: the client turns it into a request,
/// sends it with authentication and retries, and decodes the answer.
public struct Endpoint<Response: Sendable>: Sendable {
    /// Apple's title for the endpoint, used in errors and logs.
    public let name: String
    public let method: String
    /// Path with its parameters already filled in and percent-encoded.
    public let path: String
    public let query: [(name: String, value: String)]
    public let body: Data?
    /// The body's media type: JSON unless said otherwise (Upload Image sends a PNG).
    public let contentType: String
    /// Safe to send twice: reads, and writes carrying a request identifier.
    public let isIdempotent: Bool
    /// Apple serves it in Production only.
    public let isProductionOnly: Bool
    let decode: @Sendable (Data) throws(JSONDecodeFailure) -> Response

    init(
        name: String, method: String, path: String, query: [(name: String, value: String)] = [],
        body: Data? = nil, contentType: String = "application/json", isIdempotent: Bool, isProductionOnly: Bool = false,
        decode: @escaping @Sendable (Data) throws(JSONDecodeFailure) -> Response
    ) {
        self.name = name
        self.method = method
        self.path = path
        self.query = query
        self.body = body
        self.contentType = contentType
        self.isIdempotent = isIdempotent
        self.isProductionOnly = isProductionOnly
        self.decode = decode
    }

    /// The URL this call goes to on `baseURL`.
    public func url(baseURL: URL) -> URL {
        var components = URLComponents(url: baseURL, resolvingAgainstBaseURL: false)!
        let basePath = components.percentEncodedPath.hasSuffix("/") ? String(components.percentEncodedPath.dropLast()) : components.percentEncodedPath
        components.percentEncodedPath = basePath + path
        if !query.isEmpty {
            components.percentEncodedQuery = query
                .map { "\(Self.encodeQueryPart($0.name))=\(Self.encodeQueryPart($0.value))" }
                .joined(separator: "&")
        }
        return components.url!
    }

    /// The body as a person reads it and the audit ledger keeps it: JSON as it is sent, a binary body
    /// (an image) as its type, size and SHA-256, never its bytes.
    public var describedBody: String? {
        guard let body else { return nil }
        guard contentType != "application/json" else { return String(decoding: body, as: UTF8.self) }
        let digest = SHA256.hash(data: body).map { String(format: "%02x", $0) }.joined()
        return "(\(contentType), \(body.count) bytes, SHA-256 \(digest))"
    }

    static func encodeQueryPart(_ text: String) -> String {
        var allowed = CharacterSet.urlQueryAllowed
        allowed.remove(charactersIn: "&=+?#")
        return text.addingPercentEncoding(withAllowedCharacters: allowed) ?? text
    }
}

/// A success answer with no body (202 Accepted, 200 with empty body).
public struct NoContent: Sendable, Equatable {
    public init() {}
}

extension Endpoint {
    static func json(
        _ name: String, _ method: String, _ path: String, query: [(name: String, value: String)] = [],
        body: Data? = nil, idempotent: Bool, productionOnly: Bool = false
    ) -> Endpoint where Response: Decodable {
        Endpoint(
            name: name, method: method, path: path, query: query, body: body, isIdempotent: idempotent,
            isProductionOnly: productionOnly
        ) { data throws(JSONDecodeFailure) in
            try AppStoreJSON.decode(Response.self, from: data)
        }
    }
}

extension Endpoint where Response == NoContent {
    static func empty(
        _ name: String, _ method: String, _ path: String, query: [(name: String, value: String)] = [], body: Data? = nil,
        contentType: String = "application/json", idempotent: Bool
    ) -> Endpoint {
        Endpoint(name: name, method: method, path: path, query: query, body: body, contentType: contentType, isIdempotent: idempotent) { _ in
            NoContent()
        }
    }
}

/// Percent-encodes one path segment, so an ID can never change the path.
func pathSegment(_ value: String) -> String {
    var allowed = CharacterSet.urlPathAllowed
    allowed.remove(charactersIn: "/;?#%")
    return value.addingPercentEncoding(withAllowedCharacters: allowed) ?? value
}
