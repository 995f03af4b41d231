@testable import AppStoreServerAPI
import Foundation
import Testing

/// A verdict names only checks that were made, and says of every other one why not.
@Suite struct VerdictTests {
    static let transaction = #"{"transactionId":"1","originalTransactionId":"1","bundleId":"com.example","environment":"Sandbox","signedDate":1750000000000}"#
    static let renewal = #"{"originalTransactionId":"1","autoRenewStatus":1,"environment":"Sandbox","signedDate":1750000000000}"#
    static let appTransaction = #"{"receiptType":"Production","bundleId":"com.example","appAppleId":42,"appTransactionId":"7","receiptCreationDate":1750000000000}"#

    func verifier(
        _ chain: SigningCertificateAuthority, bundleId: String? = "com.example", appAppleId: Int64? = nil,
        environment: AppStoreEnvironment? = .sandbox
    ) throws -> SignedDataVerifier {
        try SignedDataVerifier(
            bundleId: bundleId, appAppleId: appAppleId, environment: environment, additionalRoots: [chain.rootDER],
            trustAppleRoot: false, requiresAppAppleIdInProduction: false)
    }

    func outcome(_ checks: [VerificationCheck], _ subject: VerificationCheck.Subject) -> VerificationCheck.Outcome? {
        checks.first { $0.subject == subject }?.outcome
    }

    @Test func renewalInfoNeverClaimsABundleCheck() async throws {
        let chain = try SigningCertificateAuthority.test()
        let result = try await verifier(chain).verifyRenewalInfo(chain.sign(Self.renewal))
        #expect(result.status == .verified)
        #expect(outcome(result.checks, .bundleId) == .notCarried(kind: "renewal info"))
        #expect(outcome(result.checks, .appAppleId) == .notCarried(kind: "renewal info"))
        #expect(outcome(result.checks, .environment) == .passed("Sandbox"))
        #expect(result.verdict.contains("bundle ID: not carried by renewal info"))
        #expect(!result.verdict.contains("matches this app"))
        #expect(result.headline == "Verified")
    }

    @Test func aBundleIdWithoutAnEnvironmentIsStillChecked() async throws {
        let chain = try SigningCertificateAuthority.test()
        let onlyBundle = try verifier(chain, environment: nil)
        let result = await onlyBundle.verifyTransaction(chain.sign(Self.transaction))
        #expect(result.status == .verified)
        #expect(outcome(result.checks, .bundleId) == .passed("com.example"))
        #expect(outcome(result.checks, .environment) == .notGiven)
        #expect(result.headline == "Signature verified; not every check was made")
        #expect(result.verdict.contains("environment: not given"))
        let other = try verifier(chain, bundleId: "com.other", environment: nil)
        let refused = await other.verifyTransaction(chain.sign(Self.transaction))
        #expect(refused.status == .failed(.wrongBundleId(expected: "com.other", found: "com.example")))
        #expect(outcome(refused.checks, .bundleId) == .failed("com.example, not com.other"))
    }

    @Test func nothingExpectedMeansOnlyTheSignatureWasChecked() async throws {
        let chain = try SigningCertificateAuthority.test()
        let result = try await verifier(chain, bundleId: nil, environment: nil).verifyTransaction(chain.sign(Self.transaction))
        #expect(result.status == .verified)
        #expect(result.checks.filter(\.wasMade).map(\.subject) == [.chain])
        #expect(result.verdict.contains("signature and chain: checked (valid at the signedDate; revocation not checked)"))
        #expect(result.verdict.contains("bundle ID: not given"))
    }

    @Test func appAppleIdIsCheckedForProductionDataOnly() async throws {
        let chain = try SigningCertificateAuthority.test()
        let production = try verifier(chain, appAppleId: 42, environment: .production)
        let checked = await production.verifyAppTransaction(chain.sign(Self.appTransaction))
        #expect(checked.status == .verified)
        #expect(outcome(checked.checks, .appAppleId) == .passed("42"))
        let unknownApp = try verifier(chain, appAppleId: nil, environment: .production)
        let unchecked = await unknownApp.verifyAppTransaction(chain.sign(Self.appTransaction))
        #expect(outcome(unchecked.checks, .appAppleId) == .notGiven)
        let sandbox = await production.expecting(.sandbox).verifyTransaction(chain.sign(Self.transaction))
        #expect(outcome(sandbox.checks, .appAppleId) == .notCarried(kind: "a transaction"))
        let sandboxApp = Self.appTransaction.replacingOccurrences(of: "Production", with: "Sandbox")
        let sandboxResult = await production.expecting(.sandbox).verifyAppTransaction(chain.sign(sandboxApp))
        #expect(outcome(sandboxResult.checks, .appAppleId) == .notApplicable("Apple checks it for Production data only"))
    }

    @Test func expectingAnotherEnvironmentKeepsTheApp() async throws {
        let chain = try SigningCertificateAuthority.test()
        let production = try verifier(chain, bundleId: "com.other", appAppleId: 42, environment: .production)
        let sandbox = production.expecting(.sandbox)
        #expect(sandbox.bundleId == "com.other")
        #expect(sandbox.appAppleId == 42)
        #expect(sandbox.environment == .sandbox)
        let result = await sandbox.verifyTransaction(chain.sign(Self.transaction))
        #expect(result.status == .failed(.wrongBundleId(expected: "com.other", found: "com.example")))
        #expect(outcome(result.checks, .environment) == .passed("Sandbox"))
    }

    @Test func contentIsNotCheckedWhenTheSignatureFails() async throws {
        let chain = try SigningCertificateAuthority.test()
        let other = try SigningCertificateAuthority.test()
        let result = try await verifier(other).verifyTransaction(chain.sign(Self.transaction))
        guard case .failed(.untrustedChain) = result.status else { Issue.record("\(result.status)"); return }
        #expect(outcome(result.checks, .chain) == .failed("VERIFICATION_FAILURE"))
        #expect(outcome(result.checks, .bundleId) == .notMade("the signature did not verify"))
        #expect(result.verdict.hasPrefix("NOT VERIFIED (VERIFICATION_FAILURE)"))
    }

    @Test func xcodeDataIsNeverVerifiedEvenWithoutAnExpectedEnvironment() async throws {
        let any = try SignedDataVerifier(bundleId: nil, appAppleId: nil, environment: nil)
        let result = await any.verifyTransaction(Fixture.text("apple/xcode/xcode-signed-transaction"))
        guard case .notChecked = result.status else { Issue.record("\(result.status)"); return }
        #expect(outcome(result.checks, .chain) == .notMade("Xcode (StoreKit Testing) data is not signed by Apple"))
        #expect(result.verifiedPayload == nil)
    }
}
