import AppStoreServerAPI
import Foundation

/// IDs a demo user can type, served at `/demo/seed-ids.json`.
public struct DemoSeedIDs: Codable, Sendable, Equatable {
    public var bundleId: String
    public var environment: String
    public var orderIds: [String]
    public var transactionIds: [String]
    public var originalTransactionIds: [String]
    public var subscriptionOriginalTransactionIds: [String]
    public var activeSubscriptionOriginalTransactionIds: [String]
    public var nonOriginalTransactionIds: [String]
    public var productIds: [String]
    public var subscriptionProductIds: [String]
    public var consumableTransactionIds: [String]
    public var refundedTransactionIds: [String]
    public var appTransactionIds: [String]
    /// The app's own account IDs (appAccountToken) that demo customers carry.
    public var appAccountTokens: [String]
    /// Advanced Commerce purchases: the subscription's original transaction ID, then one-time charges.
    public var advancedCommerceTransactionIds: [String]
    /// One line per customer: scenario and an ID to type.
    public var customers: [DemoSeedCustomer]
}

public struct DemoSeedCustomer: Codable, Sendable, Equatable {
    public var scenario: String
    public var originalTransactionId: String
    public var orderId: String
    public var appTransactionId: String?
    public var appAccountToken: String?
}

extension DemoEnvironmentData {
    func seedIDs() -> DemoSeedIDs {
        let all = transactions.values.sorted { $0.payload.transactionId! < $1.payload.transactionId! }
        let ids = all.map { $0.payload.transactionId! }
        let originals = Set(all.map { $0.payload.originalTransactionId! }).sorted()
        let subscriptions = self.subscriptions.keys.sorted()
        let customers = self.customers.keys.sorted().compactMap { number -> DemoSeedCustomer? in
            guard let first = customerTransactions[number]?.first, let transaction = transactions[first] else { return nil }
            return DemoSeedCustomer(
                scenario: self.customers[number]!.scenario, originalTransactionId: transaction.payload.originalTransactionId!,
                orderId: transaction.orderId, appTransactionId: self.customers[number]!.appTransactionId,
                appAccountToken: self.customers[number]!.appAccountToken)
        }
        return DemoSeedIDs(
            bundleId: DemoCatalog.bundleId,
            environment: environment.rawValue,
            orderIds: customers.map(\.orderId),
            transactionIds: Array(ids.prefix(40)),
            originalTransactionIds: originals,
            subscriptionOriginalTransactionIds: subscriptions,
            activeSubscriptionOriginalTransactionIds: subscriptions.filter { self.subscriptions[$0]!.status == .active },
            nonOriginalTransactionIds: Array(all.filter { $0.payload.transactionId != $0.payload.originalTransactionId }.map { $0.payload.transactionId! }.prefix(20)),
            productIds: DemoCatalog.all.map(\.productId),
            subscriptionProductIds: DemoCatalog.all.filter { $0.type == .autoRenewableSubscription }.map(\.productId),
            consumableTransactionIds: Array(all.filter { $0.payload.type == .consumable }.map { $0.payload.transactionId! }.prefix(20)),
            refundedTransactionIds: all.filter { $0.payload.revocationDate != nil && $0.payload.revocationType != .familyRevoke }.map { $0.payload.transactionId! },
            appTransactionIds: appTransactions.keys.sorted(),
            appAccountTokens: customers.compactMap(\.appAccountToken),
            advancedCommerceTransactionIds: all.filter { $0.payload.advancedCommerceInfo != nil && $0.payload.transactionId == $0.payload.originalTransactionId }.map { $0.payload.transactionId! },
            customers: customers)
    }
}
