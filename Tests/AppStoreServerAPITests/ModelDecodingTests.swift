@testable import AppStoreServerAPI
import Foundation
import Testing

/// Apple's own sample bodies decode field by field.
@Suite struct ModelDecodingTests {
    func decode<T: Decodable>(_ type: T.Type, _ name: String) throws(JSONDecodeFailure) -> T {
        try AppStoreJSON.decode(type, from: Fixture.model(name))
    }

    func ms(_ date: Date?) -> Int64? { date?.epochMilliseconds }

    @Test func transactionPayload() throws {
        let t = try decode(TransactionPayload.self, "signedTransaction")
        #expect(t.transactionId == "23456")
        #expect(t.originalTransactionId == "12345")
        #expect(t.webOrderLineItemId == "34343")
        #expect(t.bundleId == "com.example")
        #expect(t.productId == "com.example.product")
        #expect(t.subscriptionGroupIdentifier == "55555")
        #expect(ms(t.purchaseDate) == 1_698_148_900_000)
        #expect(ms(t.originalPurchaseDate) == 1_698_148_800_000)
        #expect(ms(t.expiresDate) == 1_698_149_000_000)
        #expect(t.quantity == 1)
        #expect(t.type == .autoRenewableSubscription)
        #expect(t.appAccountToken == "7e3fb20b-4cdb-47cc-936d-99d65f608138")
        #expect(t.inAppOwnershipType == .purchased)
        #expect(ms(t.signedDate) == 1_698_148_900_000)
        #expect(t.revocationReason == .refundedDueToIssue)
        #expect(ms(t.revocationDate) == 1_698_148_950_000)
        #expect(t.isUpgraded == true)
        #expect(t.offerType == .introductoryOffer)
        #expect(t.offerIdentifier == "abc.123")
        #expect(t.environment == .localTesting)
        #expect(t.transactionReason == .purchase)
        #expect(t.storefront == "USA")
        #expect(t.storefrontId == "143441")
        #expect(t.price == 10990)
        #expect(t.currency == "USD")
        #expect(t.offerDiscountType == .payAsYouGo)
        #expect(t.appTransactionId == "71134")
        #expect(t.offerPeriod == "P1Y")
        #expect(t.billingPlanType == .monthly)
        #expect(t.commitmentInfo?.billingPeriodNumber == 3)
        #expect(ms(t.commitmentInfo?.commitmentExpiresDate) == 1_698_150_000_000)
        #expect(t.commitmentInfo?.commitmentPrice == 119_880)
        #expect(t.commitmentInfo?.totalBillingPeriods == 12)
        let commerce = try #require(t.advancedCommerceInfo)
        #expect(commerce.descriptors?.displayName == "Premium")
        #expect(commerce.estimatedTax == 1500)
        #expect(commerce.items?.first?.sku == "com.example.sku.premium")
        #expect(commerce.items?.first?.refunds?.first?.refundAmount == 5000)
        #expect(commerce.items?.first?.refunds?.first?.refundType == "PRORATED")
        #expect(ms(commerce.items?.first?.revocationDate) == 1_698_149_200_000)
        #expect(commerce.taxRate == "0.15")
    }

    @Test func transactionWithRevocation() throws {
        let t = try decode(TransactionPayload.self, "signedTransactionWithRevocation")
        #expect(t.revocationType == .refundProrated)
        #expect(t.revocationPercentage == 50000)
    }

    @Test func renewalInfoPayload() throws {
        let r = try decode(RenewalInfoPayload.self, "signedRenewalInfo")
        #expect(r.expirationIntent == .customerCancelled)
        #expect(r.originalTransactionId == "12345")
        #expect(r.autoRenewProductId == "com.example.product.2")
        #expect(r.productId == "com.example.product")
        #expect(r.autoRenewStatus == .on)
        #expect(r.isInBillingRetryPeriod == true)
        #expect(r.priceIncreaseStatus == .customerHasNotResponded)
        #expect(ms(r.gracePeriodExpiresDate) == 1_698_148_900_000)
        #expect(r.offerType == .promotionalOffer)
        #expect(r.offerIdentifier == "abc.123")
        #expect(ms(r.signedDate) == 1_698_148_800_000)
        #expect(r.environment == .localTesting)
        #expect(ms(r.recentSubscriptionStartDate) == 1_698_148_800_000)
        #expect(ms(r.renewalDate) == 1_698_148_850_000)
        #expect(r.renewalPrice == 9990)
        #expect(r.currency == "USD")
        #expect(r.offerDiscountType == .payAsYouGo)
        #expect(r.eligibleWinBackOfferIds == ["eligible1", "eligible2"])
        #expect(r.appTransactionId == "71134")
        #expect(r.offerPeriod == "P1Y")
        #expect(r.appAccountToken == "7e3fb20b-4cdb-47cc-936d-99d65f608138")
        #expect(r.advancedCommerceInfo?.items?.first?.priceIncreaseInfo?.dependentSKUs == ["com.example.sku.1", "com.example.sku.2"])
        #expect(r.advancedCommerceInfo?.consistencyToken == "token-abc-123")
        #expect(r.commitmentInfo?.commitmentAutoRenewStatus == .on)
        #expect(r.commitmentInfo?.commitmentRenewalBillingPlanType == .monthly)
        #expect(r.renewalBillingPlanType == .monthly)
    }

    @Test func appTransactionPayload() throws {
        let a = try decode(AppTransactionPayload.self, "appTransaction")
        #expect(a.receiptType == .localTesting)
        #expect(a.appAppleId == 531_412)
        #expect(a.bundleId == "com.example")
        #expect(a.applicationVersion == "1.2.3")
        #expect(a.versionExternalIdentifier == 512)
        #expect(ms(a.receiptCreationDate) == 1_698_148_900_000)
        #expect(ms(a.originalPurchaseDate) == 1_698_148_800_000)
        #expect(a.originalApplicationVersion == "1.1.2")
        #expect(a.deviceVerification == "device_verification_value")
        #expect(a.deviceVerificationNonce == "48ccfa42-7431-4f22-9908-7e88983e105a")
        #expect(ms(a.preorderDate) == 1_698_148_700_000)
        #expect(a.appTransactionId == "71134")
        #expect(a.originalPlatform == .iOS)
    }

    @Test func notifications() throws {
        let n = try decode(NotificationPayload.self, "signedNotification")
        #expect(n.notificationType == .subscribed)
        #expect(n.subtype == .initialBuy)
        #expect(n.notificationUUID == "002e14d5-51f5-4503-b5a8-c3a1af68eb20")
        #expect(n.version == "2.0")
        #expect(ms(n.signedDate) == 1_698_148_900_000)
        #expect(n.data?.environment == .localTesting)
        #expect(n.data?.appAppleId == 41234)
        #expect(n.data?.bundleVersion == "1.2.3")
        #expect(n.data?.signedTransactionInfo == "signed_transaction_info_value")
        #expect(n.data?.signedRenewalInfo == "signed_renewal_info_value")
        #expect(n.data?.status == .active)

        let consumption = try decode(NotificationPayload.self, "signedConsumptionRequestNotification")
        #expect(consumption.notificationType == .consumptionRequest)
        #expect(consumption.subtype == nil)
        #expect(consumption.data?.consumptionRequestReason == .unintendedPurchase)

        let summary = try decode(NotificationPayload.self, "signedSummaryNotification")
        #expect(summary.notificationType == .renewalExtension)
        #expect(summary.subtype == .summary)
        #expect(summary.data == nil)
        #expect(summary.summary?.requestIdentifier == "efb27071-45a4-4aca-9854-2a1e9146f265")
        #expect(summary.summary?.storefrontCountryCodes == ["CAN", "USA", "MEX"])
        #expect(summary.summary?.succeededCount == 5)
        #expect(summary.summary?.failedCount == 2)
        #expect(summary.summary?.productId == "com.example.product")

        let token = try decode(NotificationPayload.self, "signedExternalPurchaseTokenNotification")
        #expect(token.notificationType == .externalPurchaseToken)
        #expect(token.subtype == .unreported)
        #expect(token.externalPurchaseToken?.externalPurchaseId == "b2158121-7af9-49d4-9561-1f588205523e")
        #expect(token.externalPurchaseToken?.tokenCreationDate == 1_698_148_950_000)
        #expect(token.externalPurchaseToken?.appAppleId == 55555)
        #expect(SignedDataVerifier.identity(of: token).environment == .production)
        let sandboxToken = try decode(NotificationPayload.self, "signedExternalPurchaseTokenSandboxNotification")
        #expect(SignedDataVerifier.identity(of: sandboxToken).environment == .sandbox)

        let rescind = try decode(NotificationPayload.self, "signedRescindConsentNotification")
        #expect(rescind.notificationType == .rescindConsent)
        #expect(rescind.appData?.appAppleId == 41234)
        #expect(rescind.appData?.signedAppTransactionInfo == "signed_app_transaction_info_value")
        #expect(rescind.appData?.environment == .localTesting)
    }

    @Test func historyResponse() throws {
        let h = try decode(HistoryResponse.self, "transactionHistoryResponse")
        #expect(h.revision == "revision_output")
        #expect(h.hasMore == true)
        #expect(h.bundleId == "com.example")
        #expect(h.appAppleId == 323_232)
        #expect(h.environment == .localTesting)
        #expect(h.signedTransactions == ["signed_transaction_value", "signed_transaction_value2"])
    }

    @Test func unknownEnumValueIsKeptNotFatal() throws {
        let h = try decode(HistoryResponse.self, "transactionHistoryResponseWithMalformedEnvironment")
        #expect(h.environment == .unknown("LocalTestingxxx"))
        #expect(h.environment?.rawValue == "LocalTestingxxx")
        #expect(h.environment?.isKnown == false)
        let reencoded = String(decoding: try AppStoreJSON.encoder().encode(h), as: UTF8.self)
        #expect(reencoded.contains("\"environment\":\"LocalTestingxxx\""))
    }

    @Test func wronglyTypedValueNamesItsPath() throws {
        #expect(throws: JSONDecodeFailure.self) { try decode(HistoryResponse.self, "transactionHistoryResponseWithMalformedAppAppleId") }
        do {
            _ = try decode(HistoryResponse.self, "transactionHistoryResponseWithMalformedAppAppleId")
        } catch {
            #expect(error.path == "hasMore" || error.path == "appAppleId")
            #expect(error.description.contains("HistoryResponse at"))
        }
        let nested = Data(#"{"data":[{"lastTransactions":[{"status":"one"}]}]}"#.utf8)
        do {
            _ = try AppStoreJSON.decode(StatusResponse.self, from: nested)
            Issue.record("a string status must not decode")
        } catch {
            #expect(error.path == "data[0].lastTransactions[0].status")
            #expect(error.reason == "expected a number")
        }
    }

    @Test func statusResponse() throws {
        let s = try decode(StatusResponse.self, "getAllSubscriptionStatusesResponse")
        #expect(s.environment == .localTesting)
        #expect(s.appAppleId == 5_454_545)
        #expect(s.data?.count == 2)
        #expect(s.data?[0].subscriptionGroupIdentifier == "sub_group_one")
        #expect(s.data?[0].lastTransactions?.map(\.status) == [.active, .revoked])
        #expect(s.data?[0].lastTransactions?[1].originalTransactionId == "5314314134")
        #expect(s.data?[0].lastTransactions?[1].signedRenewalInfo == "signed_renewal_two")
        #expect(s.data?[1].lastTransactions?.first?.status == .expired)
    }

    @Test func refundsOrdersAndExtensions() throws {
        let refunds = try decode(RefundHistoryResponse.self, "getRefundHistoryResponse")
        #expect(refunds.signedTransactions?.count == 2)
        #expect(refunds.revision == "revision_output")
        #expect(refunds.hasMore == true)

        let order = try decode(OrderLookupResponse.self, "lookupOrderIdResponse")
        #expect(order.status == .invalid)
        #expect(order.signedTransactions?.count == 2)

        let extend = try decode(ExtendRenewalDateResponse.self, "extendSubscriptionRenewalDateResponse")
        #expect(extend.originalTransactionId == "2312412")
        #expect(extend.webOrderLineItemId == "9993")
        #expect(extend.success == true)
        #expect(ms(extend.effectiveDate) == 1_698_148_900_000)

        let mass = try decode(MassExtendRenewalDateResponse.self, "extendRenewalDateForAllActiveSubscribersResponse")
        #expect(mass.requestIdentifier == "758883e8-151b-47b7-abd0-60c4d804c2f5")

        let massStatus = try decode(MassExtendRenewalDateStatusResponse.self, "getStatusOfSubscriptionRenewalDateExtensionsResponse")
        #expect(massStatus.complete == true)
        #expect(ms(massStatus.completeDate) == 1_698_148_900_000)
        #expect(massStatus.succeededCount == 30)
        #expect(massStatus.failedCount == 2)
    }

    @Test func notificationHistoryAndTests() throws {
        let history = try decode(NotificationHistoryResponse.self, "getNotificationHistoryResponse")
        #expect(history.paginationToken == "57715481-805a-4283-8499-1c19b5d6b20a")
        #expect(history.hasMore == true)
        #expect(history.notificationHistory?.count == 2)
        #expect(history.notificationHistory?[0].sendAttempts?.map(\.sendAttemptResult) == [.noResponse, .success])
        #expect(ms(history.notificationHistory?[0].sendAttempts?[1].attemptDate) == 1_698_148_950_000)
        #expect(history.notificationHistory?[1].sendAttempts?.first?.sendAttemptResult == .circularRedirect)
        #expect(history.notificationHistory?[1].signedPayload == "signed_payload_two")

        let token = try decode(SendTestNotificationResponse.self, "requestTestNotificationResponse")
        #expect(token.testNotificationToken == "ce3af791-365e-4c60-841b-1674b43c1609")
        let status = try decode(CheckTestNotificationResponse.self, "getTestNotificationStatusResponse")
        #expect(status.signedPayload == "signed_payload")
        #expect(status.sendAttempts?.map(\.sendAttemptResult) == [.noResponse, .success])

        let info = try decode(TransactionInfoResponse.self, "transactionInfoResponse")
        #expect(info.signedTransactionInfo == "signed_transaction_info_value")
        let app = try decode(AppTransactionInfoResponse.self, "appTransactionInfoResponse")
        #expect(app.signedAppTransactionInfo != nil)
    }

    @Test func errorBodies() throws {
        let cases: [(String, Int64, String)] = [
            ("apiException", 5_000_000, "An unknown error occurred."),
            ("apiTooManyRequestsException", 4_290_000, "Rate limit exceeded."),
            ("apiUnknownError", 9_990_000, "Testing error."),
            ("invalidTransactionIdError", 4_000_006, "Invalid transaction id."),
            ("transactionIdNotFoundError", 4_040_010, "Transaction id not found."),
        ]
        for (name, code, message) in cases {
            let payload = try decode(ErrorPayload.self, name)
            #expect(payload.errorCode == code)
            #expect(payload.errorMessage == message)
        }
    }

    @Test func fractionalMillisecondsTruncate() throws {
        let t = try AppStoreJSON.decode(TransactionPayload.self, from: Data(#"{"purchaseDate":1697679936049.7297,"originalPurchaseDate":-62135769600000}"#.utf8))
        #expect(t.purchaseDate?.epochMilliseconds == 1_697_679_936_049)
        #expect(t.originalPurchaseDate?.epochMilliseconds == -62_135_769_600_000)
        let encoded = String(decoding: try AppStoreJSON.encoder().encode(t), as: UTF8.self)
        #expect(encoded.contains("\"purchaseDate\":1697679936049"))
    }

    @Test func requestBodiesMatchApplesShapes() throws {
        let extend = ExtendRenewalDateRequest(extendByDays: 45, extendReasonCode: .customerSatisfaction, requestIdentifier: "fdf964a4-233b-486c-aac1-97d8d52688ac")
        #expect(String(decoding: try AppStoreJSON.encoder().encode(extend), as: UTF8.self)
            == #"{"extendByDays":45,"extendReasonCode":1,"requestIdentifier":"fdf964a4-233b-486c-aac1-97d8d52688ac"}"#)
        let history = NotificationHistoryRequest(
            startDate: Date(epochMilliseconds: Int64(1_698_148_900_000)), endDate: Date(epochMilliseconds: Int64(1_698_148_950_000)),
            notificationType: .subscribed, notificationSubtype: .initialBuy, transactionId: "999733843", onlyFailures: true)
        #expect(String(decoding: try AppStoreJSON.encoder().encode(history), as: UTF8.self)
            == #"{"endDate":1698148950000,"notificationSubtype":"INITIAL_BUY","notificationType":"SUBSCRIBED","onlyFailures":true,"startDate":1698148900000,"transactionId":"999733843"}"#)
        let consumption = ConsumptionRequest(customerConsented: true, consumptionPercentage: 50000, deliveryStatus: .delivered, refundPreference: .grantFull, sampleContentProvided: false)
        #expect(String(decoding: try AppStoreJSON.encoder().encode(consumption), as: UTF8.self)
            == #"{"consumptionPercentage":50000,"customerConsented":true,"deliveryStatus":"DELIVERED","refundPreference":"GRANT_FULL","sampleContentProvided":false}"#)
    }

    @Test func jsonTreeKeepsOrderAndNumbers() throws {
        let tree = try JSONValue.parse(Data(#"{"b":1.50,"a":[true,null,"x\u00e9"],"c":{}}"#.utf8))
        guard case .object(let members) = tree else { Issue.record("not an object"); return }
        #expect(members.map(\.key) == ["b", "a", "c"])
        #expect(tree["b"] == .number("1.50"))
        #expect(tree["a"] == .array([.bool(true), .null, .string("xé")]))
        #expect(tree.rendered() == #"{"b":1.50,"a":[true,null,"xé"],"c":{}}"#)
        #expect(throws: JSONDecodeFailure.self) { try JSONValue.parse(Data(#"{"a":1"#.utf8)) }
        #expect(throws: JSONDecodeFailure.self) { try JSONValue.parse(Data("[1] x".utf8)) }
    }

    @Test func jsonTreeStringsMatchFoundationsReading() throws {
        let long = String(repeating: "eyJhbGciOiJFUzI1NiJ9", count: 5_000)
        let source = #"["a\n\t\r\b\f\"\\\/ é山👍 \u00e9\ud83d\ude00 \ud800x \udc00", "\#(long)", "", "\u0041\u00"#
            + #"42"]"#
        let tree = try JSONValue.parse(Data(source.utf8))
        let foundation = try #require(try JSONSerialization.jsonObject(with: Data(source.replacingOccurrences(of: #" \ud800x \udc00"#, with: "").utf8)) as? [String])
        guard case .array(let items) = tree else { Issue.record("not an array"); return }
        #expect(items[0] == .string(foundation[0] + " x \u{FFFD}"), "a lone high surrogate is dropped, a lone low one replaced")
        #expect(items[1] == .string(long))
        #expect(items[2] == .string(""))
        #expect(items[3] == .string("AB"))
        #expect(throws: JSONDecodeFailure.self) { try JSONValue.parse(Data(#"["abc"#.utf8)) }
        #expect(throws: JSONDecodeFailure.self) { try JSONValue.parse(Data(#"["\q"]"#.utf8)) }
    }
}
