import SwiftASN1
import X509

/// What Apple's verifiers require of each certificate beyond swift-certificates' RFC 5280 policy
/// (basic constraints, path length, expiry, name constraints), so that no chain one of them refuses
/// is trusted here. OpenSSL, under Apple's Python library, refuses an authority whose key usage does
/// not allow signing certificates, an authority key identifier naming another issuer and a signature
/// algorithm that differs from the signed one; in strict mode, the library's default, it also holds
/// certificates to the profile checked by `strictProblem`.
struct CertificateProfilePolicy: VerifierPolicy {
    /// Key usage is checked here, so it may be critical.
    let verifyingCriticalExtensions: [ASN1ObjectIdentifier] = [.X509ExtensionID.keyUsage]
    /// OpenSSL's strict mode. Off only for Apple's own test chains, which its tests check without it.
    var strict = true

    func chainMeetsPolicyRequirements(chain: UnverifiedCertificateChain) -> PolicyEvaluationResult {
        let certificates = Array(chain)
        for (index, certificate) in certificates.enumerated() {
            let role = Self.role(index: index, count: certificates.count)
            let issuer = index + 1 < certificates.count ? certificates[index + 1] : nil
            do {
                if let problem = try Self.problem(
                    certificate, issues: index > 0, issuer: issuer, issuerRole: Self.role(index: index + 1, count: certificates.count))
                    ?? (strict ? try Self.strictProblem(certificate, isLast: issuer == nil) : nil) {
                    return .failsToMeetPolicy(reason: "the \(role) certificate \(problem)")
                }
            } catch {
                return .failsToMeetPolicy(reason: "the \(role) certificate has an extension that cannot be read (\(error))")
            }
        }
        return .meetsPolicy
    }

    static func role(index: Int, count: Int) -> String {
        index == 0 ? "leaf" : index >= count - 1 ? "root" : "intermediate"
    }

    /// Refused by OpenSSL in either mode. `issues`: the certificate signs the one before it.
    static func problem(_ certificate: Certificate, issues: Bool, issuer: Certificate?, issuerRole: String) throws -> String? {
        if issues, let usage = try certificate.extensions.keyUsage, !usage.keyCertSign {
            return "is a certificate authority whose key usage does not allow signing certificates"
        }
        if let issuer, let identifier = try certificate.extensions.authorityKeyIdentifier {
            if let keyID = identifier.keyIdentifier, let issuerKeyID = try issuer.extensions.subjectKeyIdentifier?.keyIdentifier,
               keyID != issuerKeyID {
                return "has an authority key identifier that does not match the \(issuerRole) certificate's key"
            }
            if let serial = identifier.authorityCertSerialNumber, serial != issuer.serialNumber {
                return "has an authority key identifier naming another serial number than the \(issuerRole) certificate's"
            }
            let names = (identifier.authorityCertIssuer ?? []).compactMap { name -> DistinguishedName? in
                if case .directoryName(let directory) = name { return directory }
                return nil
            }
            if let name = names.first, name != issuer.issuer {
                return "has an authority key identifier naming another issuer than the \(issuerRole) certificate's"
            }
        }
        if try signedAlgorithm(of: certificate) != outerAlgorithm(of: certificate) {
            return "names a signature algorithm other than the one inside its signed part"
        }
        return nil
    }

    /// Refused by OpenSSL in strict mode (RFC 5280 profile rules).
    static func strictProblem(_ certificate: Certificate, isLast: Bool) throws -> String? {
        let extensions = certificate.extensions
        if certificate.version != .v3 && !extensions.isEmpty {
            return "carries extensions but is not version 3"
        }
        let constraints = try extensions.basicConstraints
        let usage = try extensions.keyUsage
        if isAuthority(certificate) {
            if extensions[oid: .X509ExtensionID.basicConstraints]?.critical == false {
                return "is a certificate authority whose basic constraints are not marked critical"
            }
            if usage == nil { return "is a certificate authority without a key usage extension" }
            if extensions[oid: .X509ExtensionID.subjectKeyIdentifier] == nil {
                return "is a certificate authority without a subject key identifier"
            }
        } else if usage?.keyCertSign == true {
            return "is not a certificate authority, yet its key usage allows signing certificates"
        }
        if case .isCertificateAuthority(maxPathLength: .some) = constraints, usage?.keyCertSign != true {
            return "sets a path length but its key usage does not allow signing certificates"
        }
        if !isLast, try extensions.authorityKeyIdentifier?.keyIdentifier == nil {
            return "has no authority key identifier naming its issuer's key"
        }
        if certificate.issuer.isEmpty { return "has an empty issuer name" }
        if certificate.subject.isEmpty { return "has an empty subject name" }
        if let names = try extensions.subjectAlternativeNames, names.isEmpty {
            return "has an empty subject alternative name extension"
        }
        return nil
    }

    static func isAuthority(_ certificate: Certificate) -> Bool {
        if case .isCertificateAuthority? = try? certificate.extensions.basicConstraints { return true }
        return false
    }

    /// The AlgorithmIdentifier inside the signed part: after the optional [0] version and the serial number.
    static func signedAlgorithm(of certificate: Certificate) throws -> ArraySlice<UInt8> {
        guard case .constructed(let fields) = try DER.parse(certificate.tbsCertificateBytes).content else { throw ASN1Error.invalidASN1Object(reason: "signed part") }
        var iterator = fields.makeIterator()
        var field = iterator.next()
        if field?.identifier == ASN1Identifier(tagWithNumber: 0, tagClass: .contextSpecific) { field = iterator.next() }
        guard let algorithm = iterator.next() else { throw ASN1Error.invalidASN1Object(reason: "signed part") }
        return algorithm.encodedBytes
    }

    /// The AlgorithmIdentifier outside the signed part, which says how the signature was made.
    static func outerAlgorithm(of certificate: Certificate) throws -> ArraySlice<UInt8> {
        var serializer = DER.Serializer()
        try serializer.serialize(certificate)
        guard case .constructed(let parts) = try DER.parse(serializer.serializedBytes).content else { throw ASN1Error.invalidASN1Object(reason: "certificate") }
        var iterator = parts.makeIterator()
        _ = iterator.next()
        guard let algorithm = iterator.next() else { throw ASN1Error.invalidASN1Object(reason: "certificate") }
        return algorithm.encodedBytes
    }
}
