import Crypto
import Foundation
import SwiftASN1
import X509

/// A root, an intermediate and a leaf shaped like Apple's App Store signing chain, made fresh, so
/// that data signed by the demo server, tests and benchmarks goes through the real verifier
/// (iapdesk's and Apple's own libraries). Never trusted by default: a verifier must be given `rootDER`.
public struct SigningCertificateAuthority: Sendable {
    public let root: Certificate
    public let intermediate: Certificate
    public let leaf: Certificate
    let leafKey: P256.Signing.PrivateKey

    /// Which of Apple's markers the certificates carry; tests leave one out to prove it is required.
    public struct Markers: Sendable {
        public var intermediate: Bool
        public var leaf: Bool
        public init(intermediate: Bool = true, leaf: Bool = true) {
            self.intermediate = intermediate
            self.leaf = leaf
        }
    }

    /// - Parameters:
    ///   - validFrom: must precede the oldest `signedDate` the chain will sign.
    ///   - leafValidUntil: defaults to `validUntil`.
    ///   - name: prefix of the certificates' common names.
    public init(
        validFrom: Date, validUntil: Date, leafValidUntil: Date? = nil, markers: Markers = Markers(),
        name: String
    ) throws {
        let rootKey = P256.Signing.PrivateKey()
        let intermediateKey = P256.Signing.PrivateKey()
        let leafKey = P256.Signing.PrivateKey()
        let rootName = try DistinguishedName {
            CountryName("US")
            OrganizationName("iapdesk")
            CommonName("\(name) Root CA")
        }
        let intermediateName = try DistinguishedName {
            CountryName("US")
            OrganizationName("iapdesk")
            CommonName("\(name) Intermediate CA")
        }
        let leafName = try DistinguishedName {
            CountryName("US")
            OrganizationName("iapdesk")
            CommonName("\(name) Receipt Signing")
        }
        let rootKeyID = SubjectKeyIdentifier(hash: .init(rootKey.publicKey))
        let intermediateKeyID = SubjectKeyIdentifier(hash: .init(intermediateKey.publicKey))

        root = try Certificate(
            version: .v3, serialNumber: .init(), publicKey: .init(rootKey.publicKey),
            notValidBefore: validFrom, notValidAfter: validUntil, issuer: rootName, subject: rootName,
            signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try Certificate.Extensions {
                Critical(BasicConstraints.isCertificateAuthority(maxPathLength: nil))
                Critical(KeyUsage(keyCertSign: true, cRLSign: true))
                rootKeyID
            },
            issuerPrivateKey: .init(rootKey))

        var intermediateExtensions = try Certificate.Extensions {
            Critical(BasicConstraints.isCertificateAuthority(maxPathLength: 0))
            Critical(KeyUsage(keyCertSign: true, cRLSign: true))
            intermediateKeyID
            AuthorityKeyIdentifier(keyIdentifier: rootKeyID.keyIdentifier)
        }
        if markers.intermediate { try intermediateExtensions.append(Self.marker(AppleCertificateOIDs.intermediate)) }
        intermediate = try Certificate(
            version: .v3, serialNumber: .init(), publicKey: .init(intermediateKey.publicKey),
            notValidBefore: validFrom, notValidAfter: validUntil, issuer: rootName, subject: intermediateName,
            signatureAlgorithm: .ecdsaWithSHA256, extensions: intermediateExtensions, issuerPrivateKey: .init(rootKey))

        var leafExtensions = try Certificate.Extensions {
            Critical(KeyUsage(digitalSignature: true))
            SubjectKeyIdentifier(hash: .init(leafKey.publicKey))
            AuthorityKeyIdentifier(keyIdentifier: intermediateKeyID.keyIdentifier)
        }
        if markers.leaf { try leafExtensions.append(Self.marker(AppleCertificateOIDs.receiptSigningLeaf)) }
        leaf = try Certificate(
            version: .v3, serialNumber: .init(), publicKey: .init(leafKey.publicKey),
            notValidBefore: validFrom, notValidAfter: leafValidUntil ?? validUntil, issuer: intermediateName,
            subject: leafName, signatureAlgorithm: .ecdsaWithSHA256, extensions: leafExtensions,
            issuerPrivateKey: .init(intermediateKey))
        self.leafKey = leafKey
    }

    /// A chain saved earlier (its `x5c` and `leafKeyPEM`), signing as it did: data it signed in
    /// an earlier run still verifies against the same root.
    public init(x5c: [String], leafKeyPEM: String) throws {
        let certificates = try x5c.map { text -> Certificate in
            guard let der = Data(base64Encoded: text) else { throw SigningChainError.notBase64 }
            return try Certificate(derEncoded: Array(der))
        }
        guard certificates.count == 3 else { throw SigningChainError.notThreeCertificates(certificates.count) }
        let key = try P256.Signing.PrivateKey(pemRepresentation: leafKeyPEM)
        guard P256.Signing.PublicKey(certificates[0].publicKey)?.derRepresentation == key.publicKey.derRepresentation else {
            throw SigningChainError.keyIsNotTheLeafs
        }
        leaf = certificates[0]
        intermediate = certificates[1]
        root = certificates[2]
        leafKey = key
    }

    /// The leaf's private key as PEM, to save the chain (never printed).
    public var leafKeyPEM: String { leafKey.pemRepresentation }

    /// Apple's marker: non-critical, value ASN.1 NULL.
    private static func marker(_ oid: ASN1ObjectIdentifier) -> Certificate.Extension {
        Certificate.Extension(oid: oid, critical: false, value: [0x05, 0x00])
    }

    public static func der(_ certificate: Certificate) -> Data {
        var serializer = DER.Serializer()
        // Serialising a certificate this type built cannot fail.
        try! serializer.serialize(certificate)
        return Data(serializer.serializedBytes)
    }

    public var rootDER: Data { Self.der(root) }

    /// The x5c header value: leaf, intermediate, root as standard base64 DER.
    public var x5c: [String] { [leaf, intermediate, root].map { Self.der($0).base64EncodedString() } }

    public var signer: JWSSigner { JWSSigner(key: leafKey, x5c: x5c) }
}

/// Why a saved signing chain cannot be used again.
public enum SigningChainError: Error, CustomStringConvertible {
    case notBase64
    case notThreeCertificates(Int)
    case keyIsNotTheLeafs

    public var description: String {
        switch self {
        case .notBase64: return "a certificate of the chain is not base64"
        case .notThreeCertificates(let count): return "the chain has \(count) certificates, not 3"
        case .keyIsNotTheLeafs: return "the key is not the leaf certificate's"
        }
    }
}
