import AppStoreServerAPI
import Foundation
import JWTKit
import Synchronization

/// Checks bearer tokens as Apple does: header `alg` ES256 and `kid` the demo key's, signed with that
/// key; claims `iss`, `aud`, `bid` the demo's, a lifetime of at most 60 minutes, not expired, not
/// issued in the future. A token without `iat` is accepted (Apple's Python client sends none).
struct RequestAuthenticator: Sendable {
    let keyId: String
    let issuerId: String
    let bundleId: String
    private let keys: JWTKeyCollection
    /// Tokens whose signature already verified, with their claims: a client sends one token for
    /// many requests (up to its hour), so the signature is checked once per token, not per request.
    /// The claims' times are still checked on every request.
    private let verified = VerifiedTokens()
    static let leeway: TimeInterval = 60

    init(publicKey: ES256PublicKey, keyId: String, issuerId: String, bundleId: String) async {
        self.keyId = keyId
        self.issuerId = issuerId
        self.bundleId = bundleId
        self.keys = JWTKeyCollection()
        await keys.add(ecdsa: publicKey, kid: JWKIdentifier(string: keyId))
    }

    /// Nil when the request may proceed; otherwise why it is refused (for the log, never the client).
    func refusal(authorization: String?, now: Date) async -> String? {
        guard let authorization, authorization.hasPrefix("Bearer ") else { return "no bearer token" }
        let token = String(authorization.dropFirst("Bearer ".count)).trimmingCharacters(in: .whitespaces)
        let claims: RequestTokenClaims
        if let known = verified.claims(for: token) {
            claims = known
        } else {
            // JWTKit falls back to its default key for an unknown `kid`; Apple refuses the token.
            if let problem = headerProblem(token) { return problem }
            do {
                claims = try await keys.verify(token, as: RequestTokenClaims.self)
            } catch {
                return "signature, key ID or format rejected"
            }
            verified.remember(token, claims)
        }
        let nowSeconds = Int(now.timeIntervalSince1970)
        if claims.aud != RequestTokenSigner.audience { return "wrong audience" }
        if claims.iss != issuerId { return "wrong issuer" }
        if claims.bid != bundleId { return "wrong bundle ID" }
        if claims.exp < nowSeconds - Int(Self.leeway) { return "expired" }
        if let iat = claims.iat {
            if iat > nowSeconds + Int(Self.leeway) { return "issued in the future" }
            if claims.exp - iat > 3600 { return "lifetime over 60 minutes" }
        } else if claims.exp - nowSeconds > 3600 {
            return "lifetime over 60 minutes"
        }
        return nil
    }

    /// Why the token's header is not one Apple accepts for this key, if it is not.
    private func headerProblem(_ token: String) -> String? {
        guard let encoded = token.split(separator: ".", omittingEmptySubsequences: false).first,
              let data = Base64URL.decode(encoded),
              let header = try? JSONDecoder().decode(RequestTokenHeader.self, from: data)
        else { return "unreadable header" }
        if header.alg != "ES256" { return "algorithm not ES256" }
        guard let kid = header.kid else { return "no key ID" }
        if kid != keyId { return "unknown key ID" }
        return nil
    }
}

/// The header fields Apple checks in a request token.
private struct RequestTokenHeader: Decodable {
    let alg: String?
    let kid: String?
}

/// Verified tokens by their exact text; a bounded set, emptied when full.
final class VerifiedTokens: Sendable {
    private let entries = Mutex<[String: RequestTokenClaims]>([:])
    static let limit = 256

    func claims(for token: String) -> RequestTokenClaims? { entries.withLock { $0[token] } }

    func remember(_ token: String, _ claims: RequestTokenClaims) {
        entries.withLock { entries in
            if entries.count >= Self.limit { entries.removeAll(keepingCapacity: true) }
            entries[token] = claims
        }
    }
}
