import AppStoreServerAPI
import Foundation
@testable import iapdesk
import Testing

/// `--json` documents written from Encodable types keep the documented field names, write each date
/// as the pair `name` (ISO 8601) and `nameMs`, and leave absent fields out rather than writing null.
@Suite struct JSONOutputTests {
    static func object(_ text: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any], "\(text)")
    }

    static let purchased = Date(timeIntervalSince1970: 1_769_879_896)

    @Test func aTransactionRecordHasEveryDocumentedFieldAndItsDatePairs() throws {
        var t = TransactionPayload()
        (t.transactionId, t.originalTransactionId, t.webOrderLineItemId) = ("2000000400000301", "2000000400000300", "2000000300000101")
        (t.bundleId, t.productId, t.subscriptionGroupIdentifier) = ("com.iapdesk.demo", "com.iapdesk.demo.pro.yearly", "21000001")
        (t.quantity, t.type, t.appAccountToken) = (1, .autoRenewableSubscription, "6c0ef01f-2097-4bd9-8b60-b4c185ae01d2")
        (t.inAppOwnershipType, t.revocationReason, t.revocationType, t.revocationPercentage) = (.purchased, .refundedForOtherReason, .refundProrated, 50_000)
        (t.isUpgraded, t.offerType, t.offerIdentifier, t.offerDiscountType, t.offerPeriod) = (false, .introductoryOffer, "intro", .freeTrial, "P1W")
        (t.environment, t.storefront, t.storefrontId, t.transactionReason) = (.production, "GBR", "143444", .purchase)
        (t.currency, t.price, t.appTransactionId) = ("GBP", 79_990, "704000000000591")
        t.purchaseDate = Self.purchased
        t.originalPurchaseDate = Self.purchased
        t.expiresDate = Self.purchased.addingTimeInterval(365 * 86_400)
        t.signedDate = Self.purchased.addingTimeInterval(60)
        t.revocationDate = Self.purchased.addingTimeInterval(86_400)
        let verified = VerifiedPayload(payload: t, rawPayload: nil, header: nil, status: .verified, chainSubjects: [], signed: "eyJhbGciOiJFUzI1NiJ9.e30.sig")

        let object = try Self.object(Printer.render(TransactionRecord(verified)))
        let dates = ["purchaseDate", "originalPurchaseDate", "expiresDate", "signedDate", "revocationDate"]
        let expected: Set<String> = Set([
            "verification", "signedTransactionInfo", "transactionId", "originalTransactionId", "webOrderLineItemId", "bundleId",
            "productId", "subscriptionGroupIdentifier", "quantity", "type", "appAccountToken", "inAppOwnershipType",
            "revocationReason", "revocationType", "revocationPercentage", "isUpgraded", "offerType", "offerIdentifier",
            "offerDiscountType", "offerPeriod", "environment", "storefront", "storefrontId", "transactionReason", "currency",
            "price", "appTransactionId",
        ] + dates + dates.map { $0 + "Ms" })
        #expect(Set(object.keys) == expected)
        #expect(object["purchaseDate"] as? String == "2026-01-31T17:18:16.000Z")
        #expect((object["purchaseDateMs"] as? NSNumber)?.int64Value == 1_769_879_896_000)
        #expect(object["type"] as? String == "Auto-Renewable Subscription")
        #expect(object["revocationReason"] as? Int == 0)
        #expect((object["verification"] as? [String: Any])?["status"] as? String == "verified")
    }

    @Test func absentFieldsAreLeftOutNeverNull() throws {
        var t = TransactionPayload()
        t.transactionId = "2000000400000301"
        t.purchaseDate = Self.purchased
        let sparse = Printer.render(TransactionRecord(VerifiedPayload(payload: t, rawPayload: nil, header: nil, status: .notChecked("no verifier"), chainSubjects: [])))
        #expect(!sparse.contains("null"), "\(sparse)")
        #expect(Set(try Self.object(sparse).keys) == ["verification", "transactionId", "purchaseDate", "purchaseDateMs"])
        #expect(try Self.object(sparse)["verification"] as? [String: String] == ["status": "not_checked", "reason": "no verifier"])

        // A subscription with neither transaction nor renewal info, and a notification with no payload.
        let status = StatusOutput(id: "1", environment: nil, bundleId: nil, groups: [
            StatusOutput.Group(subscriptionGroupIdentifier: nil, lastTransactions: [StatusOutput.Item()]),
        ])
        let document = Printer.render(status)
        #expect(!document.contains("null"), "\(document)")
        let group = try #require((try Self.object(document)["groups"] as? [[String: Any]])?.first)
        #expect(Set(group.keys) == ["lastTransactions"])
        #expect((group["lastTransactions"] as? [[String: Any]])?.first?.isEmpty == true)
    }

    @Test func aCommandsDocumentCarriesTheDatePairAndNoNull() async throws {
        let result = try await CommandLineTests().run(["transaction", "2000000400000301", "--demo", "--json"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(!result.stdout.contains("null"))
        let object = try Self.object(result.stdout)
        let iso = try #require(object["purchaseDate"] as? String)
        let milliseconds = try #require((object["purchaseDateMs"] as? NSNumber)?.int64Value)
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        let date = try #require(formatter.date(from: iso))
        #expect(Int64((date.timeIntervalSince1970 * 1000).rounded()) == milliseconds)
        #expect(object["foundIn"] as? String == "Production")
        // A purchase that was not refunded says nothing of revocation.
        #expect(object["revocationDate"] == nil && object["revocationDateMs"] == nil && object["revocationReason"] == nil)
    }
}
