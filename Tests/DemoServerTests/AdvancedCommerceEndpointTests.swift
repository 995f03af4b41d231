import AppStoreServerAPI
@testable import DemoServer
import Foundation
import Testing

/// The Advanced Commerce API's server actions as the demo serves them: effects on its Advanced
/// Commerce products, the notification Apple sends for each, and what Apple refuses.
@Suite struct AdvancedCommerceEndpointTests {
    static var reference: AdvancedCommerceRequestInfo { AdvancedCommerceRequestInfo(requestReferenceId: UUID().uuidString) }

    /// The answer's payloads, verified against the demo's root.
    func verified(_ server: DemoServer, _ answer: AdvancedCommerceActionResponse, _ environment: AppStoreEnvironment = .production)
        async throws -> (TransactionPayload, RenewalInfoPayload?)
    {
        let verifier = try server.makeVerifier(environment: environment)
        let transaction = try #require(await verifier.verifyTransaction(answer.signedTransactionInfo ?? "").verifiedPayload)
        guard let signed = answer.signedRenewalInfo else { return (transaction, nil) }
        let renewal: RenewalInfoPayload = try #require(await verifier.verifyRenewalInfo(signed).verifiedPayload)
        return (transaction, renewal)
    }

    /// The type of the next notification the server publishes.
    func nextPublished(_ activity: inout AsyncStream<DemoActivity>.Iterator) async -> String? {
        while let event = await activity.next() {
            if case .published(let type, _) = event { return type }
        }
        return nil
    }

    @Test func cancelThenRevokeTheStudioSubscription() async throws {
        let server = try await DemoServer.start()
        defer { Task { await server.stop() } }
        let client = try server.plainClient()
        let studio = try server.customer("Advanced Commerce subscription").originalTransactionId
        var activity = server.activity().makeAsyncIterator()

        let info = Self.reference
        let cancelled = try await client.cancelAdvancedCommerceSubscription(
            transactionId: studio, request: AdvancedCommerceSubscriptionCancelRequest(requestInfo: info, storefront: "USA"))
        let (transaction, renewal) = try await verified(server, cancelled)
        #expect(transaction.originalTransactionId == studio)
        #expect(transaction.advancedCommerceInfo?.items?.map(\.sku) == ["STUDIO_BASE_1M", "STUDIO_STORAGE_1TB"])
        #expect(renewal?.autoRenewStatus == .off)
        #expect(await nextPublished(&activity) == "DID_CHANGE_RENEWAL_STATUS")
        // Apple's cancel page lists no RepeatedRequestReferenceIdError: the same cancel again is
        // answered with the state, and sends no second notification (the next one is the revoke's).
        let repeated = try await client.cancelAdvancedCommerceSubscription(transactionId: studio, request: .init(requestInfo: info))
        #expect(try await verified(server, repeated).1?.autoRenewStatus == .off)

        let revoked = try await client.revokeAdvancedCommerceSubscription(transactionId: studio, request: AdvancedCommerceSubscriptionRevokeRequest(
            requestInfo: Self.reference, refundReason: .fulfillmentIssue, refundRiskingPreference: true, refundType: .prorated))
        let (after, _) = try await verified(server, revoked)
        #expect(after.revocationDate != nil)
        #expect(after.revocationType == .refundProrated)
        #expect(after.revocationReason == .refundedDueToIssue)
        #expect(after.advancedCommerceInfo?.items?.allSatisfy { $0.revocationDate != nil && $0.refunds?.first?.refundType == "PRORATED" } == true)
        #expect(await nextPublished(&activity) == "REFUND")
        let statuses = try await client.getAllSubscriptionStatuses(anyTransactionId: studio)
        #expect(statuses.data?.flatMap { $0.lastTransactions ?? [] }.first { $0.originalTransactionId == studio }?.status == .revoked)
        let again = await apiError {
            try await client.revokeAdvancedCommerceSubscription(transactionId: studio, request: .init(
                requestInfo: Self.reference, refundReason: .other, refundRiskingPreference: false, refundType: .full))
        }
        #expect(again?.code == 4_000_186)
    }

    @Test func metadataPriceRefundAndMigrationChangeTheDataAndOutliveARestart() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("iapdesk-ac-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: folder) }
        var configuration = DemoServer.Configuration()
        configuration.stateFolder = folder
        let first = try await DemoServer.start(configuration)
        let client = try first.plainClient()
        let studio = try first.customer("Advanced Commerce subscription").originalTransactionId
        let courses = try first.customer("Advanced Commerce one-time charge").originalTransactionId
        let alice = try first.customer("Active monthly subscription").originalTransactionId
        var activity = first.activity().makeAsyncIterator()

        let metadata = try await client.changeAdvancedCommerceSubscriptionMetadata(transactionId: studio, request: .init(
            requestInfo: Self.reference, descriptors: .init(effective: .nextBillCycle, displayName: "Studio Plus"),
            items: [.init(currentSku: "STUDIO_STORAGE_1TB", effective: .immediately, displayName: "Terabyte", sku: "STUDIO_STORAGE_1TB_V2")]))
        let (renamed, renamedRenewal) = try await verified(first, metadata)
        #expect(renamed.advancedCommerceInfo?.descriptors?.displayName == "Studio")
        #expect(renamed.advancedCommerceInfo?.items?.last?.sku == "STUDIO_STORAGE_1TB_V2")
        #expect(renamedRenewal?.advancedCommerceInfo?.descriptors?.displayName == "Studio Plus")
        #expect(await nextPublished(&activity) == "METADATA_UPDATE")

        let priced = try await client.changeAdvancedCommerceSubscriptionPrice(transactionId: studio, request: .init(
            requestInfo: Self.reference, items: [.init(sku: "STUDIO_BASE_1M", price: 11990)], currency: "USD"))
        let (_, pricedRenewal) = try await verified(first, priced)
        #expect(pricedRenewal?.renewalPrice == 14_980)
        #expect(pricedRenewal?.advancedCommerceInfo?.items?.first?.priceIncreaseInfo?.status == "SCHEDULED")
        #expect(await nextPublished(&activity) == "PRICE_CHANGE")
        // The same prices again change nothing: answered, with no PRICE_CHANGE (the next notification is the refund's).
        let same = try await client.changeAdvancedCommerceSubscriptionPrice(transactionId: studio, request: .init(
            requestInfo: Self.reference, items: [.init(sku: "STUDIO_BASE_1M", price: 11990)]))
        #expect(try await verified(first, same).1?.renewalPrice == 14_980)

        let refund = try await client.requestAdvancedCommerceRefund(transactionId: courses, request: .init(
            requestInfo: Self.reference, items: [.init(sku: "COURSE_SWIFTUI_LAYOUT", refundReason: .unsatisfiedWithPurchase, refundType: .custom, revoke: true, refundAmount: 1000)],
            refundRiskingPreference: false, currency: "GBP"))
        #expect(refund.signedRenewalInfo == nil)
        let (refunded, _) = try await verified(first, refund)
        let item = try #require(refunded.advancedCommerceInfo?.items?.first { $0.sku == "COURSE_SWIFTUI_LAYOUT" })
        #expect(item.refunds?.first?.refundAmount == 1000 && item.revocationDate != nil)
        #expect(refunded.revocationDate == nil, "one item of two was refunded: the transaction stands")
        #expect(await nextPublished(&activity) == "REFUND")

        let migration = try await client.migrateToAdvancedCommerce(transactionId: alice, request: .init(
            requestInfo: Self.reference, descriptors: .init(description: "Pro, as a Studio plan", displayName: "Studio"),
            items: [.init(sku: "PRO_BASE", description: "Everything Pro had", displayName: "Pro base")], targetProductId: "com.iapdesk.demo.studio.ac",
            taxCode: "C003-00-1"))
        let (_, migrated) = try await verified(first, migration)
        #expect(migrated?.autoRenewProductId == "com.iapdesk.demo.studio.ac")
        #expect(migrated?.advancedCommerceInfo?.items?.first?.price == 9990)
        #expect(await nextPublished(&activity) == "MIGRATION")
        await first.stop()

        // A second start replays every action from the journal.
        let second = try await DemoServer.start(configuration)
        defer { Task { await second.stop() } }
        let again = try second.plainClient()
        let studioStatus = try await again.getAllSubscriptionStatuses(anyTransactionId: studio).data?.flatMap { $0.lastTransactions ?? [] }
            .first { $0.originalTransactionId == studio }
        let (studioNow, studioRenewal) = try await verified(second, AdvancedCommerceActionResponse(
            signedTransactionInfo: studioStatus?.signedTransactionInfo, signedRenewalInfo: studioStatus?.signedRenewalInfo))
        #expect(studioNow.advancedCommerceInfo?.items?.last?.sku == "STUDIO_STORAGE_1TB_V2")
        #expect(studioRenewal?.renewalPrice == 14_980)
        #expect(studioRenewal?.advancedCommerceInfo?.descriptors?.displayName == "Studio Plus")
        let coursesNow = try await verified(second, AdvancedCommerceActionResponse(
            signedTransactionInfo: try await again.getTransactionInfo(transactionId: courses).signedTransactionInfo)).0
        #expect(coursesNow.advancedCommerceInfo?.items?.last?.refunds?.first?.refundAmount == 1000)
        let statuses = try await again.getAllSubscriptionStatuses(anyTransactionId: alice)
        let renewal = try #require(statuses.data?.flatMap { $0.lastTransactions ?? [] }.first { $0.originalTransactionId == alice }?.signedRenewalInfo)
        #expect(try #require(await second.makeVerifier().verifyRenewalInfo(renewal).verifiedPayload).autoRenewProductId == "com.iapdesk.demo.studio.ac")
        let migrateAgain = await apiError {
            try await again.migrateToAdvancedCommerce(transactionId: alice, request: .init(
                requestInfo: Self.reference, descriptors: .init(description: "d", displayName: "n"), items: [.init(sku: "A", description: "d", displayName: "n")],
                targetProductId: "com.iapdesk.demo.studio.ac", taxCode: "C003-00-1"))
        }
        #expect(migrateAgain?.code == 4_000_176)
    }

    @Test func ordinaryPurchasesAndWrongStatesAreRefusedAsApple() async throws {
        let server = try await SharedDemo.get()
        let client = try server.plainClient()
        func code(_ body: () async throws -> AdvancedCommerceActionResponse) async -> Int64? { await apiError(body)?.code }
        let alice = try server.customer("Active monthly subscription").originalTransactionId
        let cancel = AdvancedCommerceSubscriptionCancelRequest(requestInfo: Self.reference)
        #expect(await code { try await client.cancelAdvancedCommerceSubscription(transactionId: alice, request: cancel) } == 4_030_010)
        let coins = try #require(server.seedIDs(.production).consumableTransactionIds.first)
        #expect(await code { try await client.cancelAdvancedCommerceSubscription(transactionId: coins, request: cancel) } == 4_030_008)
        #expect(await code { try await client.cancelAdvancedCommerceSubscription(transactionId: "2000000499999999", request: cancel) } == 4_040_010)
        let refund = AdvancedCommerceRequestRefundRequest(
            requestInfo: Self.reference, items: [.init(sku: "X", refundReason: .other, refundType: .full, revoke: false)], refundRiskingPreference: false)
        #expect(await code { try await client.requestAdvancedCommerceRefund(transactionId: coins, request: refund) } == 4_030_024)
        let courses = try server.customer("Advanced Commerce one-time charge").originalTransactionId
        #expect(await code { try await client.requestAdvancedCommerceRefund(transactionId: courses, request: refund) } == 4_000_122)
        let prorated = AdvancedCommerceRequestRefundRequest(
            requestInfo: Self.reference, items: [.init(sku: "COURSE_SWIFT_101", refundReason: .other, refundType: .prorated, revoke: false)],
            refundRiskingPreference: false)
        #expect(await code { try await client.requestAdvancedCommerceRefund(transactionId: courses, request: prorated) } == 4_000_182)
        let tooMuch = AdvancedCommerceRequestRefundRequest(
            requestInfo: Self.reference, items: [.init(sku: "COURSE_SWIFT_101", refundReason: .other, refundType: .custom, revoke: false, refundAmount: 99_000)],
            refundRiskingPreference: false)
        #expect(await code { try await client.requestAdvancedCommerceRefund(transactionId: courses, request: tooMuch) } == 4_000_132)
        let studio = try server.customer("Advanced Commerce subscription").originalTransactionId
        #expect(await code {
            try await client.cancelAdvancedCommerceSubscription(transactionId: studio, request: .init(requestInfo: Self.reference, storefront: "GBR"))
        } == 4_000_133)
        func migrate(_ id: String, target: String = "com.iapdesk.demo.studio.ac") async -> Int64? {
            await code {
                try await client.migrateToAdvancedCommerce(transactionId: id, request: .init(
                    requestInfo: Self.reference, descriptors: .init(description: "d", displayName: "n"),
                    items: [.init(sku: "A", description: "d", displayName: "n")], targetProductId: target, taxCode: "C003-00-1"))
            }
        }
        #expect(await migrate(studio) == 4_000_176)
        let native = await apiError {
            try await client.migrateToAdvancedCommerce(transactionId: studio, request: .init(
                requestInfo: Self.reference, descriptors: .init(description: "d", displayName: "n"),
                items: [.init(sku: "A", description: "d", displayName: "n")], targetProductId: "com.iapdesk.demo.studio.ac", taxCode: "C003-00-1"))
        }
        guard case .server(let failure) = native else { Issue.record("\(String(describing: native))"); return }
        #expect(failure.message?.contains("already an Advanced Commerce subscription") == true)
        #expect(native?.summary.contains("already an Advanced Commerce one") == true)
        #expect(await migrate(try server.customer("Price increase pending").originalTransactionId) == 4_030_027)
        #expect(await migrate(try server.customer("Expired: billing error").originalTransactionId) == 4_030_015)
        #expect(await migrate(alice, target: "com.iapdesk.demo.pro.yearly") == 4_000_167)
        #expect(await migrate(alice, target: "com.iapdesk.demo.nothing") == 4_040_016)
        #expect(await code {
            try await client.changeAdvancedCommerceSubscriptionPrice(transactionId: studio, request: .init(
                requestInfo: Self.reference, items: [.init(sku: "STUDIO_BASE_1M", price: 100)], currency: "EUR"))
        } == 4_000_053)
    }

    @Test func bodiesAreCheckedFieldByFieldWithApplesCodes() async throws {
        let server = try await SharedDemo.get()
        let studio = try server.customer("Advanced Commerce subscription").originalTransactionId
        let courses = try server.customer("Advanced Commerce one-time charge").originalTransactionId
        let id = UUID().uuidString
        let info = #""requestInfo":{"requestReferenceId":"\#(id)"}"#
        func post(_ path: String, _ body: String) async throws -> Int64? {
            try await server.rawCode("POST", "/advancedCommerce/v1/\(path)", body: body)
        }
        let cancel = "subscription/cancel/\(studio)"
        #expect(try await post(cancel, "not json") == 4_000_173)
        #expect(try await post(cancel, "{}") == 4_000_079)
        #expect(try await post(cancel, #"{"requestInfo":{}}"#) == 4_000_080)
        #expect(try await post(cancel, #"{"requestInfo":{"requestReferenceId":"abc"}}"#) == 4_000_081)
        #expect(try await post(cancel, #"{"requestInfo":{"requestReferenceId":"\#(id)","appAccountToken":"x"}}"#) == 4_000_033)
        #expect(try await post(cancel, "{\(info),\"storefront\":\"usa\"}") == 4_000_028)
        #expect(try await post("subscription/cancel/12x", "{\(info)}") == 4_000_006)
        let revoke = "subscription/revoke/\(studio)"
        #expect(try await post(revoke, "{\(info),\"refundType\":\"FULL\",\"refundRiskingPreference\":true}") == 4_000_156)
        #expect(try await post(revoke, "{\(info),\"refundReason\":\"LEGAL\",\"refundRiskingPreference\":true}") == 4_000_157)
        #expect(try await post(revoke, "{\(info),\"refundReason\":\"LEGAL\",\"refundType\":\"FULL\"}") == 4_000_159)
        #expect(try await post(revoke, "{\(info),\"refundReason\":\"BORED\",\"refundType\":\"FULL\",\"refundRiskingPreference\":true}") == 4_000_124)
        #expect(try await post(revoke, "{\(info),\"refundReason\":\"LEGAL\",\"refundType\":\"CUSTOM\",\"refundRiskingPreference\":true}") == 4_000_123)
        #expect(try await post(revoke, "{\(info),\"refundReason\":\"SIMULATE_REFUND_DECLINE\",\"refundType\":\"FULL\",\"refundRiskingPreference\":true}") == 4_000_158)
        let refund = "transaction/requestRefund/\(courses)"
        #expect(try await post(refund, "{\(info),\"refundRiskingPreference\":true}") == 4_000_101)
        #expect(try await post(refund, "{\(info),\"items\":[],\"refundRiskingPreference\":true}") == 4_000_160)
        let item = #"{"SKU":"COURSE_SWIFT_101","refundReason":"LEGAL","revoke":false"#
        #expect(try await post(refund, "{\(info),\"items\":[\(item),\"refundType\":\"FULL\",\"refundAmount\":100}],\"refundRiskingPreference\":true}") == 4_000_155)
        #expect(try await post(refund, "{\(info),\"items\":[\(item),\"refundType\":\"CUSTOM\"}],\"refundRiskingPreference\":true}") == 4_000_153)
        #expect(try await post(refund, "{\(info),\"items\":[\(item),\"refundType\":\"CUSTOM\",\"refundAmount\":-5}],\"refundRiskingPreference\":true}") == 4_000_154)
        #expect(try await post(refund, "{\(info),\"items\":[\(item),\"refundType\":\"FULL\"},\(item),\"refundType\":\"FULL\"}],\"refundRiskingPreference\":true}") == 4_000_194)
        let metadata = "subscription/changeMetadata/\(studio)"
        #expect(try await post(metadata, "{\(info)}") == 4_000_160)
        #expect(try await post(metadata, "{\(info),\"descriptors\":{\"displayName\":\"x\"}}") == 4_000_111)
        #expect(try await post(metadata, "{\(info),\"descriptors\":{\"effective\":\"IMMEDIATELY\"}}") == 4_000_165)
        #expect(try await post(metadata, "{\(info),\"items\":[{\"effective\":\"IMMEDIATELY\",\"displayName\":\"x\"}]}") == 4_000_169)
        let long = String(repeating: "n", count: 31)
        #expect(try await post(metadata, "{\(info),\"descriptors\":{\"effective\":\"IMMEDIATELY\",\"displayName\":\"\(long)\"}}") == 4_000_089)
        #expect(try await post(metadata, "{\(info),\"items\":[{\"currentSKU\":\"NOPE\",\"effective\":\"IMMEDIATELY\",\"displayName\":\"x\"}]}") == 4_000_122)
        let price = "subscription/changePrice/\(studio)"
        #expect(try await post(price, "{\(info),\"items\":[{\"SKU\":\"STUDIO_BASE_1M\"}]}") == 4_000_109)
        #expect(try await post(price, "{\(info),\"items\":[{\"SKU\":\"STUDIO_BASE_1M\",\"price\":-1}]}") == 4_000_086)
        #expect(try await post(price, "{\(info),\"items\":[{\"SKU\":\"\(String(repeating: "S", count: 129))\",\"price\":1}]}") == 4_000_087)
        let migrate = "subscription/migrate/\(studio)"
        let descriptors = #""descriptors":{"displayName":"n","description":"d"}"#
        #expect(try await post(migrate, "{\(info),\(descriptors),\"items\":[],\"targetProductId\":\"p\"}") == 4_000_099)
        #expect(try await post(migrate, "{\(info),\"items\":[],\"targetProductId\":\"p\",\"taxCode\":\"t\"}") == 4_000_103)
        #expect(try await post(migrate, "{\(info),\(descriptors),\"items\":[],\"taxCode\":\"t\"}") == 4_000_166)
        #expect(try await post(migrate, "{\(info),\(descriptors),\"items\":[],\"targetProductId\":\"p\",\"taxCode\":\"t\"}") == 4_000_160)
        #expect(try await post(migrate, "{\(info),\(descriptors),\"items\":[{\"SKU\":\"A\",\"displayName\":\"n\"}],\"targetProductId\":\"p\",\"taxCode\":\"t\"}") == 4_000_107)
        // Nothing above was accepted: the subscription is as it was.
        let statuses = try await server.plainClient().getAllSubscriptionStatuses(anyTransactionId: studio)
        #expect(statuses.data?.flatMap { $0.lastTransactions ?? [] }.first { $0.originalTransactionId == studio }?.status == .active)
    }

    @Test func aSimulatedDeclineInSandboxRefundsNothing() async throws {
        let server = try await DemoServer.start()
        defer { Task { await server.stop() } }
        let client = try server.plainClient(.sandbox)
        let courses = try server.customer("Sandbox: Advanced Commerce one-time charge", .sandbox).originalTransactionId
        var activity = server.activity().makeAsyncIterator()
        let answer = try await client.requestAdvancedCommerceRefund(transactionId: courses, request: .init(
            requestInfo: Self.reference, items: [.init(sku: "COURSE_SWIFT_101", refundReason: .simulateRefundDecline, refundType: .full, revoke: true)],
            refundRiskingPreference: false))
        let (transaction, _) = try await verified(server, answer, .sandbox)
        #expect(transaction.advancedCommerceInfo?.items?.allSatisfy { $0.refunds == nil && $0.revocationDate == nil } == true)
        #expect(await nextPublished(&activity) == "REFUND_DECLINED")
    }

    @Test func refundReasonsMapToApplesTwoRevocationReasons() {
        #expect(DemoEnvironmentData.revocationReason(.fulfillmentIssue) == .refundedDueToIssue)
        #expect(DemoEnvironmentData.revocationReason(.unsatisfiedWithPurchase) == .refundedDueToIssue)
        #expect(DemoEnvironmentData.revocationReason(.legal) == .refundedForOtherReason)
        #expect(DemoEnvironmentData.revocationReason(.unintendedPurchase) == .refundedForOtherReason)
    }
}
