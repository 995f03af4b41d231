import SwiftASN1
import X509

/// Apple's marker extensions on the certificates that sign App Store data.
public enum AppleCertificateOIDs {
    /// Apple Worldwide Developer Relations intermediate.
    public static let intermediate: ASN1ObjectIdentifier = [1, 2, 840, 113635, 100, 6, 2, 1]
    /// Mac App Store and iTunes Store receipt signing leaf.
    public static let receiptSigningLeaf: ASN1ObjectIdentifier = [1, 2, 840, 113635, 100, 6, 11, 1]

    /// A name for the markers in messages.
    static func describe(_ oid: ASN1ObjectIdentifier) -> String {
        switch oid {
        case intermediate: return "\(oid) (Apple's WWDR intermediate marker)"
        case receiptSigningLeaf: return "\(oid) (Apple's receipt-signing marker)"
        default: return "\(oid)"
        }
    }
}

/// Requires a chain of exactly leaf, intermediate, root with Apple's marker on the leaf and on the
/// intermediate. The markers are not processed extensions: like Apple's verifiers, this refuses them
/// when marked critical (Apple issues them non-critical).
struct AppleReceiptSigningPolicy: VerifierPolicy {
    let verifyingCriticalExtensions: [ASN1ObjectIdentifier] = []

    func chainMeetsPolicyRequirements(chain: UnverifiedCertificateChain) async -> PolicyEvaluationResult {
        guard chain.count == 3 else {
            return .failsToMeetPolicy(reason: "the chain to a trusted root has \(chain.count) certificates, not 3")
        }
        if chain[0].extensions[oid: AppleCertificateOIDs.receiptSigningLeaf] == nil {
            return .failsToMeetPolicy(reason: "the leaf certificate lacks \(AppleCertificateOIDs.describe(AppleCertificateOIDs.receiptSigningLeaf))")
        }
        if chain[1].extensions[oid: AppleCertificateOIDs.intermediate] == nil {
            return .failsToMeetPolicy(reason: "the intermediate certificate lacks \(AppleCertificateOIDs.describe(AppleCertificateOIDs.intermediate))")
        }
        return .meetsPolicy
    }
}
