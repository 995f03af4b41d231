import Crypto
import Foundation
import Synchronization
@_spi(FixedExpiryValidationTime) import X509

/// Validates x5c chains against trusted roots at a given time, remembering chains that passed so
/// that a repeated chain costs a dictionary lookup and a date comparison instead of path building.
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
    private let cache = Mutex<[String: TrustedChain]>([:])
    static let cacheLimit = 64

    init(roots: [Certificate], caches: Bool = true) {
        self.roots = roots
        self.caches = caches
    }

    /// Validates the chain (leaf, intermediate; a third certificate is ignored: trust comes only from
    /// the configured roots) at `time`. `cacheKey` identifies the chain, e.g. the JWS header segment.
    func validate(x5c: [String], at time: Date, cacheKey: String) async throws(VerificationFailure) -> TrustedChain {
        if caches, let cached = cache.withLock({ $0[cacheKey] }) {
            guard time >= cached.validFrom, time <= cached.validUntil else {
                throw .untrustedChain("a certificate is not valid at \(Self.format(time))")
            }
            return cached
        }
        let chain = try await buildAndValidate(x5c: x5c, at: time)
        guard caches else { return chain }
        cache.withLock { entries in
            if entries.count >= Self.cacheLimit { entries.removeAll(keepingCapacity: true) }
            entries[cacheKey] = chain
        }
        return chain
    }

    private func buildAndValidate(x5c: [String], at time: Date) async throws(VerificationFailure) -> TrustedChain {
        guard x5c.count == 3 else { throw .wrongChainLength(x5c.count) }
        let leaf = try Self.certificate(x5c[0], role: "leaf")
        let intermediate = try Self.certificate(x5c[1], role: "intermediate")
        var verifier = Verifier(rootCertificates: CertificateStore(roots)) {
            RFC5280Policy(fixedExpiryValidationTime: time)
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
            throw .untrustedChain(Self.reason(failures, leaf: leaf, intermediate: intermediate, time: time))
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

    /// A reason people can act on: expiry is the common one, so name it first.
    private static func reason(
        _ failures: [CertificateValidationResult.PolicyFailure], leaf: Certificate, intermediate: Certificate, time: Date
    ) -> String {
        for (role, certificate) in [("leaf", leaf), ("intermediate", intermediate)] {
            if time < certificate.notValidBefore || time > certificate.notValidAfter {
                return "the \(role) certificate is valid \(format(certificate.notValidBefore)) to \(format(certificate.notValidAfter)), not at \(format(time))"
            }
        }
        if let first = failures.first {
            return first.policyFailureReason.description
        }
        return "no path from the leaf to a trusted root certificate"
    }

    static func format(_ date: Date) -> String {
        ISO8601DateFormatter().string(from: date)
    }
}
