import AppStoreServerAPI
import DemoServer
import Foundation
import Testing

/// A demo started on a state folder signs with the chain and builds around the moment the first
/// start made, and replays the writes earlier starts accepted.
@Suite struct KeptStateTests {
    @Test func aSecondStartKeepsTheChainTheAnchorAndTheWrites() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("iapdesk-kept-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: folder) }
        var configuration = DemoServer.Configuration()
        configuration.stateFolder = folder
        let first = try await DemoServer.start(configuration)
        // The active monthly subscription of order MK5TTTVWJH.
        let id = "2000000400000044"
        let response = try await first.makeClient().extendSubscriptionRenewalDate(
            originalTransactionId: id, request: ExtendRenewalDateRequest(extendByDays: 4, extendReasonCode: .customerSatisfaction, requestIdentifier: "kept-1"))
        let signedEarlier = try #require(try await first.makeClient().getTransactionInfo(transactionId: id).signedTransactionInfo)
        await first.stop()
        #expect(first.keptState?.replayed == 0)

        let second = try await DemoServer.start(configuration)
        defer { Task { await second.stop() } }
        #expect(second.rootCertificateDER == first.rootCertificateDER)
        #expect(second.keptState?.anchor == first.keptState?.anchor)
        #expect((second.keptState?.replayed ?? 0) >= 1)
        // What the first run signed still verifies against the second run's root.
        let verifier = try second.makeVerifier()
        #expect(await verifier.verifyTransaction(signedEarlier).status == .verified)
        let statuses = try await second.makeClient().getAllSubscriptionStatuses(anyTransactionId: id)
        let jws = try #require(statuses.data?.first?.lastTransactions?.first { $0.originalTransactionId == id }?.signedTransactionInfo)
        let transaction = try #require(await verifier.verifyTransaction(jws).verifiedPayload)
        #expect(transaction.expiresDate == response.effectiveDate)
        // The same request identifier again is the same extension, not a second one.
        let again = try await second.makeClient().extendSubscriptionRenewalDate(
            originalTransactionId: id, request: ExtendRenewalDateRequest(extendByDays: 4, extendReasonCode: .customerSatisfaction, requestIdentifier: "kept-1"))
        #expect(again.effectiveDate == response.effectiveDate)
    }
}
