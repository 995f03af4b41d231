import Foundation
import JWTKit

/// Signs the ES256 bearer token every request carries, and reuses it until shortly before it expires.
public actor RequestTokenSigner {
    public static let audience = "appstoreconnect-v1"

    private let credentials: Credentials
    private let key: ES256PrivateKey
    private let keys = JWTKeyCollection()
    private var keyRegistered = false
    /// Token lifetime; Apple refuses more than 60 minutes.
    public let lifetime: TimeInterval
    /// A cached token is replaced when less than this is left.
    public let renewalMargin: TimeInterval
    private var cached: (token: String, expires: Date)?

    public init(credentials: Credentials, lifetime: TimeInterval = 300, renewalMargin: TimeInterval = 60) throws {
        guard lifetime > renewalMargin, lifetime <= 3600 else {
            throw APIError.invalidRequest("Token lifetime must be longer than the renewal margin and at most 60 minutes.")
        }
        self.credentials = credentials
        self.lifetime = lifetime
        self.renewalMargin = renewalMargin
        self.key = try ES256PrivateKey(backing: credentials.signingKey.privateKey)
    }

    /// A token valid for at least `renewalMargin` seconds from `now`.
    public func token(now: Date = Date()) async throws -> String {
        if let cached, cached.expires.timeIntervalSince(now) > renewalMargin {
            return cached.token
        }
        let token = try await sign(now: now)
        cached = (token, now.addingTimeInterval(lifetime))
        return token
    }

    /// A fresh token, bypassing the cache.
    public func sign(now: Date = Date()) async throws -> String {
        if !keyRegistered {
            await keys.add(ecdsa: key, kid: JWKIdentifier(string: credentials.keyId))
            keyRegistered = true
        }
        let issuedAt = Int(now.timeIntervalSince1970)
        let claims = RequestTokenClaims(
            iss: credentials.issuerId,
            iat: issuedAt,
            exp: issuedAt + Int(lifetime),
            aud: Self.audience,
            bid: credentials.bundleId
        )
        var header = JWTHeader()
        header.typ = "JWT"
        return try await keys.sign(claims, kid: JWKIdentifier(string: credentials.keyId), header: header)
    }
}

/// The claims Apple reads from a request token.
public struct RequestTokenClaims: JWTPayload, Equatable {
    public var iss: String
    public var iat: Int?
    public var exp: Int
    public var aud: String
    public var bid: String

    public init(iss: String, iat: Int?, exp: Int, aud: String, bid: String) {
        self.iss = iss
        self.iat = iat
        self.exp = exp
        self.aud = aud
        self.bid = bid
    }

    public func verify(using algorithm: some JWTAlgorithm) async throws {}
}
