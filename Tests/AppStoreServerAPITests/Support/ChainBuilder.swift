@testable import AppStoreServerAPI
import Crypto
import Foundation
import SwiftASN1
import X509

/// Builds a root → intermediate → leaf chain shaped like Apple's real one, in which any part of
/// any certificate can be changed, so that each chain rule is tested by a chain breaking only it.
struct ChainBuilder {
    enum KeyIdentifierChoice {
        case absent
        /// The issuer's subject key identifier, as a conforming CA writes it.
        case issuers
        /// An identifier of some other key.
        case other
    }

    /// One certificate; the defaults follow Apple's certificates (see the real chain in Fixtures/certs).
    struct Spec {
        var name: String
        var validFrom = Date(timeIntervalSince1970: 1_600_000_000)
        var validUntil = Date(timeIntervalSince1970: 2_000_000_000)
        var emptySubject = false
        var basicConstraints: BasicConstraints?
        var basicConstraintsCritical = true
        var keyUsage: KeyUsage?
        var keyUsageCritical = true
        var subjectKeyIdentifier = true
        var authorityKeyIdentifier = KeyIdentifierChoice.issuers
        var marker: ASN1ObjectIdentifier?
        var markerCritical = false
        var extra: [Certificate.Extension] = []
        /// Written as version 2, which may not carry extensions.
        var version2 = false
        /// Signed with ECDSA-SHA384 while the signed part names ECDSA-SHA256.
        var inconsistentSignatureAlgorithm = false
    }

    var root = Spec(
        name: "Root CA", basicConstraints: .isCertificateAuthority(maxPathLength: nil),
        keyUsage: KeyUsage(keyCertSign: true, cRLSign: true), authorityKeyIdentifier: .absent)
    var intermediate = Spec(
        name: "Intermediate CA", basicConstraints: .isCertificateAuthority(maxPathLength: 0),
        keyUsage: KeyUsage(keyCertSign: true, cRLSign: true), marker: AppleCertificateOIDs.intermediate)
    var leaf = Spec(
        name: "Receipt Signing", basicConstraints: .notCertificateAuthority,
        keyUsage: KeyUsage(digitalSignature: true), marker: AppleCertificateOIDs.receiptSigningLeaf)

    struct Built {
        let root: Certificate
        let intermediate: Certificate
        let leaf: Certificate
        let leafKey: P256.Signing.PrivateKey
        let der: [Data]

        var rootDER: Data { der[2] }
        var x5c: [String] { der.map { $0.base64EncodedString() } }
        func sign(_ payload: String) -> String { JWSSigner(key: leafKey, x5c: x5c).sign(json: Data(payload.utf8)) }
    }

    /// An extension this verifier knows nothing of.
    static func unknownExtension(critical: Bool) -> Certificate.Extension {
        Certificate.Extension(oid: [1, 3, 6, 1, 4, 1, 55555, 1], critical: critical, value: [0x05, 0x00])
    }

    func build() throws -> Built {
        let keys = (root: P256.Signing.PrivateKey(), intermediate: P256.Signing.PrivateKey(), leaf: P256.Signing.PrivateKey())
        let rootName = try Self.name(root)
        let intermediateName = try Self.name(intermediate)
        let rootDER = try Self.make(root, key: keys.root.publicKey, subject: rootName, issuer: rootName, issuerKey: keys.root)
        let intermediateDER = try Self.make(
            intermediate, key: keys.intermediate.publicKey, subject: intermediateName, issuer: rootName, issuerKey: keys.root)
        let leafDER = try Self.make(
            leaf, key: keys.leaf.publicKey, subject: try Self.name(leaf), issuer: intermediateName, issuerKey: keys.intermediate)
        let der = [leafDER, intermediateDER, rootDER]
        let parsed = try der.map { try Certificate(derEncoded: Array($0)) }
        return Built(root: parsed[2], intermediate: parsed[1], leaf: parsed[0], leafKey: keys.leaf, der: der)
    }

    private static func name(_ spec: Spec) throws -> DistinguishedName {
        if spec.emptySubject { return DistinguishedName() }
        return try DistinguishedName {
            CountryName("US")
            OrganizationName("iapdesk")
            CommonName("iapdesk Chain Test \(spec.name)")
        }
    }

    private static func make(
        _ spec: Spec, key: P256.Signing.PublicKey, subject: DistinguishedName, issuer: DistinguishedName,
        issuerKey: P256.Signing.PrivateKey
    ) throws -> Data {
        var extensions: [Certificate.Extension] = []
        if let constraints = spec.basicConstraints {
            extensions.append(try Certificate.Extension(constraints, critical: spec.basicConstraintsCritical))
        }
        if let usage = spec.keyUsage { extensions.append(try Certificate.Extension(usage, critical: spec.keyUsageCritical)) }
        if spec.subjectKeyIdentifier {
            extensions.append(try Certificate.Extension(SubjectKeyIdentifier(hash: .init(key)), critical: false))
        }
        switch spec.authorityKeyIdentifier {
        case .absent: break
        case .issuers:
            let identifier = SubjectKeyIdentifier(hash: .init(issuerKey.publicKey)).keyIdentifier
            extensions.append(try Certificate.Extension(AuthorityKeyIdentifier(keyIdentifier: identifier), critical: false))
        case .other:
            let identifier = SubjectKeyIdentifier(hash: .init(P256.Signing.PrivateKey().publicKey)).keyIdentifier
            extensions.append(try Certificate.Extension(AuthorityKeyIdentifier(keyIdentifier: identifier), critical: false))
        }
        if let marker = spec.marker {
            extensions.append(Certificate.Extension(oid: marker, critical: spec.markerCritical, value: [0x05, 0x00]))
        }
        extensions += spec.extra
        let certificate = try Certificate(
            version: .v3, serialNumber: .init(), publicKey: .init(key), notValidBefore: spec.validFrom,
            notValidAfter: spec.validUntil, issuer: issuer, subject: subject, signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try Certificate.Extensions(extensions), issuerPrivateKey: .init(issuerKey))
        guard spec.version2 || spec.inconsistentSignatureAlgorithm else {
            var serializer = DER.Serializer()
            try serializer.serialize(certificate)
            return Data(serializer.serializedBytes)
        }
        var tbs = Array(certificate.tbsCertificateBytes)
        if spec.version2 {
            // The version is the first field of the signed part: [0] { INTEGER 2 } becomes INTEGER 1.
            let header = tbs[1] & 0x80 == 0 ? 2 : 2 + Int(tbs[1] & 0x7F)
            precondition(Array(tbs[header..<header + 5]) == [0xA0, 0x03, 0x02, 0x01, 0x02])
            tbs[header + 4] = 0x01
        }
        return Data(try resign(tbs: tbs, with: issuerKey, sha384: spec.inconsistentSignatureAlgorithm))
    }

    /// A certificate around `tbs`, signed anew with ECDSA-SHA256 or ECDSA-SHA384 (and named so outside the signed part).
    private static func resign(tbs: [UInt8], with key: P256.Signing.PrivateKey, sha384: Bool) throws -> [UInt8] {
        let signature = sha384
            ? try key.signature(for: SHA384.hash(data: tbs)).derRepresentation
            : try key.signature(for: SHA256.hash(data: tbs)).derRepresentation
        // AlgorithmIdentifier { ecdsa-with-SHA384 (1.2.840.10045.4.3.3) or -SHA256 (…4.3.2) }, no parameters.
        let algorithm: [UInt8] = [0x30, 0x0A, 0x06, 0x08, 0x2A, 0x86, 0x48, 0xCE, 0x3D, 0x04, 0x03, sha384 ? 0x03 : 0x02]
        let bitString = tlv(0x03, [0x00] + Array(signature))
        return tlv(0x30, tbs + algorithm + bitString)
    }

    private static func tlv(_ tag: UInt8, _ content: [UInt8]) -> [UInt8] {
        var length: [UInt8]
        if content.count < 0x80 {
            length = [UInt8(content.count)]
        } else {
            var bytes: [UInt8] = []
            var remaining = content.count
            while remaining > 0 {
                bytes.insert(UInt8(remaining & 0xFF), at: 0)
                remaining >>= 8
            }
            length = [0x80 | UInt8(bytes.count)] + bytes
        }
        return [tag] + length + content
    }
}
