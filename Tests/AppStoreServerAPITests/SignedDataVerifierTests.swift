@testable import AppStoreServerAPI
import Crypto
import Foundation
import Testing

@Suite struct AppleFixtureVerificationTests {
    let testCA = Fixture.data("apple/certs/testCA.der")

    /// Apple's test chains lack key identifiers and critical basic constraints, so, as Apple's own
    /// tests do, they are checked without OpenSSL's strict profile.
    func verifier(_ environment: AppStoreEnvironment, appAppleId: Int64? = 1234, strict: Bool = false) throws -> SignedDataVerifier {
        try SignedDataVerifier(
            bundleId: "com.example", appAppleId: appAppleId, environment: environment,
            additionalRoots: [testCA], trustAppleRoot: false, cachesChains: true, strictCertificateProfile: strict)
    }

    @Test func appleTestChainsFailTheStrictProfile() async throws {
        let result = try await verifier(.sandbox, strict: true).verifyTransaction(signed("transactionInfo"))
        guard case .failed(.untrustedChain(let reason)) = result.status else { Issue.record("expected an untrusted chain, got \(result.status)"); return }
        #expect(reason.contains("authority key identifier"), "\(reason)")
    }

    func signed(_ name: String) -> String { Fixture.text("apple/mock_signed_data/\(name)") }

    @Test func validFixturesVerify() async throws {
        let sandbox = try verifier(.sandbox)
        let notification = await sandbox.verifyNotification(signed("testNotification"))
        #expect(notification.notification.status == .verified)
        #expect(notification.notification.payload?.notificationType == .test)
        #expect(notification.notification.payload?.notificationUUID == "9ad56bd2-0bc6-42e0-af24-fd996d87a1e6")
        #expect(notification.notification.chainSubjects.count == 3)

        let transaction = await sandbox.verifyTransaction(signed("transactionInfo"))
        #expect(transaction.status == .verified)
        #expect(transaction.verifiedPayload?.bundleId == "com.example")
        #expect(transaction.payload?.signedDate?.epochMilliseconds == 1_672_956_154_000)

        let renewal = await sandbox.verifyRenewalInfo(signed("renewalInfo"))
        #expect(renewal.status == .verified)
        #expect(renewal.payload?.environment == .sandbox)
    }

    @Test func signedTextIsKeptUnlessDropped() async throws {
        let text = signed("transactionInfo")
        let kept = try await verifier(.sandbox).verifyTransaction(text)
        #expect(kept.signed == text)
        // The console's verifier: the same verdict, without the string it came from; an environment
        // switch keeps the choice.
        let dropping = try verifier(.sandbox).droppingSignedText()
        let dropped = await dropping.expecting(.production).expecting(.sandbox).verifyTransaction(text)
        #expect(dropped.status == .verified)
        #expect(dropped.payload?.bundleId == "com.example")
        #expect(dropped.signed == nil)
        let tampered = await dropping.verifyTransaction(text + "x")
        #expect(tampered.status != .verified)
        #expect(tampered.signed == nil)
    }

    @Test func environmentAndAppIdentifierChecks() async throws {
        let production = try verifier(.production, appAppleId: 1234)
        let wrongEnvironment = await production.verifyNotification(signed("testNotification"))
        #expect(wrongEnvironment.notification.status == .failed(.wrongEnvironment(expected: .production, found: .sandbox)))

        let wrongApp = try verifier(.production, appAppleId: 1235)
        let result = await wrongApp.verifyNotification(signed("testNotification"))
        guard case .failed(let failure) = result.notification.status else { Issue.record("must fail"); return }
        #expect(failure.appleStatus == "INVALID_APP_IDENTIFIER")
        #expect(failure == .wrongAppAppleId(expected: 1235, found: 1234))
    }

    @Test func wrongBundleIdIsRejected() async throws {
        let result = try await verifier(.sandbox).verifyNotification(signed("wrongBundleId"))
        #expect(result.notification.status == .failed(.wrongBundleId(expected: "com.example", found: "com.example.wrong")))
        // The payload stays readable for inspection, but is not offered as verified.
        #expect(result.notification.payload?.data?.bundleId == "com.example.wrong")
        #expect(result.notification.verifiedPayload == nil)
    }

    @Test func missingX5CIsRejected() async throws {
        let result = try await verifier(.sandbox).verifyNotification(signed("missingX5CHeaderClaim"))
        #expect(result.notification.status == .failed(.missingCertificateChain))
        #expect(VerificationFailure.missingCertificateChain.appleStatus == "INVALID_JWT_FORMAT")
    }

    @Test func appleRootAloneDoesNotTrustTestData() async throws {
        let appleOnly = try SignedDataVerifier(bundleId: "com.example", appAppleId: nil, environment: .sandbox)
        let result = await appleOnly.verifyTransaction(signed("transactionInfo"))
        guard case .failed(.untrustedChain) = result.status else { Issue.record("expected untrusted chain, got \(result.status)"); return }
    }

    @Test func productionNeedsAppAppleId() {
        #expect(throws: VerifierConfigurationError.appAppleIdRequired) {
            try SignedDataVerifier(bundleId: "com.example", appAppleId: nil, environment: .production)
        }
        #expect(throws: VerifierConfigurationError.unreadableRoot(index: 1)) {
            try SignedDataVerifier(bundleId: "b", appAppleId: nil, environment: .sandbox, additionalRoots: [Data([1, 2, 3])])
        }
    }

    @Test func xcodeDataIsDecodedButMarkedUnchecked() async throws {
        let xcode = try SignedDataVerifier(bundleId: "com.example.naturelab.backyardbirds.example", appAppleId: nil, environment: .xcode)
        let result = await xcode.verifyTransaction(Fixture.text("apple/xcode/xcode-signed-transaction"))
        guard case .notChecked = result.status else { Issue.record("Xcode data must not count as verified"); return }
        #expect(result.payload?.productId == "pass.premium")
        #expect(result.payload?.purchaseDate?.epochMilliseconds == 1_697_679_936_049)
        #expect(result.verifiedPayload == nil)
    }
}

@Suite struct RealAppleChainTests {
    let x5c = [
        Fixture.data("certs/AppleReceiptSigningLeaf-from-library-tests.cer").base64EncodedString(),
        Fixture.data("certs/AppleWWDRCAG6-from-library-tests.cer").base64EncodedString(),
        Fixture.data("certs/AppleRootCA-G3.cer").base64EncodedString(),
    ]

    @Test func builtInRootIsApplesG3() {
        #expect(AppleRootCertificates.rootCAG3 == Fixture.data("certs/AppleRootCA-G3.cer"))
        let fingerprint = SHA256.hash(data: AppleRootCertificates.rootCAG3).map { String(format: "%02x", $0) }.joined()
        #expect(fingerprint == "63343abfb89a6a03ebb57e9b3f5fa7be7c4f5c756f3017b3a8c488c3653e9179")
    }

    @Test func validAtEffectiveDate() async throws {
        let validator = ChainValidator(roots: [try .init(derEncoded: Array(AppleRootCertificates.rootCAG3))])
        let chain = try await validator.validate(x5c: x5c, at: Date(timeIntervalSince1970: 1_761_962_975))
        #expect(chain.subjects.first?.contains("Prod ECC Mac App Store and iTunes Store Receipt Signing") == true)
        #expect(chain.subjects.count == 3)
    }

    @Test func invalidAfterLeafExpires() async throws {
        let validator = ChainValidator(roots: [try .init(derEncoded: Array(AppleRootCertificates.rootCAG3))])
        let afterExpiry = Date(timeIntervalSince1970: 1_823_000_000) // 2027-10-08 + days: past 2027-10-13
        await #expect(throws: VerificationFailure.self) {
            _ = try await validator.validate(x5c: x5c, at: afterExpiry.addingTimeInterval(10 * 86400))
        }
        // A cached chain still has its dates checked.
        _ = try await validator.validate(x5c: x5c, at: Date(timeIntervalSince1970: 1_761_962_975))
        do {
            _ = try await validator.validate(x5c: x5c, at: Date(timeIntervalSince1970: 1_900_000_000))
            Issue.record("an expired leaf must fail even from the cache")
            return
        } catch {
            #expect(error.description.contains("not valid"))
        }
        // Built for the first two only: the third was the cache's.
        #expect(validator.chainsBuilt == 2)
    }

    @Test func rejectedUnderAnotherRoot() async throws {
        let other = try SigningCertificateAuthority.test()
        let validator = ChainValidator(roots: [other.root])
        await #expect(throws: VerificationFailure.self) {
            _ = try await validator.validate(x5c: x5c, at: Date(timeIntervalSince1970: 1_761_962_975))
        }
    }
}

@Suite struct GeneratedChainVerificationTests {
    static let signedDate: Int64 = 1_750_000_000_000
    let payload = #"{"transactionId":"2000000000000001","originalTransactionId":"2000000000000001","bundleId":"com.example","productId":"pro.monthly","environment":"Sandbox","signedDate":1750000000000,"price":4990,"currency":"EUR"}"#

    func verifier(_ chain: SigningCertificateAuthority) throws -> SignedDataVerifier {
        try SignedDataVerifier(bundleId: "com.example", appAppleId: nil, environment: .sandbox, additionalRoots: [chain.rootDER], trustAppleRoot: false)
    }

    @Test func verifiesAndDecodes() async throws {
        let chain = try SigningCertificateAuthority.test()
        let result = try await verifier(chain).verifyTransaction(chain.sign(payload))
        #expect(result.status == .verified)
        #expect(result.verifiedPayload?.price == 4990)
        #expect(result.header?.x5c?.count == 3)
    }

    @Test func changedPayloadByteIsRejected() async throws {
        let chain = try SigningCertificateAuthority.test()
        let jws = chain.sign(payload)
        let parts = jws.split(separator: ".").map(String.init)
        let tampered = payload.replacingOccurrences(of: "4990", with: "1990")
        let forged = [parts[0], Base64URL.encode(Data(tampered.utf8)), parts[2]].joined(separator: ".")
        let result = try await verifier(chain).verifyTransaction(forged)
        #expect(result.status == .failed(.invalidSignature))
        #expect(result.payload?.price == 1990)
    }

    @Test func changedSignatureByteIsRejected() async throws {
        let chain = try SigningCertificateAuthority.test()
        let jws = chain.sign(payload)
        var parts = jws.split(separator: ".").map(String.init)
        var signature = Base64URL.decode(Substring(parts[2]))!
        signature[10] ^= 0x01
        parts[2] = Base64URL.encode(signature)
        let result = try await verifier(chain).verifyTransaction(parts.joined(separator: "."))
        #expect(result.status == .failed(.invalidSignature))
        // A DER signature instead of the raw 64 bytes is refused too.
        let der = try chain.leafKey.signature(for: Data(jws.split(separator: ".")[0...1].joined(separator: ".").utf8)).derRepresentation
        let withDER = jws.split(separator: ".")[0...1].joined(separator: ".") + "." + Base64URL.encode(der)
        #expect(try await verifier(chain).verifyTransaction(withDER).status == .failed(.invalidSignature))
    }

    @Test func missingAppleMarkersAreRejected() async throws {
        for chain in [try SigningCertificateAuthority.test(markers: .init(intermediate: false)), try SigningCertificateAuthority.test(markers: .init(leaf: false))] {
            let result = try await verifier(chain).verifyTransaction(chain.sign(payload))
            guard case .failed(.untrustedChain(let reason)) = result.status else {
                Issue.record("expected an untrusted chain, got \(result.status)"); continue
            }
            #expect(reason.contains("marker") || reason.contains("1.2.840.113635"))
        }
    }

    @Test func signedDateOutsideValidityIsRejectedEvenWhenCached() async throws {
        let chain = try SigningCertificateAuthority.test(leafValidUntil: Date(timeIntervalSince1970: 1_760_000_000))
        let verifier = try verifier(chain)
        #expect(await verifier.verifyTransaction(chain.sign(payload)).status == .verified)
        let late = payload.replacingOccurrences(of: "1750000000000", with: "1770000000000")
        guard case .failed(.untrustedChain) = await verifier.verifyTransaction(chain.sign(late)).status else {
            Issue.record("a payload signed after the leaf expired must fail"); return
        }
    }

    @Test func malformedInputsFailClearly() async throws {
        let chain = try SigningCertificateAuthority.test()
        let verifier = try verifier(chain)
        for garbage in ["", "abc", "a.b", "a.b.c.d", "!!!.???.***", "eyJ.eyJ.sig"] {
            let result = await verifier.verifyTransaction(garbage)
            guard case .failed(let failure) = result.status else { Issue.record("\(garbage) must fail"); continue }
            #expect(failure.appleStatus == "INVALID_JWT_FORMAT", "\(garbage): \(failure)")
        }
        let wrongAlg = chain.signer.sign(json: Data(payload.utf8), alg: "HS256", x5c: chain.x5c)
        #expect(await verifier.verifyTransaction(wrongAlg).status == .failed(.unsupportedAlgorithm("HS256")))
        let twoCerts = chain.signer.sign(json: Data(payload.utf8), alg: "ES256", x5c: Array(chain.x5c.prefix(2)))
        #expect(await verifier.verifyTransaction(twoCerts).status == .failed(.wrongChainLength(2)))
        let badCert = chain.signer.sign(json: Data(payload.utf8), alg: "ES256", x5c: ["bm90IGEgY2VydA==", chain.x5c[1], chain.x5c[2]])
        guard case .failed(.invalidCertificate) = await verifier.verifyTransaction(badCert).status else {
            Issue.record("an unreadable certificate must be reported as such"); return
        }
    }

    @Test func notificationNestedPayloadsVerifyIndependently() async throws {
        let chain = try SigningCertificateAuthority.test()
        let other = try SigningCertificateAuthority.test()
        let transaction = chain.sign(payload)
        let renewal = other.sign(#"{"originalTransactionId":"2000000000000001","autoRenewStatus":1,"environment":"Sandbox","signedDate":1750000000000}"#)
        let notification = chain.sign(#"{"notificationType":"DID_RENEW","notificationUUID":"u-1","signedDate":1750000000000,"version":"2.0","data":{"bundleId":"com.example","environment":"Sandbox","status":1,"signedTransactionInfo":"\#(transaction)","signedRenewalInfo":"\#(renewal)"}}"#)
        let decoded = try await verifier(chain).verifyNotification(notification)
        #expect(decoded.notification.status == .verified)
        #expect(decoded.transaction?.status == .verified)
        #expect(decoded.renewalInfo?.payload?.autoRenewStatus == .on)
        guard case .failed(.untrustedChain) = decoded.renewalInfo?.status else { Issue.record("renewal from another root must fail"); return }
        #expect(decoded.isFullyVerified == false)
    }

    @Test func detectsTheKindOfAnyPayload() async throws {
        let chain = try SigningCertificateAuthority.test()
        let verifier = try verifier(chain)
        guard case .transaction(let t) = await verifier.verifyAny(chain.sign(payload)) else { Issue.record("transaction"); return }
        #expect(t.status == .verified)
        let renewal = chain.sign(#"{"autoRenewStatus":0,"environment":"Sandbox","signedDate":1750000000000}"#)
        guard case .renewalInfo = await verifier.verifyAny(renewal) else { Issue.record("renewal info"); return }
        let app = chain.sign(#"{"receiptType":"Sandbox","bundleId":"com.example","appTransactionId":"7","receiptCreationDate":1750000000000}"#)
        guard case .appTransaction(let a) = await verifier.verifyAny(app) else { Issue.record("app transaction"); return }
        #expect(a.status == .verified)
        let note = chain.sign(#"{"notificationType":"TEST","signedDate":1750000000000,"data":{"bundleId":"com.example","environment":"Sandbox"}}"#)
        guard case .notification(let n) = await verifier.verifyAny(note) else { Issue.record("notification"); return }
        #expect(n.notification.status == .verified)
        guard case .unrecognised = await verifier.verifyAny("hello world") else { Issue.record("garbage"); return }
    }
}
