import AppStoreServerAPI
import Crypto
@testable import DemoServer
import Foundation
import JWTKit
import Testing

/// A verified token is remembered, but every request still has its times checked, and a token
/// that differs in any byte is verified from scratch.
@Suite struct TokenCacheTests {
    let key = P256.Signing.PrivateKey()

    func authenticator() async throws -> RequestAuthenticator {
        await RequestAuthenticator(
            publicKey: try ES256PublicKey(backing: key.publicKey), keyId: DemoServer.keyId, issuerId: DemoServer.issuerId,
            bundleId: DemoServer.bundleId)
    }

    func token(now: Date) async throws -> String {
        let credentials = Credentials(
            issuerId: DemoServer.issuerId, keyId: DemoServer.keyId, bundleId: DemoServer.bundleId, signingKey: SigningKey(key))
        return try await RequestTokenSigner(credentials: credentials).token(now: now)
    }

    @Test func aRememberedTokenStillExpires() async throws {
        let check = try await authenticator()
        let now = Date()
        let token = try await token(now: now)
        #expect(await check.refusal(authorization: "Bearer \(token)", now: now) == nil)
        #expect(await check.refusal(authorization: "Bearer \(token)", now: now) == nil)
        #expect(await check.refusal(authorization: "Bearer \(token)", now: now.addingTimeInterval(3600)) == "expired")
    }

    @Test func aTokenChangedInOneByteIsRefusedAfterTheGenuineOnePassed() async throws {
        let check = try await authenticator()
        let now = Date()
        let token = try await token(now: now)
        #expect(await check.refusal(authorization: "Bearer \(token)", now: now) == nil)
        var bytes = Array(token.utf8)
        let index = bytes.count - 10
        bytes[index] = bytes[index] == UInt8(ascii: "A") ? UInt8(ascii: "B") : UInt8(ascii: "A")
        let altered = String(decoding: bytes, as: UTF8.self)
        #expect(await check.refusal(authorization: "Bearer \(altered)", now: now) != nil)
    }
}
