import AppStoreServerAPI
import Foundation
import FuzzSupport

/// The verifier never calls data verified unless it is exactly what the trusted chain signed:
/// - "verified" only for a header and payload signed by Apple's test CA (the signed fixtures);
/// - with only Apple's root trusted, or for Xcode data, nothing is ever verified;
/// - a chain remembered from the first check gives the same verdict on the second.
@main enum FuzzSignedDataVerifier {
    static let fixtures = "Tests/AppStoreServerAPITests/Fixtures/apple/"
    static let testCA = RepositoryFiles.data(fixtures + "certs/testCA.der")
    /// `header.payload` of every fixture signed by the test CA: the only texts a signature can cover.
    static let signedInputs: Set<String> = Set(
        ["testNotification", "transactionInfo", "renewalInfo", "wrongBundleId"].map { name in
            let text = RepositoryFiles.text(fixtures + "mock_signed_data/" + name).trimmingCharacters(in: .whitespacesAndNewlines)
            return String(text[..<text.lastIndex(of: ".")!])
        })
    static let appleOnly = try! SignedDataVerifier(bundleId: "com.example", appAppleId: nil, environment: .sandbox, cachesChains: false)
    static let xcode = try! SignedDataVerifier(bundleId: "com.example", appAppleId: nil, environment: .xcode)

    static func main() {
        Fuzz.run { data in
            let text = String(decoding: data, as: UTF8.self)
            runBlocking { await check(text) }
        }
    }

    static func check(_ text: String) async {
        // A fresh verifier per input, so a crash input reproduces on its own.
        let testTrust = try! SignedDataVerifier(
            bundleId: "com.example", appAppleId: 1234, environment: .sandbox, additionalRoots: [testCA],
            trustAppleRoot: false, cachesChains: true)
        let first = await testTrust.verifyAny(text)
        let second = await testTrust.verifyAny(text)
        invariant(first.verdicts(text) == second.verdicts(text),
                  "a remembered chain changed the verdict: \(first.verdicts(text)) then \(second.verdicts(text))")
        for (status, jws) in first.checked(text) where status.isVerified {
            invariant(signedInputs.contains(signingInput(jws)), "verified a text the test CA never signed: \(jws.debugDescription)")
        }
        for (status, _) in await appleOnly.verifyAny(text).checked(text) {
            invariant(!status.isVerified, "verified with only Apple's root trusted")
        }
        let xcodeResult = await xcode.verifyTransaction(text)
        invariant(!xcodeResult.status.isVerified && xcodeResult.verifiedPayload == nil, "Xcode data reported as verified")
    }

    static func signingInput(_ jws: String) -> String {
        let trimmed = jws.trimmingCharacters(in: CharacterSet(charactersIn: " \n\r\t"))
        return trimmed.lastIndex(of: ".").map { String(trimmed[..<$0]) } ?? trimmed
    }
}

extension DecodedSignedData {
    /// Every status in the result with the JWS text it was given for (`outer` for the top level),
    /// nested payloads included.
    func checked(_ outer: String) -> [(VerificationStatus, String)] {
        func entry<P>(_ result: VerifiedPayload<P>?, _ jws: String?) -> [(VerificationStatus, String)] {
            guard let result else { return [] }
            invariant(result.verifiedPayload == nil || result.status.isVerified, "a verified payload with status \(result.status)")
            return [(result.status, jws ?? "")]
        }
        switch self {
        case .notification(let decoded):
            let data = decoded.notification.payload?.data
            let all = entry(decoded.notification, outer)
                + entry(decoded.transaction, data?.signedTransactionInfo)
                + entry(decoded.renewalInfo, data?.signedRenewalInfo)
                + entry(decoded.appTransaction, decoded.notification.payload?.appData?.signedAppTransactionInfo)
            invariant(decoded.isFullyVerified == all.allSatisfy { $0.0.isVerified }, "isFullyVerified disagrees with its parts")
            return all
        case .transaction(let result): return entry(result, outer)
        case .renewalInfo(let result): return entry(result, outer)
        case .appTransaction(let result): return entry(result, outer)
        case .realtimeRequest(let result): return entry(result, outer)
        case .unrecognised: return []
        }
    }

    /// Kind and outcome of every status, for comparing two runs (failure texts may word a cached chain differently).
    func verdicts(_ outer: String) -> [String] {
        [kindName] + checked(outer).map { status, _ in
            switch status {
            case .verified: return "verified"
            case .failed(let failure): return failure.appleStatus
            case .notChecked: return "not checked"
            }
        }
    }
}
