import AppStoreServerAPI
@testable import DemoServer
import Foundation
import Testing

@Suite struct DemoServerSmokeTests {
    @Test func servesSignedTransactionsThatVerify() async throws {
        let server = try await DemoServer.start()
        let client = try server.makeClient()
        let seeds = server.seedIDs()
        #expect(seeds.customers.count >= 12)
        let order = try await client.lookUpOrderId(orderId: "MK5TTTVWJH")
        #expect(order.status == .valid)
        #expect(order.signedTransactions?.count == 2)
        let verifier = try server.makeVerifier()
        for jws in order.signedTransactions ?? [] {
            let result = await verifier.verifyTransaction(jws)
            #expect(result.status == .verified, "\(result.status.summary)")
        }
        await server.stop()
    }
}
