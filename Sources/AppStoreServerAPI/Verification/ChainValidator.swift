import Crypto
import Foundation
import SwiftASN1
import Synchronization
@_spi(FixedExpiryValidationTime) import X509

/// Validates x5c chains against trusted roots at a given time, remembering chains that passed so
/// that a repeated chain costs a dictionary lookup and a date comparison instead of path building:
/// by their certificates, whatever header carries them, and by the exact header segment that
/// carried them under a signature that verified.
final class ChainValidator: Sendable {
    struct TrustedChain: Sendable {
        let leafKey: P256.Signing.PublicKey
        /// The span in which every certificate of the chain is valid.
        let validFrom: Date
        let validUntil: Date
        let subjects: [String]
    }

    private let roots: [Certificate]
    private let caches: Bool
    /// OpenSSL's strict certificate profile, as Apple's Python library applies it by default.
    private let strict: Bool
    /// Chains that passed, by their leaf's and intermediate's base64 text (see `ChainKey`).
    private let cache = Mutex<[ChainKey: TrustedChain]>([:])
    static let cacheLimit = 64
    /// How many chains were built and validated (not found in the cache), for tests.
    private let built = Atomic(0)
    var chainsBuilt: Int { built.load(ordering: .relaxed) }

    /// A JWS header segment that passed: its exact text, what it decoded to, the chain it carries,
    /// and SHA-256 already run over the segment and its dot (the start of every signing input under it).
    /// A class: handing one out per payload is one retain, not one per field.
    final class TrustedHeader: Sendable {
        let segment: String
        let header: JWSHeader
        let chain: TrustedChain
        let prefixHash: SHA256

        init(segment: String, header: JWSHeader, chain: TrustedChain, prefixHash: SHA256) {
            self.segment = segment
            self.header = header
            self.chain = chain
            self.prefixHash = prefixHash
        }
    }

    /// Most recently used first; matched on the segment's exact bytes only.
    private let headers = Mutex<[TrustedHeader]>([])
    static let headerLimit = 16

    /// The trusted header whose segment is exactly `segment`, if one passed before; its chain's dates
    /// are not checked here (see `checkValidity`).
    func trustedHeader(_ segment: Substring) -> TrustedHeader? {
        guard caches else { return nil }
        var segment = segment
        return segment.withUTF8 { bytes in
            headers.withLock { entries -> TrustedHeader? in
                guard let index = entries.firstIndex(where: { Self.sameBytes($0.segment, bytes) }) else { return nil }
                if index != 0 { entries.insert(entries.remove(at: index), at: 0) }
                return entries[0]
            }
        }
    }

    /// Whether `text` is exactly `bytes` (one memcmp, not a walk through the characters).
    static func sameBytes(_ text: String, _ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        var text = text
        return text.withUTF8 { own in
            own.count == bytes.count && (own.count == 0 || memcmp(own.baseAddress!, bytes.baseAddress!, own.count) == 0)
        }
    }

    /// Remembers a header segment whose chain validated (alg ES256 and x5c already checked) and
    /// under which a signature verified: a forged body's header never takes the place of one that
    /// Apple's notifications use. `prefixHash` has run over the segment and its dot.
    func rememberHeader(_ segment: Substring, header: JWSHeader, chain: TrustedChain, prefixHash: SHA256) {
        guard caches else { return }
        let entry = TrustedHeader(segment: String(segment), header: header, chain: chain, prefixHash: prefixHash)
        headers.withLock { entries in
            entries.removeAll { $0.segment == entry.segment }
            entries.insert(entry, at: 0)
            if entries.count > Self.headerLimit { entries.removeLast() }
        }
    }

    /// A cached chain used at `time`: every certificate must be valid then.
    func checkValidity(_ chain: TrustedChain, at time: Date) throws(VerificationFailure) {
        guard time >= chain.validFrom, time <= chain.validUntil else {
            throw .untrustedChain("a certificate is not valid at \(Self.format(time))")
        }
    }

    init(roots: [Certificate], caches: Bool = true, strict: Bool = true) {
        self.roots = roots
        self.caches = caches
        self.strict = strict
    }

    /// Extensions the policies process: any other one marked critical makes a certificate unusable.
    static let processedExtensions: Set<ASN1ObjectIdentifier> = Set(
        RFC5280Policy().verifyingCriticalExtensions + CertificateProfilePolicy().verifyingCriticalExtensions
            + AppleReceiptSigningPolicy().verifyingCriticalExtensions)

    /// Validates the chain (leaf, intermediate; a third certificate is ignored: trust comes only from
    /// the configured roots) at `time`. A chain whose certificates passed before is not parsed or
    /// built again, whichever header carries it: only its dates at `time` are checked.
    func validate(x5c: [String], at time: Date) async throws(VerificationFailure) -> TrustedChain {
        guard x5c.count == 3 else { throw .wrongChainLength(x5c.count) }
        let key = ChainKey(leaf: x5c[0], intermediate: x5c[1])
        if caches, let cached = cache.withLock({ $0[key] }) {
            try checkValidity(cached, at: time)
            return cached
        }
        let chain = try await buildAndValidate(x5c: x5c, at: time)
        guard caches else { return chain }
        cache.withLock { entries in
            if entries.count >= Self.cacheLimit { entries.removeAll(keepingCapacity: true) }
            entries[key] = chain
        }
        return chain
    }

    /// What validation reads of a chain: the leaf's and the intermediate's exact base64 text (the
    /// third certificate is never used). The same text is the same DER, so the same verdict at the
    /// same time; any other text, even the same DER written otherwise, is validated on its own.
    struct ChainKey: Hashable {
        let leaf: String
        let intermediate: String
    }

    private func buildAndValidate(x5c: [String], at time: Date) async throws(VerificationFailure) -> TrustedChain {
        built.add(1, ordering: .relaxed)
        let leaf = try Self.certificate(x5c[0], role: "leaf")
        let intermediate = try Self.certificate(x5c[1], role: "intermediate")
        var verifier = Verifier(rootCertificates: CertificateStore(roots)) {
            RFC5280Policy(fixedExpiryValidationTime: time)
            CertificateProfilePolicy(strict: strict)
            AppleReceiptSigningPolicy()
        }
        let result = await verifier.validate(leaf: leaf, intermediates: CertificateStore([intermediate]))
        switch result {
        case .validCertificate(let validated):
            let certificates = Array(validated)
            guard let leafKey = P256.Signing.PublicKey(leaf.publicKey) else {
                throw .invalidCertificate("the leaf key is not EC P-256")
            }
            return TrustedChain(
                leafKey: leafKey,
                validFrom: certificates.map(\.notValidBefore).max()!,
                validUntil: certificates.map(\.notValidAfter).min()!,
                subjects: certificates.map { String(describing: $0.subject) })
        case .couldNotValidate(let failures):
            throw .untrustedChain(reason(failures, leaf: leaf, intermediate: intermediate, time: time))
        }
    }

    private static func certificate(_ base64: String, role: String) throws(VerificationFailure) -> Certificate {
        guard let der = Data(base64Encoded: base64) else {
            throw .invalidCertificate("the \(role) certificate is not standard base64")
        }
        do {
            return try Certificate(derEncoded: Array(der))
        } catch {
            throw .invalidCertificate("the \(role) certificate is not valid DER X.509")
        }
    }

    /// A reason people can act on: expiry is the common one, so name it first. A certificate with
    /// a critical extension nobody processes is dropped before any policy runs, so name that too.
    private func reason(
        _ failures: [CertificateValidationResult.PolicyFailure], leaf: Certificate, intermediate: Certificate, time: Date
    ) -> String {
        let issuingRoots = roots.filter { $0.subject == intermediate.issuer }
        let candidates = [("leaf", leaf), ("intermediate", intermediate)] + issuingRoots.map { ("root", $0) }
        for (role, certificate) in candidates {
            if time < certificate.notValidBefore || time > certificate.notValidAfter {
                return "the \(role) certificate is valid \(Self.format(certificate.notValidBefore)) to \(Self.format(certificate.notValidAfter)), not at \(Self.format(time))"
            }
        }
        if let first = failures.first {
            return first.policyFailureReason.description
        }
        for (role, certificate) in candidates {
            if let unprocessed = certificate.extensions.first(where: { $0.critical && !Self.processedExtensions.contains($0.oid) }) {
                return "the \(role) certificate marks extension \(AppleCertificateOIDs.describe(unprocessed.oid)) critical, which no verifier policy processes"
            }
        }
        return "no path from the leaf to a trusted root certificate"
    }

    static func format(_ date: Date) -> String {
        InternetTime.string(from: date)
    }
}
