import AppStoreServerAPI
import Crypto
@testable import DemoServer
import Foundation
import JWTKit
import Testing

/// Request tokens Apple refuses get 401 from the demo too, with no error code; the tokens Apple's
/// libraries send (Swift's with `iat`, Python's without) pass.
@Suite struct RequestTokenRuleTests {
    /// A token's header and claims, each field replaceable; by default what Apple's Swift library sends.
    struct TokenParts {
        var kid: String? = DemoServer.keyId
        var iss = DemoServer.issuerId
        var aud = RequestTokenSigner.audience
        var bid = DemoServer.bundleId
        var issuedAt: TimeInterval? = 0
        var expiresAt: TimeInterval = 300
        var key: P256.Signing.PrivateKey?
    }

    func token(_ parts: TokenParts, server: DemoServer, now: Date) async throws -> String {
        let keys = JWTKeyCollection()
        let key = try ES256PrivateKey(backing: parts.key ?? server.signingKey)
        await keys.add(ecdsa: key, kid: parts.kid.map { JWKIdentifier(string: $0) })
        let seconds = now.timeIntervalSince1970
        let claims = RequestTokenClaims(
            iss: parts.iss, iat: parts.issuedAt.map { Int(seconds + $0) }, exp: Int(seconds + parts.expiresAt), aud: parts.aud, bid: parts.bid)
        var header = JWTHeader()
        header.typ = "JWT"
        return try await keys.sign(claims, kid: parts.kid.map { JWKIdentifier(string: $0) }, header: header)
    }

    /// The status and body of a Get Transaction Info request carrying `token`.
    func send(_ token: String, server: DemoServer) async throws -> (status: Int, body: Data) {
        let transactionId = try server.customer("Active monthly subscription").originalTransactionId
        let url = server.productionURL.appendingPathComponent("inApps/v1/transactions/\(transactionId)")
        let request = AppStoreServerAPI.HTTPRequest(method: "GET", url: url, headers: [("Authorization", "Bearer \(token)")], timeout: 30)
        let response = try await AsyncHTTPClientTransport().send(request)
        return (response.status, response.body)
    }

    func status(_ change: (inout TokenParts) -> Void) async throws -> Int {
        let server = try await SharedDemo.get()
        var parts = TokenParts()
        change(&parts)
        let (status, body) = try await send(try await token(parts, server: server, now: Date()), server: server)
        if status == 401 { #expect(body.isEmpty, "Apple's 401 carries no error code") }
        return status
    }

    @Test func theTokensApplesLibrariesSendPass() async throws {
        #expect(try await status { _ in } == 200)
        #expect(try await status { $0.issuedAt = nil } == 200, "Apple's Python library sends no iat")
        #expect(try await status { $0.expiresAt = 3600 } == 200, "a lifetime of exactly 60 minutes")
    }

    @Test func aKeyIDOtherThanTheKeysIsRefused() async throws {
        #expect(try await status { $0.kid = "ZZZZZZZZZZ" } == 401)
        #expect(try await status { $0.kid = nil } == 401)
    }

    @Test func aTokenSignedWithAnotherKeyIsRefused() async throws {
        #expect(try await status { $0.key = P256.Signing.PrivateKey() } == 401)
    }

    @Test func wrongIssuerAudienceOrBundleIsRefused() async throws {
        #expect(try await status { $0.iss = "00000000-0000-0000-0000-000000000000" } == 401)
        #expect(try await status { $0.aud = "appstoreconnect-v2" } == 401)
        #expect(try await status { $0.bid = "com.someone.else" } == 401)
        #expect(try await status { $0.bid = "" } == 401)
    }

    @Test func timesOutsideApplesWindowsAreRefused() async throws {
        #expect(try await status { $0.issuedAt = 600; $0.expiresAt = 900 } == 401, "issued ten minutes in the future")
        #expect(try await status { $0.issuedAt = -900; $0.expiresAt = -300 } == 401, "expired five minutes ago")
        #expect(try await status { $0.expiresAt = 3660 } == 401, "a lifetime over 60 minutes")
        #expect(try await status { $0.issuedAt = nil; $0.expiresAt = 7200 } == 401, "no iat and two hours to live")
    }

    @Test func anAlgorithmOtherThanES256IsRefused() async throws {
        let server = try await SharedDemo.get()
        let keys = JWTKeyCollection()
        await keys.add(hmac: HMACKey(from: String(repeating: "s", count: 32)), digestAlgorithm: .sha256, kid: JWKIdentifier(string: DemoServer.keyId))
        let claims = RequestTokenClaims(
            iss: DemoServer.issuerId, iat: Int(Date().timeIntervalSince1970), exp: Int(Date().timeIntervalSince1970) + 300,
            aud: RequestTokenSigner.audience, bid: DemoServer.bundleId)
        let token = try await keys.sign(claims, kid: JWKIdentifier(string: DemoServer.keyId))
        #expect(try await send(token, server: server).status == 401)
    }
}
