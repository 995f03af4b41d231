import SwiftASN1
import X509

/// Apple's marker extensions on the certificates that sign App Store data.
public enum AppleCertificateOIDs {
    /// Apple Worldwide Developer Relations intermediate.
    public static let intermediate: ASN1ObjectIdentifier = [1, 2, 840, 113635, 100, 6, 2, 1]
    /// Mac App Store and iTunes Store receipt signing leaf.
    public static let receiptSigningLeaf: ASN1ObjectIdentifier = [1, 2, 840, 113635, 100, 6, 11, 1]
}

/// Requires a chain of exactly leaf, intermediate, root with Apple's marker on leaf and intermediate.
struct AppleReceiptSigningPolicy: VerifierPolicy {
    let verifyingCriticalExtensions: [ASN1ObjectIdentifier] = [
        AppleCertificateOIDs.intermediate, AppleCertificateOIDs.receiptSigningLeaf,
    ]

    func chainMeetsPolicyRequirements(chain: UnverifiedCertificateChain) async -> PolicyEvaluationResult {
        guard chain.count == 3 else {
            return .failsToMeetPolicy(reason: "the chain to a trusted root has \(chain.count) certificates, not 3")
        }
        if chain[0].extensions[oid: AppleCertificateOIDs.receiptSigningLeaf] == nil {
            return .failsToMeetPolicy(reason: "the leaf certificate lacks Apple's receipt-signing marker (1.2.840.113635.100.6.11.1)")
        }
        if chain[1].extensions[oid: AppleCertificateOIDs.intermediate] == nil {
            return .failsToMeetPolicy(reason: "the intermediate certificate lacks Apple's WWDR marker (1.2.840.113635.100.6.2.1)")
        }
        return .meetsPolicy
    }
}
