import AppStoreServerAPI
@testable import DemoServer
import Foundation
import Testing

/// Every read endpoint through the real client over loopback: happy paths, filters, paging, errors.
@Suite struct ReadEndpointTests {
    @Test func transactionInfoVerifiesAndUnknownIDsFail() async throws {
        let server = try await SharedDemo.get()
        let client = try server.plainClient()
        let alice = try server.customer("Active monthly subscription")
        let info = try await client.getTransactionInfo(transactionId: alice.originalTransactionId)
        let transaction = try await server.verified(info.signedTransactionInfo)
        #expect(transaction.transactionId == alice.originalTransactionId)
        #expect(transaction.bundleId == DemoServer.bundleId)
        #expect(transaction.environment == .production)
        #expect(await apiError { try await client.getTransactionInfo(transactionId: "12ab") }?.code == 4_000_006)
        #expect(await apiError { try await client.getTransactionInfo(transactionId: "2000000499999999") }?.code == 4_040_010)
        #expect(await apiError { try await client.getTransactionInfo(transactionId: alice.appTransactionId!) }?.code == 4_000_048)
    }

    @Test func orderLookupHoldsSeveralTransactions() async throws {
        let server = try await SharedDemo.get()
        let client = try server.plainClient()
        let order = try await client.lookUpOrderId(orderId: "MK5TTTVWJH")
        #expect(order.status == .valid)
        var products: [String] = []
        for jws in order.signedTransactions ?? [] { products.append(try await server.verified(jws).productId ?? "") }
        #expect(products.sorted() == [DemoCatalog.coins100.productId, DemoCatalog.proMonthly.productId])
        let unknown = try await client.lookUpOrderId(orderId: "ZZZZZZZZZZ")
        #expect(unknown.status == .invalid)
        #expect(unknown.signedTransactions == nil)
        #expect(await apiError { try await client.lookUpOrderId(orderId: "not-an-order!") }?.code == 4_000_000)
    }

    @Test func historyPagesAcrossTheWholePowerUser() async throws {
        let server = try await SharedDemo.get()
        let client = try server.plainClient()
        let pat = try server.customer("Power user with 500+ transactions")
        var ids: [String] = []
        var pages = 0
        for try await page in client.transactionHistoryPages(anyTransactionId: pat.originalTransactionId) {
            pages += 1
            #expect((page.signedTransactions ?? []).count <= 20)
            #expect(page.revision != nil)
            #expect(page.environment == .production)
            #expect(page.appAppleId == DemoServer.appAppleId)
            ids += page.signedTransactions ?? []
        }
        #expect(ids.count >= 500)
        #expect(pages == (ids.count + 19) / 20)
        let first = try await server.verified(ids.first)
        let last = try await server.verified(ids.last)
        #expect(first.purchaseDate! <= last.purchaseDate!)
    }

    @Test func historyFiltersReturnExactlyTheMatchingRecords() async throws {
        let server = try await SharedDemo.get()
        let client = try server.plainClient()
        let pat = try server.customer("Power user with 500+ transactions")
        func all(_ query: TransactionHistoryQuery) async throws -> [TransactionPayload] {
            var result: [TransactionPayload] = []
            for try await page in client.transactionHistoryPages(anyTransactionId: pat.originalTransactionId, query: query) {
                for jws in page.signedTransactions ?? [] { result.append(try await server.verified(jws)) }
            }
            return result
        }
        let everything = try await all(.init())
        let consumables = try await all(.init(productTypes: [.consumable]))
        #expect(consumables.count == everything.filter { $0.type == .consumable }.count)
        #expect(consumables.allSatisfy { $0.type == .consumable })
        let coins1000 = try await all(.init(productIds: [DemoCatalog.coins1000.productId]))
        #expect(coins1000.count == everything.filter { $0.productId == DemoCatalog.coins1000.productId }.count)
        let newsGroup = try await all(.init(subscriptionGroupIdentifiers: [DemoCatalog.newsGroup]))
        #expect(newsGroup.count == everything.filter { $0.subscriptionGroupIdentifier == DemoCatalog.newsGroup }.count)
        let start = Date().addingTimeInterval(-100 * 86_400)
        let end = Date().addingTimeInterval(-40 * 86_400)
        let window = try await all(.init(startDate: start, endDate: end))
        #expect(window.count == everything.filter { $0.purchaseDate! >= start && $0.purchaseDate! < end }.count)
        #expect(!window.isEmpty)
        let descending = try await all(.init(productTypes: [.autoRenewable], sort: .descending))
        #expect(descending.first!.purchaseDate! >= descending.last!.purchaseDate!)

        let ken = try server.customer("Consumables and refunds")
        var revoked: [TransactionPayload] = []
        for try await page in client.transactionHistoryPages(anyTransactionId: ken.originalTransactionId, query: .init(revoked: true)) {
            for jws in page.signedTransactions ?? [] { revoked.append(try await server.verified(jws)) }
        }
        #expect(revoked.count == 2)
        #expect(revoked.allSatisfy { $0.revocationDate != nil })

        let erin = try server.customer("Family Sharing access revoked")
        let family = try await client.getTransactionHistory(anyTransactionId: erin.originalTransactionId, query: .init(inAppOwnershipType: .familyShared))
        #expect(family.signedTransactions?.count == 1)
        let purchased = try await client.getTransactionHistory(anyTransactionId: erin.originalTransactionId, query: .init(inAppOwnershipType: .purchased))
        #expect(purchased.signedTransactions?.isEmpty == true)
    }

    @Test func historyValidationErrors() async throws {
        let server = try await SharedDemo.get()
        let client = try server.plainClient()
        let id = try server.customer("Active monthly subscription").originalTransactionId
        #expect(await apiError { try await client.getTransactionHistory(anyTransactionId: id, revision: "garbage") }?.code == 4_000_005)
        #expect(await apiError { try await client.getTransactionHistory(anyTransactionId: id, query: .init(productTypes: [.unknown("BOOKS")])) }?.code == 4_000_022)
        #expect(await apiError { try await client.getTransactionHistory(anyTransactionId: id, query: .init(sort: .unknown("SIDEWAYS"))) }?.code == 4_000_021)
        #expect(await apiError { try await client.getTransactionHistory(anyTransactionId: id, query: .init(inAppOwnershipType: .unknown("BORROWED"))) }?.code == 4_000_026)
        let now = Date()
        #expect(await apiError { try await client.getTransactionHistory(anyTransactionId: id, query: .init(startDate: now, endDate: now.addingTimeInterval(-60))) }?.code == 4_000_016)
        #expect(await apiError { try await client.getTransactionHistory(anyTransactionId: "abc") }?.code == 4_000_006)
        #expect(await apiError { try await client.getTransactionHistory(anyTransactionId: "2000000499999999") }?.code == 4_040_010)
        // A revision is bound to the filters it was issued with.
        let page = try await client.getTransactionHistory(anyTransactionId: id)
        #expect(await apiError { try await client.getTransactionHistory(anyTransactionId: id, revision: page.revision, query: .init(sort: .descending)) }?.code == 4_000_005)
    }

    @Test func historyV1LeavesOutFinishedConsumables() async throws {
        let server = try await SharedDemo.get()
        let client = try server.plainClient()
        let ken = try server.customer("Consumables and refunds")
        let v1 = try await client.getTransactionHistoryV1(transactionId: ken.originalTransactionId)
        #expect(v1.signedTransactions?.isEmpty == true)
        let v2 = try await client.getTransactionHistory(anyTransactionId: ken.originalTransactionId)
        #expect((v2.signedTransactions?.count ?? 0) >= 7)
    }

    @Test func subscriptionStatusesPerGroupWithFilter() async throws {
        let server = try await SharedDemo.get()
        let client = try server.plainClient()
        let verifier = try server.makeVerifier()
        let scenarios: [(String, SubscriptionStatus)] = [
            ("Active monthly subscription", .active), ("Expired: billing error", .expired), ("Billing retry", .billingRetry),
            ("Billing grace period", .billingGracePeriod), ("Family Sharing access revoked", .revoked),
        ]
        for (scenario, expected) in scenarios {
            let customer = try server.customer(scenario)
            let response = try await client.getAllSubscriptionStatuses(anyTransactionId: customer.originalTransactionId)
            let item = try #require(response.data?.first?.lastTransactions?.first)
            #expect(item.status == expected, "\(scenario)")
            #expect(await verifier.verifyRenewalInfo(item.signedRenewalInfo ?? "").status == .verified)
            let filtered = try await client.getAllSubscriptionStatuses(anyTransactionId: customer.originalTransactionId, status: [expected == .active ? .expired : .active])
            #expect(filtered.data?.isEmpty == true, "\(scenario) filtered")
        }
        let grace = try server.customer("Billing grace period")
        let graceStatus = try await client.getAllSubscriptionStatuses(anyTransactionId: grace.originalTransactionId)
        let renewal = await verifier.verifyRenewalInfo(graceStatus.data?.first?.lastTransactions?.first?.signedRenewalInfo ?? "")
        #expect(renewal.payload?.gracePeriodExpiresDate != nil)
        #expect(renewal.payload?.isInBillingRetryPeriod == true)
        let id = grace.originalTransactionId
        #expect(await apiError { try await client.getAllSubscriptionStatuses(anyTransactionId: id, status: [.unknown(9)]) }?.code == 4_000_031)
    }

    @Test func everyExpirationIntentIsPresent() async throws {
        let server = try await SharedDemo.get()
        let client = try server.plainClient()
        let verifier = try server.makeVerifier()
        var intents: Set<ExpirationIntent> = []
        for scenario in ["Expired: customer cancelled", "Expired: billing error", "Expired: price increase declined",
                         "Expired: product not available", "Expired: other reason"] {
            let customer = try server.customer(scenario)
            let response = try await client.getAllSubscriptionStatuses(anyTransactionId: customer.originalTransactionId)
            let renewal = await verifier.verifyRenewalInfo(response.data?.first?.lastTransactions?.first?.signedRenewalInfo ?? "")
            if let intent = renewal.payload?.expirationIntent { intents.insert(intent) }
        }
        #expect(intents == Set(ExpirationIntent.knownValues))
    }

    @Test func refundHistoryCoversBothReasons() async throws {
        let server = try await SharedDemo.get()
        let client = try server.plainClient()
        let ken = try server.customer("Consumables and refunds")
        let pages = try await client.refundHistoryPages(anyTransactionId: ken.originalTransactionId).collect()
        var refunds: [TransactionPayload] = []
        for jws in pages.flatMap({ $0.signedTransactions ?? [] }) { refunds.append(try await server.verified(jws)) }
        #expect(Set(refunds.compactMap(\.revocationReason)) == [.refundedDueToIssue, .refundedForOtherReason])
        let mia = try server.customer("Subscription refunded (prorated)")
        let prorated = try await client.getRefundHistory(anyTransactionId: mia.originalTransactionId)
        let refund = try await server.verified(prorated.signedTransactions?.first)
        #expect(refund.revocationType == .refundProrated)
        #expect(refund.revocationPercentage == 67_500)
        let none = try await client.getRefundHistory(anyTransactionId: try server.customer("Active monthly subscription").originalTransactionId)
        #expect(none.signedTransactions?.isEmpty == true)
        #expect(none.hasMore == false)
        #expect(await apiError { try await client.getRefundHistory(anyTransactionId: ken.originalTransactionId, revision: "x") }?.code == 4_000_005)
    }

    @Test func appTransactionInfo() async throws {
        let server = try await SharedDemo.get()
        let client = try server.plainClient()
        let alice = try server.customer("Active monthly subscription")
        let response = try await client.getAppTransactionInfo(anyTransactionId: alice.originalTransactionId)
        let app = try await server.makeVerifier().verifyAppTransaction(response.signedAppTransactionInfo ?? "")
        #expect(app.status == .verified)
        #expect(app.payload?.appTransactionId == alice.appTransactionId)
        let lena = try server.customer("Non-consumable and non-renewing subscription")
        #expect(await apiError { try await client.getAppTransactionInfo(anyTransactionId: lena.originalTransactionId) }?.code == 4_040_019)
    }

    @Test func seedIDsDescribeTheDataset() async throws {
        let server = try await SharedDemo.get()
        let response = try await AsyncHTTPClientTransport().send(AppStoreServerAPI.HTTPRequest(method: "GET", url: server.seedURL, timeout: 30))
        #expect(response.status == 200)
        let seeds = try JSONDecoder().decode(DemoSeedIDs.self, from: response.body)
        #expect(seeds.bundleId == DemoServer.bundleId)
        #expect(seeds.orderIds.contains("MK5TTTVWJH"))
        #expect(seeds.customers.count >= 12)
        #expect(!seeds.activeSubscriptionOriginalTransactionIds.isEmpty)
        #expect(!seeds.refundedTransactionIds.isEmpty)
        #expect(!seeds.nonOriginalTransactionIds.isEmpty)
        #expect(seeds.subscriptionProductIds.count == 5)
        #expect(seeds.advancedCommerceTransactionIds.count == 2)
    }

    @Test func sandboxIsSeparateAndFallbackFindsIt() async throws {
        let server = try await SharedDemo.get()
        let sandboxCustomer = try server.customer("Sandbox: active monthly subscription", .sandbox)
        let production = try server.plainClient(.production)
        let found = try await production.withEnvironmentFallback { client throws(APIError) in
            try await client.getTransactionInfo(transactionId: sandboxCustomer.originalTransactionId)
        }
        #expect(found.environment == .sandbox)
        #expect(found.usedFallback)
        let transaction = try await server.makeVerifier(environment: .sandbox).verifyTransaction(found.value.signedTransactionInfo ?? "")
        #expect(transaction.status == .verified)
        let sandbox = try server.plainClient(.sandbox)
        #expect(await apiError { try await sandbox.lookUpOrderId(orderId: "MK5TTTVWJH") }?.summary.contains("Production only") == true)
    }

    @Test func wrongTokensAreRefusedWith401() async throws {
        let server = try await SharedDemo.get()
        let alice = try server.customer("Active monthly subscription")
        var wrong = server.credentials
        wrong.issuerId = "00000000-0000-0000-0000-000000000000"
        let badIssuer = try AppStoreServerClient(credentials: wrong, environment: server.serverEnvironment(.production), retryPolicy: .none)
        #expect(await apiError { try await badIssuer.getTransactionInfo(transactionId: alice.originalTransactionId) } == .unauthorized(statusBody: nil))
        var otherKey = server.credentials
        otherKey.signingKey = SigningKey(.init())
        let badKey = try AppStoreServerClient(credentials: otherKey, environment: server.serverEnvironment(.production), retryPolicy: .none)
        #expect(await apiError { try await badKey.getTransactionInfo(transactionId: alice.originalTransactionId) } == .unauthorized(statusBody: nil))
        var otherBundle = server.credentials
        otherBundle.bundleId = "com.someone.else"
        let badBundle = try AppStoreServerClient(credentials: otherBundle, environment: server.serverEnvironment(.production), retryPolicy: .none)
        #expect(await apiError { try await badBundle.getTransactionInfo(transactionId: alice.originalTransactionId) } == .unauthorized(statusBody: nil))
    }
}
