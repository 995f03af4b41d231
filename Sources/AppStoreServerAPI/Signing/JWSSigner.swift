import Crypto
import Foundation

/// Signs payloads as App Store signed data: header {alg ES256, x5c, typ JWT}, raw 64-byte r||s signature.
public struct JWSSigner: Sendable {
    let key: P256.Signing.PrivateKey
    public let x5c: [String]
    private let encodedHeader: String

    init(key: P256.Signing.PrivateKey, x5c: [String]) {
        self.key = key
        self.x5c = x5c
        self.encodedHeader = Self.base64URL(Self.headerJSON(alg: "ES256", x5c: x5c))
    }

    /// Signs JSON bytes as they are.
    public func sign(json: Data) -> String {
        signRaw(header: encodedHeader, payload: json)
    }

    /// Signs any Encodable with App Store JSON rules (dates as epoch milliseconds).
    public func sign(_ payload: some Encodable) throws -> String {
        sign(json: try AppStoreJSON.encoder().encode(payload))
    }

    /// Signs with a header of the caller's choosing (tests use this to build malformed JWS).
    public func sign(json: Data, alg: String, x5c: [String]?) -> String {
        signRaw(header: Self.base64URL(Self.headerJSON(alg: alg, x5c: x5c)), payload: json)
    }

    private func signRaw(header: String, payload: Data) -> String {
        let input = header + "." + Self.base64URL(payload)
        // Signing with an in-memory P-256 key only fails on memory exhaustion.
        let signature = try! key.signature(for: Data(input.utf8))
        return input + "." + Self.base64URL(signature.rawRepresentation)
    }

    private static func headerJSON(alg: String, x5c: [String]?) -> Data {
        var members = [#""alg":"\#(alg)""#]
        if let x5c { members.append(#""x5c":[\#(x5c.map { "\"\($0)\"" }.joined(separator: ","))]"#) }
        members.append(#""typ":"JWT""#)
        return Data("{\(members.joined(separator: ","))}".utf8)
    }

    static func base64URL(_ data: Data) -> String { Base64URL.encode(data) }
}

