@testable import AppStoreServerAPI
import Foundation
import Testing

/// Whatever is pasted (a JWS, a webhook body, an API response), every signed string in it is found,
/// verified as what it is, and reported with its JSON path.
@Suite struct InspectionTests {
    static let transaction = #"{"transactionId":"11","originalTransactionId":"10","bundleId":"com.example","environment":"Sandbox","signedDate":1750000000000}"#
    static let renewal = #"{"originalTransactionId":"10","autoRenewStatus":1,"environment":"Sandbox","signedDate":1750000000000}"#

    let chain: SigningCertificateAuthority
    let verifier: SignedDataVerifier

    init() throws {
        chain = try SigningCertificateAuthority.test()
        verifier = try SignedDataVerifier(
            bundleId: "com.example", appAppleId: nil, environment: .sandbox, additionalRoots: [chain.rootDER], trustAppleRoot: false)
    }

    func notification() -> String {
        chain.sign(#"{"notificationType":"DID_RENEW","notificationUUID":"u-1","signedDate":1750000000000,"version":"2.0","data":{"bundleId":"com.example","environment":"Sandbox","status":1,"signedTransactionInfo":"\#(chain.sign(Self.transaction))","signedRenewalInfo":"\#(chain.sign(Self.renewal))"}}"#)
    }

    func summary(_ report: InspectionReport) -> [String] {
        report.parts.map { "\($0.path) \($0.kind) \($0.status.isVerified ? "verified" : "NOT")" }
    }

    @Test func aBareJWS() async {
        let report = await verifier.inspect("  \(chain.sign(Self.transaction))\n")
        #expect(summary(report) == ["$ transaction verified"])
    }

    @Test func aWebhookBodyIsVerifiedNotCalledMalformed() async {
        let report = await verifier.inspect(#"{"signedPayload":"\#(notification())"}"#)
        #expect(summary(report) == [
            "$.signedPayload notification verified",
            "$.signedPayload → data.signedTransactionInfo transaction verified",
            "$.signedPayload → data.signedRenewalInfo renewal info verified",
        ])
    }

    @Test func aSubscriptionStatusesResponse() async {
        let body = """
            {"environment":"Sandbox","bundleId":"com.example","data":[{"subscriptionGroupIdentifier":"g",\
            "lastTransactions":[{"originalTransactionId":"10","status":1,"signedTransactionInfo":"\(chain.sign(Self.transaction))",\
            "signedRenewalInfo":"\(chain.sign(Self.renewal))"}]}]}
            """
        let report = await verifier.inspect(body)
        #expect(summary(report) == [
            "$.data[0].lastTransactions[0].signedTransactionInfo transaction verified",
            "$.data[0].lastTransactions[0].signedRenewalInfo renewal info verified",
        ])
    }

    @Test func aHistoryPageAndAnAppTransactionAnswer() async {
        let history = #"{"revision":"r","hasMore":false,"signedTransactions":["\#(chain.sign(Self.transaction))","\#(chain.sign(Self.transaction))"]}"#
        #expect(summary(await verifier.inspect(history)) == [
            "$.signedTransactions[0] transaction verified", "$.signedTransactions[1] transaction verified",
        ])
        let app = chain.sign(#"{"receiptType":"Sandbox","bundleId":"com.example","appTransactionId":"7","receiptCreationDate":1750000000000}"#)
        #expect(summary(await verifier.inspect(#"{"signedAppTransactionInfo":"\#(app)"}"#)) == ["$.signedAppTransactionInfo app transaction verified"])
    }

    @Test func aNotificationHistoryPageIsReadByContent() async {
        let page = #"{"notificationHistory":[{"sendAttempts":[],"signedPayload":"\#(notification())"}],"hasMore":false}"#
        let report = await verifier.inspect(page)
        #expect(report.parts.first?.path == "$.notificationHistory[0].signedPayload")
        #expect(report.parts.first?.kind == "notification")
        #expect(report.parts.count == 3)
    }

    @Test func placeholdersUnderSignedNamesAreReportedNotSkipped() async {
        let report = await verifier.inspect(Fixture.text("apple/models/getAllSubscriptionStatusesResponse.json"))
        #expect(report.parts.count == 6)
        #expect(report.parts.allSatisfy { $0.verdict.contains("INVALID_JWT_FORMAT") })
        #expect(report.parts[1].path == "$.data[0].lastTransactions[0].signedRenewalInfo")
    }

    @Test func nothingSignedSaysWhy() async {
        #expect(await verifier.inspect(" \n").problem == "Nothing was pasted.")
        #expect(await verifier.inspect(#"{"hasMore":false}"#).problem?.contains("no signed data") == true)
        #expect(await verifier.inspect(#"{"signedPayload": "#).problem?.hasPrefix("Not a JWS, and not valid JSON") == true)
        let garbage = await verifier.inspect("hello world")
        #expect(garbage.isUnrecognised)
        #expect(garbage.parts.first?.status.isVerified == false)
    }

    @Test func aQuotedJWSAndOddMemberNames() async {
        let jws = chain.sign(Self.transaction)
        #expect(summary(await verifier.inspect("\"\(jws)\"")) == ["$ transaction verified"])
        #expect(summary(await verifier.inspect(#"{"my key":{"x-jws":"\#(jws)"}}"#)) == [#"$["my key"]["x-jws"] transaction verified"#])
    }

    @Test func jwsShape() {
        #expect(SignedDataLocator.looksLikeJWS("eyJhbGciOiJFUzI1NiJ9.eyJ4IjoxfQ.c2ln"))
        #expect(!SignedDataLocator.looksLikeJWS("eyJhbGciOiJFUzI1NiJ9..c2ln"))
        #expect(!SignedDataLocator.looksLikeJWS("eyJ.eyJ.sig.more"))
        #expect(!SignedDataLocator.looksLikeJWS("com.example.app"))
        #expect(!SignedDataLocator.looksLikeJWS("eyJ a.b.c"))
    }

    /// What Apple POSTs to a Retention Messaging realtime URL is a real-time request, not renewal info.
    @Test func aRealtimeRequestBodyIsRecognisedAndVerified() async throws {
        let payload = #"{"originalTransactionId":"99371282","appAppleId":531412,"productId":"com.example.product","userLocale":"en-US","requestIdentifier":"3db5c98d-8acf-4e29-831e-8e1f82f9f6e9","environment":"Sandbox","signedDate":1750000000000}"#
        let signed = chain.sign(payload)
        let report = await verifier.inspect(#"{"signedPayload":"\#(signed)"}"#)
        #expect(summary(report) == ["$.signedPayload real-time request verified"])
        guard case .realtimeRequest(let verified) = await verifier.verifyAny(signed) else {
            Issue.record("a real-time request must be recognised as one")
            return
        }
        #expect(verified.payload?.userLocale == "en-US")
        #expect(verified.payload?.requestIdentifier == "3db5c98d-8acf-4e29-831e-8e1f82f9f6e9")
        #expect(verified.payload?.appAppleId == 531_412)
        // Apple's own sample, signed as it is (LocalTesting), is recognised from its fields alone.
        let fixture = String(decoding: Fixture.model("decodedRealtimeRequest"), as: UTF8.self)
        #expect(await verifier.verifyAny(chain.sign(fixture)).kindName == "real-time request")
        // A tampered one fails as any signed data does.
        let tampered = String(signed.dropLast(4)) + "AAAA"
        #expect(await verifier.verifyRealtimeRequest(tampered).status.isVerified == false)
    }
}
