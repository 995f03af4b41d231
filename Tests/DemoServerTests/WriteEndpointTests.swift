import AppStoreServerAPI
@testable import DemoServer
import Foundation
import Testing

/// Writes change the demo's data; each test starts its own server.
@Suite struct WriteEndpointTests {
    @Test func extensionMovesExpiryIsIdempotentAndLimited() async throws {
        let server = try await DemoServer.start()
        let client = try server.plainClient()
        let alice = try server.customer("Active monthly subscription")
        let before = try await client.getAllSubscriptionStatuses(anyTransactionId: alice.originalTransactionId)
        let expiresBefore = try await server.verified(before.data?.first?.lastTransactions?.first?.signedTransactionInfo).expiresDate!

        let first = ExtendRenewalDateRequest(extendByDays: 10, extendReasonCode: .customerSatisfaction, requestIdentifier: "agent-1")
        let response = try await client.extendSubscriptionRenewalDate(originalTransactionId: alice.originalTransactionId, request: first)
        #expect(response.success == true)
        #expect(response.originalTransactionId == alice.originalTransactionId)
        #expect(abs(response.effectiveDate!.timeIntervalSince(expiresBefore) - 10 * 86_400) < 1)
        let after = try await client.getAllSubscriptionStatuses(anyTransactionId: alice.originalTransactionId)
        let expiresAfter = try await server.verified(after.data?.first?.lastTransactions?.first?.signedTransactionInfo).expiresDate!
        #expect(abs(expiresAfter.timeIntervalSince(expiresBefore) - 10 * 86_400) < 1)

        // The same request identifier applies once.
        let replay = try await client.extendSubscriptionRenewalDate(originalTransactionId: alice.originalTransactionId, request: first)
        #expect(replay.effectiveDate == response.effectiveDate)

        let second = ExtendRenewalDateRequest(extendByDays: 5, extendReasonCode: .serviceIssueOrOutage, requestIdentifier: "agent-2")
        _ = try await client.extendSubscriptionRenewalDate(originalTransactionId: alice.originalTransactionId, request: second)
        let third = ExtendRenewalDateRequest(extendByDays: 5, extendReasonCode: .other, requestIdentifier: "agent-3")
        #expect(await apiError { try await client.extendSubscriptionRenewalDate(originalTransactionId: alice.originalTransactionId, request: third) }?.code == 4_030_005)

        // A RENEWAL_EXTENDED notification was recorded for each applied extension.
        let history = try await client.notificationHistoryPages(request: .init(
            startDate: Date().addingTimeInterval(-3600), endDate: Date().addingTimeInterval(60), notificationType: .renewalExtended)).collect()
        #expect(history.flatMap { $0.notificationHistory ?? [] }.count == 2)
        await server.stop()
    }

    @Test func extensionRefusals() async throws {
        let server = try await DemoServer.start()
        let client = try server.plainClient()
        func extend(_ id: String, days: Int32 = 5, reason: ExtendReasonCode = .customerSatisfaction, request: String = UUID().uuidString) async -> Int64? {
            await apiError {
                try await client.extendSubscriptionRenewalDate(
                    originalTransactionId: id, request: .init(extendByDays: days, extendReasonCode: reason, requestIdentifier: request))
            }?.code
        }
        let alice = try server.customer("Active monthly subscription").originalTransactionId
        #expect(await extend(alice, days: 91) == 4_000_009)
        #expect(await extend(alice, days: 0) == 4_000_009)
        #expect(await extend(alice, reason: .unknown(7)) == 4_000_010)
        #expect(await extend(alice, request: String(repeating: "x", count: 129)) == 4_000_011)
        #expect(await extend("12x") == 4_000_008)
        #expect(await extend("2000000499999999") == 4_040_005)
        #expect(await extend(try server.customer("Expired: billing error").originalTransactionId) == 4_030_004)
        #expect(await extend(try server.customer("Billing retry").originalTransactionId) == 4_030_004)
        #expect(await extend(try server.customer("Introductory free trial").originalTransactionId) == 4_030_004)
        #expect(await extend(try server.customer("Family Sharing access revoked").originalTransactionId) == 4_030_007)
        #expect(await extend(try server.customer("Extended twice this year").originalTransactionId) == 4_030_005)
        await server.stop()
    }

    @Test func massExtensionCompletesInTheBackground() async throws {
        let server = try await DemoServer.start()
        let client = try server.plainClient()
        let outage = UUID().uuidString.lowercased()
        let request = MassExtendRenewalDateRequest(
            extendByDays: 3, extendReasonCode: .serviceIssueOrOutage, requestIdentifier: outage,
            productId: DemoCatalog.proMonthly.productId)
        let started = Date()
        let accepted = try await client.extendRenewalDateForAllActiveSubscribers(request: request)
        #expect(accepted.requestIdentifier == outage)
        #expect(try await client.extendRenewalDateForAllActiveSubscribers(request: request).requestIdentifier == outage)
        let pending = try await client.getStatusOfSubscriptionRenewalDateExtensions(productId: DemoCatalog.proMonthly.productId, requestIdentifier: outage)
        // The demo completes two seconds after accepting; a loaded machine may take longer to ask.
        if Date().timeIntervalSince(started) < 1.5 { #expect(pending.complete == false) }
        var done = pending
        // The demo's two seconds, then a bound only a hang reaches; the pause paces the asking.
        let bound = Date().addingTimeInterval(120)
        while done.complete != true, Date() < bound {
            try await Task.sleep(nanoseconds: 200_000_000)
            done = try await client.getStatusOfSubscriptionRenewalDateExtensions(productId: DemoCatalog.proMonthly.productId, requestIdentifier: outage)
        }
        #expect(done.complete == true)
        #expect((done.succeededCount ?? 0) >= 4)
        #expect((done.failedCount ?? 0) >= 1)
        #expect(done.completeDate != nil)
        #expect(await apiError { try await client.getStatusOfSubscriptionRenewalDateExtensions(productId: DemoCatalog.proMonthly.productId, requestIdentifier: UUID().uuidString) }?.code == 4_040_009)
        #expect(await apiError { try await client.getStatusOfSubscriptionRenewalDateExtensions(productId: DemoCatalog.proMonthly.productId, requestIdentifier: "nope") }?.code == 4_000_011)
        #expect(await apiError { try await client.getStatusOfSubscriptionRenewalDateExtensions(productId: "no.such.product", requestIdentifier: "x") }?.code == 4_000_023)
        var empty = request
        empty.requestIdentifier = UUID().uuidString
        empty.storefrontCountryCodes = []
        #expect(await apiError { try await client.extendRenewalDateForAllActiveSubscribers(request: empty) }?.code == 4_000_027)
        empty.storefrontCountryCodes = ["us"]
        #expect(await apiError { try await client.extendRenewalDateForAllActiveSubscribers(request: empty) }?.code == 4_000_028)
        await server.stop()
    }

    @Test func appAccountTokenShowsInTransactionInfo() async throws {
        let server = try await DemoServer.start()
        let client = try server.plainClient()
        let bob = try server.customer("Auto-renew turned off").originalTransactionId
        try await client.setAppAccountToken(originalTransactionId: bob, request: .init(appAccountToken: "7389A31A-FB6D-4569-A2A6-DB7D85D84813"))
        let info = try await client.getTransactionInfo(transactionId: bob)
        #expect(try await server.verified(info.signedTransactionInfo).appAccountToken == "7389a31a-fb6d-4569-a2a6-db7d85d84813")
        #expect(await apiError { try await client.setAppAccountToken(originalTransactionId: bob, request: .init(appAccountToken: "not-a-uuid")) }?.code == 4_000_183)
        let seeds = server.seedIDs()
        #expect(await apiError { try await client.setAppAccountToken(originalTransactionId: seeds.nonOriginalTransactionIds[0], request: .init(appAccountToken: UUID().uuidString)) }?.code == 4_000_187)
        let erin = try server.customer("Family Sharing access revoked").originalTransactionId
        #expect(await apiError { try await client.setAppAccountToken(originalTransactionId: erin, request: .init(appAccountToken: UUID().uuidString)) }?.code == 4_000_185)
        #expect(await apiError { try await client.setAppAccountToken(originalTransactionId: "2000000499999999", request: .init(appAccountToken: UUID().uuidString)) }?.code == 4_040_005)
        await server.stop()
    }

    @Test func consumptionAndFinish() async throws {
        let server = try await SharedDemo.get()
        let client = try server.plainClient()
        let coin = server.seedIDs().consumableTransactionIds[0]
        let good = ConsumptionRequest(customerConsented: true, consumptionPercentage: 25_000, deliveryStatus: .delivered, refundPreference: .decline, sampleContentProvided: false)
        try await client.sendConsumptionInformation(transactionId: coin, request: good)
        let noConsent = ConsumptionRequest(customerConsented: false, deliveryStatus: .delivered, sampleContentProvided: false)
        #expect(await apiError { try await client.sendConsumptionInformation(transactionId: coin, request: noConsent) }?.code == 4_000_035)
        let badStatus = ConsumptionRequest(customerConsented: true, deliveryStatus: .unknown("LOST"), sampleContentProvided: false)
        #expect(await apiError { try await client.sendConsumptionInformation(transactionId: coin, request: badStatus) }?.code == 4_000_036)
        let subscription = try server.customer("Active monthly subscription").originalTransactionId
        let percentOnSubscription = ConsumptionRequest(customerConsented: true, consumptionPercentage: 10_000, deliveryStatus: .delivered, sampleContentProvided: true)
        #expect(await apiError { try await client.sendConsumptionInformation(transactionId: subscription, request: percentOnSubscription) }?.code == 4_000_209)
        var v1 = ConsumptionRequestV1()
        v1.customerConsented = true
        v1.consumptionStatus = .partiallyConsumed
        v1.platform = .apple
        v1.sampleContentProvided = false
        v1.deliveryStatus = .deliveredAndWorkingProperly
        v1.appAccountToken = ""
        v1.accountTenure = .greaterThanThreeHundredSixtyFiveDays
        v1.playTime = .oneToSixHours
        v1.lifetimeDollarsRefunded = .zeroDollars
        v1.lifetimeDollarsPurchased = .fiftyDollarsToNinetyNineDollarsAndNinetyNineCents
        v1.userStatus = .active
        try await client.sendConsumptionInformationV1(transactionId: coin, request: v1)
        v1.playTime = .unknown(12)
        #expect(await apiError { try await client.sendConsumptionInformationV1(transactionId: coin, request: v1) }?.code == 4_000_040)
        try await client.finishTransaction(transactionId: coin)
        #expect(await apiError { try await client.finishTransaction(transactionId: "abc") }?.code == 4_000_006)
        #expect(await apiError { try await client.finishTransaction(transactionId: "2000000499999999") }?.code == 4_040_010)
    }
}
