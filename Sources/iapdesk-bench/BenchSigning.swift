import AppStoreServerAPI
import Foundation

/// A signing authority of the bench's own and a verifier that trusts only it, for measuring
/// verification without Apple's chain.
enum BenchSigning {
    static func authority() throws -> (SigningCertificateAuthority, SignedDataVerifier) {
        let authority = try SigningCertificateAuthority(
            validFrom: Date(timeIntervalSince1970: 1_600_000_000), validUntil: Date(timeIntervalSince1970: 2_000_000_000),
            name: "iapdesk Bench")
        let verifier = try SignedDataVerifier(
            bundleId: "com.example", appAppleId: nil, environment: .sandbox,
            additionalRoots: [authority.rootDER], trustAppleRoot: false)
        return (authority, verifier)
    }
}
