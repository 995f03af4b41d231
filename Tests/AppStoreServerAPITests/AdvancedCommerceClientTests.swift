@testable import AppStoreServerAPI
import Foundation
import Testing

/// The Advanced Commerce server actions: Apple's fixtures read and written back unchanged, each
/// action's method, path and body on the wire, the limits checked before sending, and the signed
/// answer verified.
@Suite struct AdvancedCommerceClientTests {
    let base = "https://api.storekit.apple.com"
    let reference = "7c80bb86-f892-4b21-a919-1357811d6c4f"

    /// Decodes Apple's fixture, encodes it again and compares the two as JSON values.
    func roundTrip<T: Codable>(_ type: T.Type, _ fixture: String) throws -> T {
        let original = Fixture.model(fixture)
        let value = try AppStoreJSON.decode(T.self, from: original)
        let again = try AppStoreJSON.encoder().encode(value)
        let left = try JSONSerialization.jsonObject(with: original) as? NSDictionary
        let right = try JSONSerialization.jsonObject(with: again) as? NSDictionary
        #expect(left != nil && left == right, "\(fixture): \(String(decoding: again, as: UTF8.self))")
        return value
    }

    @Test func applesRequestFixturesReadAndWriteBackUnchanged() throws {
        let info = try roundTrip(AdvancedCommerceRequestInfo.self, "advancedCommerceRequestInfo")
        #expect(info.requestReferenceId == "550e8400-e29b-41d4-a716-446655440010")
        #expect(info.consistencyToken == "consistency_token_value")
        let cancel = try roundTrip(AdvancedCommerceSubscriptionCancelRequest.self, "advancedCommerceSubscriptionCancelRequest")
        #expect(cancel.storefront == "USA")
        let revoke = try roundTrip(AdvancedCommerceSubscriptionRevokeRequest.self, "advancedCommerceSubscriptionRevokeRequest")
        #expect(revoke.refundReason == .legal && revoke.refundType == .full && revoke.refundRiskingPreference)
        let refund = try roundTrip(AdvancedCommerceRequestRefundRequest.self, "advancedCommerceRequestRefundRequest")
        #expect(refund.items.map(\.refundType) == [.full, .prorated])
        #expect(refund.items.map(\.revoke) == [true, false])
        let item = try roundTrip(AdvancedCommerceRequestRefundItem.self, "advancedCommerceRequestRefundItem")
        #expect(item.sku == "sku" && item.refundAmount == 5000)
        let metadata = try roundTrip(AdvancedCommerceSubscriptionChangeMetadataRequest.self, "advancedCommerceSubscriptionChangeMetadataRequest")
        #expect(metadata.items?.first?.currentSku == "currentSKU")
        #expect(metadata.items?.first?.effective == .immediately)
        let metadataItem = try roundTrip(AdvancedCommerceSubscriptionChangeMetadataItem.self, "advancedCommerceSubscriptionChangeMetadataItem")
        #expect(metadataItem.effective == .nextBillCycle && metadataItem.sku == "sku")
        let descriptors = try roundTrip(
            AdvancedCommerceSubscriptionChangeMetadataDescriptors.self, "advancedCommerceSubscriptionChangeMetadataDescriptors")
        #expect(descriptors.displayName == "displayName")
        let price = try roundTrip(AdvancedCommerceSubscriptionPriceChangeRequest.self, "advancedCommerceSubscriptionPriceChangeRequest")
        #expect(price.items == [AdvancedCommerceSubscriptionPriceChangeItem(sku: "sku123", price: 15000)])
        #expect(price.currency == "USD")
        let priceItem = try roundTrip(AdvancedCommerceSubscriptionPriceChangeItem.self, "advancedCommerceSubscriptionPriceChangeItem")
        #expect(priceItem.dependentSKUs == ["dependentSKU"])
        let migrate = try roundTrip(AdvancedCommerceSubscriptionMigrateRequest.self, "advancedCommerceSubscriptionMigrateRequest")
        #expect(migrate.targetProductId == "targetProductId" && migrate.taxCode == "taxCode")
        #expect(migrate.items.first?.displayName == "display name")
        _ = try roundTrip(AdvancedCommerceSubscriptionMigrateItem.self, "advancedCommerceSubscriptionMigrateRenewalItem")
        _ = try roundTrip(AdvancedCommerceSubscriptionMigrateDescriptors.self, "advancedCommerceSubscriptionMigrateDescriptors")
    }

    @Test func applesResponseFixturesRead() throws {
        for name in ["Cancel", "ChangeMetadata", "PriceChange", "Revoke"] {
            let answer = try roundTrip(AdvancedCommerceActionResponse.self, "advancedCommerceSubscription\(name)Response")
            #expect(answer.signedTransactionInfo?.hasPrefix("signed_transaction_info") == true, "\(name)")
            #expect(answer.signedRenewalInfo?.hasPrefix("signed_renewal_info") == true, "\(name)")
        }
        let migrate = try roundTrip(AdvancedCommerceActionResponse.self, "advancedCommerceSubscriptionMigrateResponse")
        #expect(migrate.signedRenewalInfo == "signed_renewal_info_value")
        let refund = try roundTrip(AdvancedCommerceActionResponse.self, "advancedCommerceRequestRefundResponse")
        #expect(refund.signedTransactionInfo == "signed_transaction_info_value")
        #expect(refund.signedRenewalInfo == nil)
    }

    @Test func anUnknownRefundReasonIsKeptAsSent() throws {
        let body = #"{"requestInfo":{"requestReferenceId":"\#(reference)"},"refundReason":"CHANGED_MIND","refundType":"FULL","refundRiskingPreference":false}"#
        let revoke = try AppStoreJSON.decode(AdvancedCommerceSubscriptionRevokeRequest.self, from: Data(body.utf8))
        #expect(revoke.refundReason == .unknown("CHANGED_MIND"))
        #expect(AdvancedCommerceLimits.problems(revoke).first?.contains("InvalidRefundReasonError 4000124") == true)
    }

    func run(_ call: (AppStoreServerClient) async throws(APIError) -> AdvancedCommerceActionResponse) async throws -> HTTPRequest {
        let transport = MockTransport([MockTransport.fixture("advancedCommerceSubscriptionCancelResponse")])
        let answer = try await call(try TestCredentials.client(transport, retry: .none))
        #expect(answer.signedTransactionInfo == "signed_transaction_info")
        return try #require(transport.lastRequest)
    }

    func json(_ request: HTTPRequest) throws -> NSDictionary {
        let body = try #require(request.body)
        return try #require(try JSONSerialization.jsonObject(with: body) as? NSDictionary)
    }

    var info: AdvancedCommerceRequestInfo { AdvancedCommerceRequestInfo(requestReferenceId: reference) }

    @Test func eachActionPostsItsBodyToItsPath() async throws {
        var request = try await run { client throws(APIError) in
            try await client.cancelAdvancedCommerceSubscription(
                transactionId: " 4124214 ", request: AdvancedCommerceSubscriptionCancelRequest(requestInfo: info, storefront: "USA"))
        }
        #expect(request.method == "POST")
        #expect(request.url.absoluteString == "\(base)/advancedCommerce/v1/subscription/cancel/4124214")
        #expect(request.header("Content-Type") == "application/json")
        #expect(try json(request) == ["requestInfo": ["requestReferenceId": reference], "storefront": "USA"])

        request = try await run { client throws(APIError) in
            try await client.revokeAdvancedCommerceSubscription(transactionId: "4124214", request: AdvancedCommerceSubscriptionRevokeRequest(
                requestInfo: info, refundReason: .fulfillmentIssue, refundRiskingPreference: true, refundType: .prorated))
        }
        #expect(request.url.path == "/advancedCommerce/v1/subscription/revoke/4124214")
        #expect(try json(request) == [
            "requestInfo": ["requestReferenceId": reference], "refundReason": "FULFILLMENT_ISSUE", "refundRiskingPreference": true,
            "refundType": "PRORATED",
        ])

        request = try await run { client throws(APIError) in
            try await client.requestAdvancedCommerceRefund(transactionId: "4124214", request: AdvancedCommerceRequestRefundRequest(
                requestInfo: info, items: [.init(sku: "BOOK_1", refundReason: .legal, refundType: .custom, revoke: false, refundAmount: 1500)],
                refundRiskingPreference: false, currency: "USD"))
        }
        #expect(request.url.path == "/advancedCommerce/v1/transaction/requestRefund/4124214")
        #expect(try json(request)["items"] as? NSArray == [
            ["SKU": "BOOK_1", "refundReason": "LEGAL", "refundType": "CUSTOM", "revoke": false, "refundAmount": 1500],
        ])

        request = try await run { client throws(APIError) in
            try await client.changeAdvancedCommerceSubscriptionMetadata(transactionId: "4124214", request: AdvancedCommerceSubscriptionChangeMetadataRequest(
                requestInfo: info, items: [.init(currentSku: "OLD", effective: .nextBillCycle, displayName: "New name", sku: "NEW")]))
        }
        #expect(request.url.path == "/advancedCommerce/v1/subscription/changeMetadata/4124214")
        #expect(try json(request)["items"] as? NSArray == [["currentSKU": "OLD", "effective": "NEXT_BILL_CYCLE", "displayName": "New name", "SKU": "NEW"]])

        request = try await run { client throws(APIError) in
            try await client.changeAdvancedCommerceSubscriptionPrice(transactionId: "4124214", request: AdvancedCommerceSubscriptionPriceChangeRequest(
                requestInfo: info, items: [.init(sku: "BASE", price: 12990)]))
        }
        #expect(request.url.path == "/advancedCommerce/v1/subscription/changePrice/4124214")
        #expect(try json(request)["items"] as? NSArray == [["SKU": "BASE", "price": 12990]])

        request = try await run { client throws(APIError) in
            try await client.migrateToAdvancedCommerce(transactionId: "4124214", request: AdvancedCommerceSubscriptionMigrateRequest(
                requestInfo: info, descriptors: .init(description: "All features", displayName: "Studio"),
                items: [.init(sku: "STUDIO_BASE", description: "Base plan", displayName: "Base")], targetProductId: "com.example.ac", taxCode: "C003-00-1"))
        }
        #expect(request.url.path == "/advancedCommerce/v1/subscription/migrate/4124214")
        #expect(try json(request)["targetProductId"] as? String == "com.example.ac")
    }

    @Test func aBodyOverApplesLimitsIsRefusedBeforeAnyRequest() async throws {
        let transport = MockTransport()
        let client = try TestCredentials.client(transport, retry: .none)
        let request = AdvancedCommerceSubscriptionMigrateRequest(
            requestInfo: AdvancedCommerceRequestInfo(requestReferenceId: "not-a-uuid"),
            descriptors: .init(description: String(repeating: "d", count: 46), displayName: String(repeating: "n", count: 31)),
            items: [.init(sku: String(repeating: "S", count: 129), description: "ok", displayName: "ok")], targetProductId: "p", taxCode: "")
        do {
            _ = try await client.migrateToAdvancedCommerce(transactionId: "4124214", request: request)
            Issue.record("a body over the limits was sent")
        } catch {
            guard case .invalidRequest(let message) = error else { Issue.record("expected invalidRequest, got \(error)"); return }
            for expected in ["4000081", "NullTaxCodeError 4000099", "at most 30 (DisplayNameLengthExceededError 4000089)",
                             "at most 45 (DescriptionLengthExceededError 4000088)", "at most 128 (SKULengthExceededError 4000087)"] {
                #expect(message.contains(expected), "\(message)")
            }
        }
        #expect(transport.lastRequest == nil)
    }

    @Test func limitsAreApplesExactly() {
        func metadata(_ name: String) -> [String] {
            AdvancedCommerceLimits.problems(AdvancedCommerceSubscriptionChangeMetadataRequest(
                requestInfo: info, items: [.init(currentSku: String(repeating: "S", count: 128), effective: .immediately, displayName: name)]))
        }
        #expect(metadata(String(repeating: "n", count: 30)).isEmpty)
        #expect(metadata(String(repeating: "n", count: 31)).count == 1)
        let refund = { (type: AdvancedCommerceRefundType, amount: Int64?) in
            AdvancedCommerceLimits.problems(AdvancedCommerceRequestRefundRequest(
                requestInfo: info, items: [.init(sku: "A", refundReason: .other, refundType: type, revoke: false, refundAmount: amount)],
                refundRiskingPreference: true))
        }
        #expect(refund(.full, nil).isEmpty)
        #expect(refund(.custom, 100).isEmpty)
        #expect(refund(.custom, nil).first?.contains("4000153") == true)
        #expect(refund(.full, 100).first?.contains("4000155") == true)
        #expect(refund(.custom, 0).first?.contains("4000154") == true)
        let noItems = AdvancedCommerceLimits.problems(AdvancedCommerceSubscriptionPriceChangeRequest(requestInfo: info, items: []))
        #expect(noItems.first?.contains("AtLeastOneItemError 4000160") == true)
        let twice = AdvancedCommerceLimits.problems(AdvancedCommerceSubscriptionPriceChangeRequest(
            requestInfo: info, items: [.init(sku: "A", price: 1), .init(sku: "A", price: -1)], storefront: "usa"))
        #expect(twice.contains { $0.contains("NegativePriceError 4000086") })
        #expect(twice.contains { $0.contains("4000194") })
        #expect(twice.contains { $0.contains("InvalidStorefrontError 4000028") })
    }

    @Test func theAnswersSignedPayloadsAreVerified() async throws {
        let chain = try SigningCertificateAuthority.test()
        let verifier = try SignedDataVerifier(
            bundleId: "com.example", appAppleId: nil, environment: .sandbox, additionalRoots: [chain.rootDER], trustAppleRoot: false,
            requiresAppAppleIdInProduction: false)
        let service = VerifyingService(verifier: verifier)
        let transaction = #"{"transactionId":"2","originalTransactionId":"1","bundleId":"com.example","environment":"Sandbox","signedDate":1750000000000,"advancedCommerceInfo":{"items":[{"SKU":"BASE","price":9990}],"period":"P1M"}}"#
        let renewal = #"{"originalTransactionId":"1","autoRenewStatus":0,"environment":"Sandbox","signedDate":1750000000000}"#
        let answer = await service.advancedCommerce(AdvancedCommerceActionResponse(
            signedTransactionInfo: chain.sign(transaction), signedRenewalInfo: chain.sign(renewal)))
        #expect(answer.isVerified)
        #expect(answer.transaction?.verifiedPayload?.advancedCommerceInfo?.items?.first?.sku == "BASE")
        #expect(answer.renewal?.verifiedPayload?.autoRenewStatus == .off)

        let other = try SigningCertificateAuthority.test()
        let forged = await service.advancedCommerce(AdvancedCommerceActionResponse(signedTransactionInfo: other.sign(transaction)))
        #expect(!forged.isVerified)
        #expect(forged.renewal == nil)
        #expect(forged.transaction?.verifiedPayload == nil)
    }
}
