import AppStoreServerAPI
@testable import Console
@testable import DeskCore
import DeskStore
import Foundation
import Testing

/// Finding a customer by the app's own IDs: its account token (through the store's index, which
/// lookups fill) and its app transaction ID (through Apple).
@Suite struct AccountLookupTests {
    @Test func aLookupFillsTheIndexAndTheAccountTokenThenFindsTheCustomer() async throws {
        let folder = NSTemporaryDirectory() + "iapdesk-accounts-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let store = try await SQLiteNotificationStore.open(path: folder + "/store.sqlite")
        let received = ReceivedNotifications(source: LiveSource(storePath: folder + "/store.sqlite"), open: { store })
        let harness = try await ConsoleHarness.start(received: received)
        defer { Task { await harness.stop() } }
        func lookUp(_ text: String) async throws {
            if harness.state.focus != .paneInput { harness.send(.character("i")) }
            harness.send(.control("u"))
            harness.type(text)
            harness.send(.enter)
            try await harness.settle()
        }

        try await lookUp("MK5TTTVWJH")
        let token = try #require(harness.state.customer?.history.value?.compactMap { $0.payload?.appAccountToken }.first)
        #expect(try await store.accountLinks(.appAccountToken, token).map(\.originalTransactionId).contains("2000000400000044"))

        // Typed as an agent reads it out: a label, capitals.
        try await lookUp("Account: " + token.uppercased())
        let customer = try #require(harness.state.customer)
        #expect(customer.query == token)
        #expect(customer.account.value?.kind == .appAccountToken)
        #expect(customer.anchorId == customer.account.value?.links.first?.originalTransactionId)
        #expect(customer.subscriptions.value?.contains { $0.originalTransactionId == "2000000400000044" } == true)
        let screen = harness.screen(width: 120, height: 36)
        #expect(screen.contains("Found by app account token \(token)"))
        #expect(screen.contains("seen") && screen.contains("in a customer lookup"))
        #expect(screen.contains("The index knows only what was seen here"))

        // A token nobody saw: nothing of the last customer stays, and the agent is told why and what to do.
        try await lookUp("00000000-0000-4000-8000-000000000000")
        let missing = try #require(harness.state.customer)
        #expect(missing.anchorId == nil)
        #expect(missing.subscriptions.value == nil && missing.history.value == nil)
        #expect(missing.foundNothing)
        let said = harness.screen(width: 120, height: 36)
        #expect(said.contains("No purchase seen with app account token 00000000-0000-4000-8000-000000000000"))
        #expect(said.contains("iapdesk index --since 180d"))
        #expect(!said.contains("2000000400000044"))
        try await store.close()
    }

    @Test func anAppTransactionIDFindsTheCustomerThroughApple() async throws {
        let harness = try await ConsoleHarness.start()
        defer { Task { await harness.stop() } }
        if harness.state.focus != .paneInput { harness.send(.character("i")) }
        let seed = harness.server.seedIDs(.production)
        let app = try #require(seed.customers.first { $0.orderId == "MK5TTTVWJH" }?.appTransactionId)
        harness.type(app)
        harness.send(.enter)
        try await harness.settle()
        let customer = try #require(harness.state.customer)
        #expect(customer.account.value?.kind == .appTransactionId)
        #expect(customer.environment == .production)
        #expect(customer.history.value?.contains { $0.payload?.originalTransactionId == "2000000400000044" } == true)
        #expect(customer.subscriptions.isLoaded)
        #expect(!customer.foundNothing)
        #expect(harness.screen(width: 120, height: 36).contains("Found by app transaction ID \(app)"))
    }

    @Test func theLookupFieldTellsAnAccountTokenByItsShape() {
        #expect(IDKind.classify("7389A31A-FB6D-4569-A2A6-DB7D85D84813") == .appAccountToken("7389a31a-fb6d-4569-a2a6-db7d85d84813"))
        #expect(IDKind.classify("app account token: 7389a31a-fb6d-4569-a2a6-db7d85d84813") == .appAccountToken("7389a31a-fb6d-4569-a2a6-db7d85d84813"))
        #expect(IDKind.classify("{7389A31A-FB6D-4569-A2A6-DB7D85D84813}") == .appAccountToken("7389a31a-fb6d-4569-a2a6-db7d85d84813"))
        #expect(IDKind.classify("7389a31afb6d4569a2a6db7d85d84813") == .appAccountToken("7389a31a-fb6d-4569-a2a6-db7d85d84813"))
        #expect(IDKind.classify("App transaction ID: 704000000000171") == .transactionId("704000000000171"))
        #expect(IDKind.classify("Order ID: MK5TTTVWJH") == .orderId("MK5TTTVWJH"))
        if case .invalid = IDKind.classify("7389a31a-fb6d-4569-a2a6") {} else { Issue.record("a cut UUID is not an ID") }
    }
}
