@testable import AppStoreServerAPI
import Crypto
import Foundation
import Testing

/// A cached chain saves work per payload, never a check: other signatures, other certificates and
/// other dates are judged as if nothing had been cached.
@Suite struct CachedChainTests {
    let authority: SigningCertificateAuthority
    let verifier: SignedDataVerifier

    init() throws {
        authority = try SigningCertificateAuthority(
            validFrom: Date(timeIntervalSince1970: 1_600_000_000), validUntil: Date(timeIntervalSince1970: 2_000_000_000),
            name: "Cache Test")
        verifier = try SignedDataVerifier(
            bundleId: "com.example", appAppleId: nil, environment: .sandbox, additionalRoots: [authority.rootDER], trustAppleRoot: false)
    }

    func transaction(_ id: Int, signedAt: Int64 = 1_750_000_000_123) -> Data {
        Data(#"{"transactionId":"\#(id)","originalTransactionId":"1","bundleId":"com.example","signedDate":\#(signedAt),"environment":"Sandbox"}"#.utf8)
    }

    func parts(_ jws: String) -> [String] { jws.split(separator: ".", omittingEmptySubsequences: false).map(String.init) }

    @Test func theSameHeaderWithAnotherSignatureFails() async throws {
        let first = authority.signer.sign(json: transaction(1))
        let second = authority.signer.sign(json: transaction(2))
        #expect(await verifier.verifyTransaction(first).status == .verified)
        #expect(await verifier.verifyTransaction(second).status == .verified)
        // Second's header and payload with first's signature: the cached header must not carry it.
        let swapped = parts(second)[0] + "." + parts(second)[1] + "." + parts(first)[2]
        #expect(await verifier.verifyTransaction(swapped).status == .failed(.invalidSignature))
        // One bit of the payload changed under a valid signature.
        var payload = Array(parts(second)[1].utf8)
        payload[10] = payload[10] == UInt8(ascii: "A") ? UInt8(ascii: "B") : UInt8(ascii: "A")
        let altered = parts(second)[0] + "." + String(decoding: payload, as: UTF8.self) + "." + parts(second)[2]
        #expect(await verifier.verifyTransaction(altered).status.isVerified == false)
        // And the genuine one still verifies after the failures.
        #expect(await verifier.verifyTransaction(second).status == .verified)
    }

    @Test func aChainWithOneByteChangedFailsAfterACachedSuccess() async throws {
        #expect(await verifier.verifyTransaction(authority.signer.sign(json: transaction(1))).status == .verified)
        var x5c = authority.signer.x5c
        // A byte inside the leaf certificate's signature (its last bytes): the key is unchanged, so the
        // payload's own signature is still right, but the intermediate no longer signed this leaf.
        var leaf = try #require(Data(base64Encoded: x5c[0]))
        leaf[leaf.count - 5] ^= 0x01
        x5c[0] = leaf.base64EncodedString()
        let tampered = authority.signer.sign(json: transaction(3), alg: "ES256", x5c: x5c)
        let status = await verifier.verifyTransaction(tampered).status
        guard case .failed(.untrustedChain) = status else { Issue.record("expected an untrusted chain, got \(status)"); return }
        // A chain with the intermediate changed instead.
        var other = authority.signer.x5c
        var intermediate = try #require(Data(base64Encoded: other[1]))
        intermediate[intermediate.count - 5] ^= 0x01
        other[1] = intermediate.base64EncodedString()
        let status2 = await verifier.verifyTransaction(authority.signer.sign(json: transaction(4), alg: "ES256", x5c: other)).status
        guard case .failed(.untrustedChain) = status2 else { Issue.record("expected an untrusted chain, got \(status2)"); return }
    }

    @Test func aCachedChainIsStillCheckedAtEachSignedDate() async throws {
        #expect(await verifier.verifyTransaction(authority.signer.sign(json: transaction(1))).status == .verified)
        // Signed after the certificates expired: the same header, so the cached chain, must refuse it.
        let late = authority.signer.sign(json: transaction(2, signedAt: 2_100_000_000_000))
        guard case .failed(.untrustedChain) = await verifier.verifyTransaction(late).status else {
            Issue.record("a payload signed outside the chain's validity must fail"); return
        }
    }

    @Test func aCachedChainStillChecksBundleAndEnvironment() async throws {
        #expect(await verifier.verifyTransaction(authority.signer.sign(json: transaction(1))).status == .verified)
        let otherApp = authority.signer.sign(json: Data(#"{"transactionId":"5","bundleId":"com.other","signedDate":1750000000123,"environment":"Sandbox"}"#.utf8))
        #expect(await verifier.verifyTransaction(otherApp).status == .failed(.wrongBundleId(expected: "com.example", found: "com.other")))
        let production = authority.signer.sign(json: Data(#"{"transactionId":"6","bundleId":"com.example","signedDate":1750000000123,"environment":"Production"}"#.utf8))
        #expect(await verifier.verifyTransaction(production).status == .failed(.wrongEnvironment(expected: .sandbox, found: .production)))
    }

    @Test func anotherAlgorithmUnderACachedChainIsRefused() async throws {
        #expect(await verifier.verifyTransaction(authority.signer.sign(json: transaction(1))).status == .verified)
        let other = authority.signer.sign(json: transaction(2), alg: "ES384", x5c: authority.signer.x5c)
        #expect(await verifier.verifyTransaction(other).status == .failed(.unsupportedAlgorithm("ES384")))
    }
}

/// Chains are remembered by their certificates, whatever header carries them; a header only once a
/// signature under it verified.
@Suite struct ChainCacheByCertificatesTests {
    let authority: SigningCertificateAuthority
    let verifier: SignedDataVerifier

    init() throws {
        authority = try SigningCertificateAuthority(
            validFrom: Date(timeIntervalSince1970: 1_600_000_000), validUntil: Date(timeIntervalSince1970: 2_000_000_000),
            name: "Chain Key Test")
        verifier = try SignedDataVerifier(
            bundleId: "com.example", appAppleId: nil, environment: .sandbox, additionalRoots: [authority.rootDER], trustAppleRoot: false)
    }

    func transaction(_ id: Int) -> Data {
        Data(#"{"transactionId":"\#(id)","originalTransactionId":"1","bundleId":"com.example","signedDate":1750000000123,"environment":"Sandbox"}"#.utf8)
    }

    /// A JWS whose header carries `kid` besides alg, x5c and typ (another header segment for the
    /// same certificates), signed with `key`.
    static func sign(_ payload: Data, kid: String, x5c: [String], key: P256.Signing.PrivateKey) throws -> String {
        let header = #"{"alg":"ES256","kid":"\#(kid)","x5c":[\#(x5c.map { "\"\($0)\"" }.joined(separator: ","))],"typ":"JWT"}"#
        let input = Base64URL.encode(Data(header.utf8)) + "." + Base64URL.encode(payload)
        return input + "." + Base64URL.encode(try key.signature(for: Data(input.utf8)).rawRepresentation)
    }

    static func headerSegment(_ jws: String) -> Substring { jws.split(separator: ".")[0] }

    @Test func theSameCertificatesUnderAnotherHeaderAreNotBuiltAgainAndStillChecked() async throws {
        let x5c = authority.signer.x5c
        #expect(await verifier.verifyTransaction(authority.signer.sign(json: transaction(1))).status == .verified)
        #expect(verifier.chains.chainsBuilt == 1)
        // Another header, the same certificates, a genuine signature: verified from the cached chain.
        let genuine = try Self.sign(transaction(2), kid: "a", x5c: x5c, key: authority.leafKey)
        #expect(await verifier.verifyTransaction(genuine).status == .verified)
        // A forged one under a third header: refused by its signature, still without building the chain.
        let forged = try Self.sign(transaction(3), kid: "b", x5c: x5c, key: P256.Signing.PrivateKey())
        #expect(await verifier.verifyTransaction(forged).status == .failed(.invalidSignature))
        var spoiled = Array(try Self.sign(transaction(4), kid: "c", x5c: x5c, key: authority.leafKey).utf8)
        spoiled[spoiled.count - 12] = spoiled[spoiled.count - 12] == UInt8(ascii: "A") ? UInt8(ascii: "B") : UInt8(ascii: "A")
        let spoiledJWS = String(decoding: spoiled, as: UTF8.self)
        #expect(await verifier.verifyNotification(spoiledJWS, cheapestFirst: true).notification.status.isVerified == false)
        #expect(await verifier.verifyTransaction(spoiledJWS).status == .failed(.invalidSignature))
        #expect(verifier.chains.chainsBuilt == 1)
        // Only the header a signature verified under is remembered as a header.
        #expect(verifier.chains.trustedHeader(Self.headerSegment(genuine)) != nil)
        #expect(verifier.chains.trustedHeader(Self.headerSegment(forged)) == nil)
        #expect(verifier.chains.trustedHeader(Self.headerSegment(spoiledJWS)) == nil)
        // And a forged body under the very header that is remembered is refused too.
        let underRemembered = Self.headerSegment(genuine) + "." + Base64URL.encode(transaction(5)) + "." + genuine.split(separator: ".")[2]
        #expect(await verifier.verifyTransaction(String(underRemembered)).status == .failed(.invalidSignature))
    }

    @Test func anotherLeafIsNotServedFromTheCache() async throws {
        #expect(await verifier.verifyTransaction(authority.signer.sign(json: transaction(1))).status == .verified)
        let stranger = try SigningCertificateAuthority(
            validFrom: Date(timeIntervalSince1970: 1_600_000_000), validUntil: Date(timeIntervalSince1970: 2_000_000_000),
            name: "Chain Key Test")
        // Another leaf (same names, another key, not issued by this intermediate) beside the
        // cached chain's intermediate and root, signing with its own key.
        let strangerLeaf = stranger.signer.x5c[0]
        let mixed = [strangerLeaf] + authority.signer.x5c.dropFirst()
        let jws = try Self.sign(transaction(2), kid: "a", x5c: mixed, key: stranger.leafKey)
        guard case .failed(.untrustedChain) = await verifier.verifyTransaction(jws).status else {
            Issue.record("another leaf must be validated on its own and refused"); return
        }
        #expect(verifier.chains.chainsBuilt == 2)
        // The cached chain's certificates with the stranger's key: the cached leaf key refuses it.
        let wrongKey = try Self.sign(transaction(3), kid: "b", x5c: authority.signer.x5c, key: stranger.leafKey)
        #expect(await verifier.verifyTransaction(wrongKey).status == .failed(.invalidSignature))
        // The refused chain was not remembered: sent again, it is built and refused again.
        guard case .failed(.untrustedChain) = await verifier.verifyTransaction(jws).status else {
            Issue.record("a refused chain must stay refused"); return
        }
        #expect(verifier.chains.chainsBuilt == 3)
    }
}
