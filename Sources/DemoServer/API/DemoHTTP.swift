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
    /// Seconds between the body's bytes (a fault); 0 sends it at once.
    var trickle: TimeInterval = 0

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
