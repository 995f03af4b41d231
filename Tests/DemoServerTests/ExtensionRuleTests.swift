import AppStoreServerAPI
@testable import DemoServer
import Foundation
import Testing

/// Apple's renewal date extension rules, sent as Apple refuses them: two per subscription in 365
/// days (mass extensions count), 1 to 90 days, reason codes 0 to 3. Each test starts its own server.
@Suite struct ExtensionRuleTests {
    func extend(
        _ client: AppStoreServerClient, _ id: String, days: Int32 = 5, reason: ExtendReasonCode = .customerSatisfaction
    ) async -> Int64? {
        await apiError {
            try await client.extendSubscriptionRenewalDate(
                originalTransactionId: id, request: .init(extendByDays: days, extendReasonCode: reason, requestIdentifier: UUID().uuidString))
        }.map { $0.code ?? -1 } ?? 0
    }

    @Test func threeExtensionsSentAtOnceApplyTwice() async throws {
        let server = try await DemoServer.start()
        let client = try server.plainClient()
        let alice = try server.customer("Active monthly subscription").originalTransactionId
        let codes = await withTaskGroup(of: Int64?.self) { group in
            for _ in 0..<3 { group.addTask { await self.extend(client, alice) } }
            return await group.reduce(into: [Int64?]()) { $0.append($1) }
        }
        #expect(codes.filter { $0 == 0 }.count == 2, "\(codes)")
        #expect(codes.filter { $0 == 4_030_005 }.count == 1, "\(codes)")
        await server.stop()
    }

    @Test func aMassExtensionCountsTowardTheTwo() async throws {
        let server = try await DemoServer.start()
        let client = try server.plainClient()
        let alice = try server.customer("Active monthly subscription")
        let product = DemoCatalog.proMonthly.productId
        let outage = UUID().uuidString
        _ = try await client.extendRenewalDateForAllActiveSubscribers(request: .init(
            extendByDays: 2, extendReasonCode: .serviceIssueOrOutage, requestIdentifier: outage, productId: product))
        // Completion is the demo's own event; its status is what a client waits on.
        var status = MassExtendRenewalDateStatusResponse()
        while status.complete != true {
            status = try await client.getStatusOfSubscriptionRenewalDateExtensions(productId: product, requestIdentifier: outage)
            if status.complete != true { try await Task.sleep(nanoseconds: 100_000_000) }
        }
        #expect(await extend(client, alice.originalTransactionId) == 0)
        #expect(await extend(client, alice.originalTransactionId) == 4_030_005)
        await server.stop()
    }

    @Test func daysFromOneToNinetyAndEveryReasonCodeApply() async throws {
        let server = try await DemoServer.start()
        let client = try server.plainClient()
        let alice = try server.customer("Active monthly subscription").originalTransactionId
        let bob = try server.customer("Auto-renew turned off").originalTransactionId
        #expect(await extend(client, alice, days: 1, reason: .undeclared) == 0)
        #expect(await extend(client, alice, days: 90, reason: .customerSatisfaction) == 0)
        #expect(await extend(client, bob, days: 45, reason: .other) == 0)
        #expect(await extend(client, bob, days: 7, reason: .serviceIssueOrOutage) == 0)
        await server.stop()
    }

    @Test func wrongDaysAndReasonCodesGetApplesCodes() async throws {
        let server = try await SharedDemo.get()
        let alice = try server.customer("Active monthly subscription").originalTransactionId
        let path = "/inApps/v1/subscriptions/extend/\(alice)"
        func body(days: String = "5", reason: String = "1") -> String {
            #"{"extendByDays":\#(days),"extendReasonCode":\#(reason),"requestIdentifier":"\#(UUID().uuidString)"}"#
        }
        for days in ["0", "91", "-1", "1.5", #""5""#, "null", "365"] {
            #expect(try await server.rawCode("PUT", path, body: body(days: days)) == 4_000_009, "days \(days)")
        }
        for reason in ["4", "-1", "1.5", #""1""#, "null", "99"] {
            #expect(try await server.rawCode("PUT", path, body: body(reason: reason)) == 4_000_010, "reason \(reason)")
        }
        #expect(try await server.rawCode("PUT", path, body: #"{"extendByDays":5,"extendReasonCode":1,"requestIdentifier":""}"#) == 4_000_011)
    }
}
