import AppStoreServerAPI
import DemoServer
@testable import DeskCore
import Foundation
import Testing

/// The command line's lookup: the console's steps and parts, awaited whole.
@Suite struct CustomerLookupTests {
    private func withDemo(_ faults: DemoFaults = DemoFaults(), _ body: (DemoServer, DeskServices) async throws -> Void) async throws {
        var configuration = DemoServer.Configuration()
        configuration.faults = faults
        let server = try await DemoServer.start(configuration)
        let services = DeskServices(client: try server.makeClient(), verifier: try server.makeVerifier())
        do { try await body(server, services) } catch { await server.stop(); throw error }
        await server.stop()
    }

    @Test func anOrderIDAsPastedFindsTheWholeCustomer() async throws {
        try await withDemo { _, services in
            let customer = await CustomerLookup.load("Order ID: mk5tttvwjh", services: services, environment: .production, timeout: 120)
            #expect(customer.query == "MK5TTTVWJH")
            #expect(customer.order.value?.status == .valid)
            #expect(customer.environment == .production)
            #expect(customer.subscriptions.value?.isEmpty == false)
            #expect(customer.history.value?.isEmpty == false)
            #expect(customer.refunds.isLoaded && customer.notifications.isLoaded && customer.appTransaction.isLoaded)
            // Every part answered: none is left loading.
            #expect(!customer.foundNothing)
            #expect(customer.verifications.allSatisfy { $0.isVerified })
        }
    }

    @Test func anOrderAppleDoesNotKnowSaysSoInEveryPart() async throws {
        try await withDemo { _, services in
            let customer = await CustomerLookup.load("ZZZZZZZZZZ", services: services, environment: .production, timeout: 120)
            #expect(customer.order.value?.status == .invalid)
            for error in [customer.transaction.error, customer.subscriptions.error, customer.history.error, customer.refunds.error] {
                #expect(error?.summary == "Apple has no purchases under order ID ZZZZZZZZZZ.")
            }
            #expect(customer.foundNothing)
        }
    }

    @Test func anOrderInSandboxIsRefusedBeforeAnythingIsAsked() async throws {
        // A server that never answers: anything asked of it would end in the deadline's words instead.
        var faults = DemoFaults()
        faults.hang = true
        try await withDemo(faults) { _, services in
            let customer = await CustomerLookup.load("MK5TTTVWJH", services: services, environment: .sandbox, timeout: 60)
            #expect(customer.order.error == CustomerState.orderLookupInSandbox)
            #expect(customer.foundNothing)
        }
    }

    @Test func anOrderThatDoesNotAnswerByTheDeadlineIsUnansweredNotAbsent() async throws {
        var faults = DemoFaults()
        faults.hang = true
        try await withDemo(faults) { _, services in
            let customer = await CustomerLookup.load("MK5TTTVWJH", services: services, environment: .production, timeout: 0.5)
            #expect(customer.order.error?.summary == "No answer within 1 s.")
            #expect(customer.order.error?.hint?.contains("--timeout") == true)
        }
    }

    @Test func partsThatDoNotAnswerByTheDeadlineSaySo() async throws {
        var faults = DemoFaults()
        faults.hang = true
        try await withDemo(faults) { _, services in
            let customer = await CustomerLookup.load("2000000400000044", services: services, environment: .production, timeout: 0.5)
            #expect(customer.transaction.error?.summary == "No answer within 1 s.")
            #expect(!customer.transaction.isLoading)
        }
    }
}
