import Foundation

/// Everything signed in a paste, each string verified as what its place or its content says it is.
public struct InspectionReport: Sendable {
    public struct Item: Sendable {
        /// JSON path of the string in the paste ("$" for a bare JWS).
        public let path: String
        public let decoded: DecodedSignedData
    }

    public let items: [Item]
    /// Why there is nothing to show, when nothing signed was found.
    public let problem: String?

    public init(items: [Item], problem: String? = nil) {
        self.items = items
        self.problem = problem
    }

    /// Every payload, nested ones after the one holding them, each with its full path:
    /// "$.signedPayload", "$.signedPayload → data.signedTransactionInfo".
    public var parts: [VerifiedPart] {
        items.flatMap { item -> [VerifiedPart] in
            if case .unrecognised(let reason) = item.decoded {
                return [VerifiedPart(path: item.path, kind: item.decoded.kindName, status: .notChecked("not App Store signed data: \(reason)"), checks: [], rawPayload: nil)]
            }
            return item.decoded.parts.map { $0.located(under: item.path) }
        }
    }

    /// True when no string found was App Store signed data.
    public var isUnrecognised: Bool {
        items.allSatisfy { if case .unrecognised = $0.decoded { return true } else { return false } }
    }
}

extension SignedDataVerifier {
    /// Finds the signed strings in pasted text (a JWS, a webhook body, any JSON holding signed
    /// fields) and verifies each one.
    public func inspect(_ text: String) async -> InspectionReport {
        switch SignedDataLocator.locate(text) {
        case .nothing(let why):
            return InspectionReport(items: [], problem: why)
        case .signed(let found):
            var items: [InspectionReport.Item] = []
            for located in found {
                items.append(.init(path: located.path, decoded: await verify(located)))
            }
            return InspectionReport(items: items)
        }
    }

    /// Apple's member names say what a string holds; elsewhere the payload's fields do.
    private func verify(_ located: LocatedJWS) async -> DecodedSignedData {
        switch located.field {
        case "signedTransactionInfo", "signedTransactions": return .transaction(await verifyTransaction(located.text))
        case "signedRenewalInfo": return .renewalInfo(await verifyRenewalInfo(located.text))
        case "signedAppTransactionInfo": return .appTransaction(await verifyAppTransaction(located.text))
        default: return await verifyAny(located.text)
        }
    }
}
