@testable import AppStoreServerAPI
import Foundation
import SwiftASN1
import Testing
import X509

/// One test per rule of the chain policy: each builds an Apple-shaped chain that breaks only that
/// rule and expects it refused, as Apple's own verifiers (swift-certificates' RFC 5280 policy with an
/// empty list of processed critical extensions; OpenSSL in strict mode) refuse it.
@Suite struct ChainPolicyTests {
    static let signedDate = Date(timeIntervalSince1970: 1_750_000_000)
    static let payload = #"{"transactionId":"1","originalTransactionId":"1","bundleId":"com.example","environment":"Sandbox","signedDate":1750000000000}"#

    func status(_ builder: ChainBuilder, payload: String = payload) async throws -> VerificationStatus {
        let chain = try builder.build()
        let verifier = try SignedDataVerifier(
            bundleId: "com.example", appAppleId: nil, environment: .sandbox, additionalRoots: [chain.rootDER],
            trustAppleRoot: false, cachesChains: false)
        return await verifier.verifyTransaction(chain.sign(payload)).status
    }

    /// The chain is refused as untrusted, for a reason that names every one of `words`.
    func expectRefused(
        _ builder: ChainBuilder, naming words: String..., payload: String = payload,
        sourceLocation: SourceLocation = #_sourceLocation
    ) async throws {
        let status = try await status(builder, payload: payload)
        guard case .failed(.untrustedChain(let reason)) = status else {
            Issue.record("expected an untrusted chain, got \(status)", sourceLocation: sourceLocation)
            return
        }
        for word in words {
            #expect(reason.localizedCaseInsensitiveContains(word), "reason: \(reason)", sourceLocation: sourceLocation)
        }
    }

    @Test func theUntwistedChainVerifies() async throws {
        #expect(try await status(ChainBuilder()) == .verified)
    }

    // MARK: Critical extensions the verifier does not process

    @Test func unknownCriticalExtensionOnTheLeaf() async throws {
        var chain = ChainBuilder()
        chain.leaf.extra = [ChainBuilder.unknownExtension(critical: true)]
        try await expectRefused(chain, naming: "leaf", "critical", "1.3.6.1.4.1.55555.1")
        chain.leaf.extra = [ChainBuilder.unknownExtension(critical: false)]
        #expect(try await status(chain) == .verified, "a non-critical unknown extension is ignored")
    }

    @Test func unknownCriticalExtensionOnTheIntermediate() async throws {
        var chain = ChainBuilder()
        chain.intermediate.extra = [ChainBuilder.unknownExtension(critical: true)]
        try await expectRefused(chain, naming: "intermediate", "critical")
    }

    @Test func unknownCriticalExtensionOnTheRoot() async throws {
        var chain = ChainBuilder()
        chain.root.extra = [ChainBuilder.unknownExtension(critical: true)]
        try await expectRefused(chain, naming: "root", "critical")
    }

    @Test func criticalExtendedKeyUsageIsNotProcessed() async throws {
        var chain = ChainBuilder()
        chain.leaf.extra = [try Certificate.Extension(try ExtendedKeyUsage([.codeSigning]), critical: true)]
        try await expectRefused(chain, naming: "leaf", "critical")
    }

    @Test func appleLeafMarkerMustNotBeCritical() async throws {
        var chain = ChainBuilder()
        chain.leaf.markerCritical = true
        try await expectRefused(chain, naming: "leaf", "critical", "1.2.840.113635.100.6.11.1")
    }

    @Test func appleIntermediateMarkerMustNotBeCritical() async throws {
        var chain = ChainBuilder()
        chain.intermediate.markerCritical = true
        try await expectRefused(chain, naming: "intermediate", "critical", "1.2.840.113635.100.6.2.1")
    }

    // MARK: Apple's markers

    @Test func leafWithoutItsMarker() async throws {
        var chain = ChainBuilder()
        chain.leaf.marker = nil
        try await expectRefused(chain, naming: "leaf", "1.2.840.113635.100.6.11.1")
    }

    @Test func intermediateWithoutItsMarker() async throws {
        var chain = ChainBuilder()
        chain.intermediate.marker = nil
        try await expectRefused(chain, naming: "intermediate", "1.2.840.113635.100.6.2.1")
    }

    @Test func markersOnTheWrongCertificates() async throws {
        var chain = ChainBuilder()
        chain.leaf.marker = AppleCertificateOIDs.intermediate
        chain.intermediate.marker = AppleCertificateOIDs.receiptSigningLeaf
        try await expectRefused(chain, naming: "1.2.840.113635.100.6.11.1")
        var onRootOnly = ChainBuilder()
        onRootOnly.leaf.marker = nil
        onRootOnly.root.extra = [Certificate.Extension(oid: AppleCertificateOIDs.receiptSigningLeaf, critical: false, value: [0x05, 0x00])]
        try await expectRefused(onRootOnly, naming: "leaf", "1.2.840.113635.100.6.11.1")
    }

    // MARK: Key usage

    @Test func intermediateKeyUsageMustAllowCertificateSigning() async throws {
        var chain = ChainBuilder()
        chain.intermediate.keyUsage = KeyUsage(digitalSignature: true, cRLSign: true)
        try await expectRefused(chain, naming: "intermediate", "key usage", "certificate")
    }

    @Test func rootKeyUsageMustAllowCertificateSigning() async throws {
        var chain = ChainBuilder()
        chain.root.keyUsage = KeyUsage(cRLSign: true)
        try await expectRefused(chain, naming: "root", "key usage", "certificate")
    }

    @Test func certificateAuthoritiesMustCarryKeyUsage() async throws {
        var chain = ChainBuilder()
        chain.intermediate.keyUsage = nil
        try await expectRefused(chain, naming: "intermediate", "key usage")
    }

    @Test func leafMustNotSignCertificates() async throws {
        var chain = ChainBuilder()
        chain.leaf.keyUsage = KeyUsage(digitalSignature: true, keyCertSign: true)
        try await expectRefused(chain, naming: "leaf", "key usage", "certificate")
    }

    // MARK: Basic constraints and path length

    @Test func intermediateMustBeACertificateAuthority() async throws {
        var chain = ChainBuilder()
        chain.intermediate.basicConstraints = .notCertificateAuthority
        try await expectRefused(chain, naming: "CA")
        chain.intermediate.basicConstraints = nil
        try await expectRefused(chain, naming: "CA")
    }

    @Test func basicConstraintsOfAnAuthorityMustBeCritical() async throws {
        var intermediate = ChainBuilder()
        intermediate.intermediate.basicConstraintsCritical = false
        try await expectRefused(intermediate, naming: "intermediate", "basic constraints", "critical")
        var root = ChainBuilder()
        root.root.basicConstraintsCritical = false
        try await expectRefused(root, naming: "root", "basic constraints", "critical")
    }

    @Test func pathLengthOfTheRootIsKept() async throws {
        var chain = ChainBuilder()
        chain.root.basicConstraints = .isCertificateAuthority(maxPathLength: 0)
        try await expectRefused(chain, naming: "path length")
    }

    @Test func pathLengthOnlyOnAnAuthorityThatSignsCertificates() async throws {
        var chain = ChainBuilder()
        chain.leaf.basicConstraints = .isCertificateAuthority(maxPathLength: 0)
        try await expectRefused(chain, naming: "leaf", "path length")
    }

    // MARK: Key identifiers

    @Test func leafAndIntermediateNameTheirIssuersKey() async throws {
        var leaf = ChainBuilder()
        leaf.leaf.authorityKeyIdentifier = .absent
        try await expectRefused(leaf, naming: "leaf", "authority key identifier")
        var intermediate = ChainBuilder()
        intermediate.intermediate.authorityKeyIdentifier = .absent
        try await expectRefused(intermediate, naming: "intermediate", "authority key identifier")
    }

    @Test func authoritiesCarryTheirOwnKeyIdentifier() async throws {
        var intermediate = ChainBuilder()
        intermediate.intermediate.subjectKeyIdentifier = false
        try await expectRefused(intermediate, naming: "intermediate", "subject key identifier")
        var root = ChainBuilder()
        root.root.subjectKeyIdentifier = false
        try await expectRefused(root, naming: "root", "subject key identifier")
    }

    @Test func authorityKeyIdentifierMustMatchTheIssuer() async throws {
        var chain = ChainBuilder()
        chain.leaf.authorityKeyIdentifier = .other
        try await expectRefused(chain, naming: "leaf", "authority key identifier", "intermediate")
        var intermediate = ChainBuilder()
        intermediate.intermediate.authorityKeyIdentifier = .other
        try await expectRefused(intermediate, naming: "intermediate", "authority key identifier", "root")
    }

    // MARK: Names, version, signature algorithm

    @Test func namesMustNotBeEmpty() async throws {
        var chain = ChainBuilder()
        chain.intermediate.emptySubject = true
        try await expectRefused(chain, naming: "empty", "name")
    }

    @Test func extensionsNeedVersion3() async throws {
        var chain = ChainBuilder()
        chain.leaf.version2 = true
        try await expectRefused(chain, naming: "leaf", "version")
    }

    @Test func signatureAlgorithmMustMatchTheSignedOne() async throws {
        var chain = ChainBuilder()
        chain.leaf.inconsistentSignatureAlgorithm = true
        try await expectRefused(chain, naming: "leaf", "signature algorithm")
    }

    // MARK: Validity at the signed date

    @Test func leafExpiredAtTheSignedDate() async throws {
        var chain = ChainBuilder()
        chain.leaf.validUntil = Self.signedDate.addingTimeInterval(-86_400)
        try await expectRefused(chain, naming: "leaf", "valid")
    }

    @Test func leafNotYetValidAtTheSignedDate() async throws {
        var chain = ChainBuilder()
        chain.leaf.validFrom = Self.signedDate.addingTimeInterval(86_400)
        try await expectRefused(chain, naming: "leaf", "valid")
    }

    @Test func intermediateExpiredAtTheSignedDate() async throws {
        var chain = ChainBuilder()
        chain.intermediate.validUntil = Self.signedDate.addingTimeInterval(-86_400)
        try await expectRefused(chain, naming: "intermediate", "valid")
    }

    @Test func rootExpiredAtTheSignedDate() async throws {
        var chain = ChainBuilder()
        chain.root.validUntil = Self.signedDate.addingTimeInterval(-86_400)
        try await expectRefused(chain, naming: "root", "valid")
    }

    @Test func withoutASignedDateTheChainMustBeValidNow() async throws {
        // Valid around the signed date and expired since: fine with the date, refused without it.
        var chain = ChainBuilder()
        chain.leaf.validUntil = Date().addingTimeInterval(-86_400)
        #expect(try await status(chain) == .verified)
        let undated = #"{"transactionId":"1","bundleId":"com.example","environment":"Sandbox"}"#
        try await expectRefused(chain, naming: "leaf", "valid", payload: undated)
    }
}
