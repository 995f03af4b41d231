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

    /// Hand-edited lines the server would never have written are skipped with their reason, never fatal.
    @Test func aJournalLineOutsideApplesLimitsIsSkipped() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("iapdesk-kept-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: folder) }
        var configuration = DemoServer.Configuration()
        configuration.stateFolder = folder
        let first = try await DemoServer.start(configuration)
        await first.stop()
        let journal = try #require(FileHandle(forWritingAtPath: folder + "/journal.jsonl") ?? {
            _ = FileManager.default.createFile(atPath: folder + "/journal.jsonl", contents: nil)
            return FileHandle(forWritingAtPath: folder + "/journal.jsonl")
        }())
        journal.seekToEndOfFile()
        journal.write(Data(#"{"at":1795714917075,"days":999999999999,"environment":"Production","id":"2000000400000044","kind":"extension","requestIdentifier":"e"}"#.utf8 + [0x0A]))
        journal.write(Data(#"{"at":1795714917075,"days":-5000,"environment":"Production","id":"2000000400000044","kind":"extension","requestIdentifier":"f"}"#.utf8 + [0x0A]))
        try journal.close()
        let second = try await DemoServer.start(configuration)
        defer { Task { await second.stop() } }
        let skipped = try #require(second.keptState?.skipped)
        #expect(skipped.map(\.line) == [1, 2])
        #expect(skipped.first?.reason.contains("999999999999 days (Apple allows 1 to 90)") == true)
        // The subscription is as the dataset made it, and reading it does not crash.
        let statuses = try await second.makeClient().getAllSubscriptionStatuses(anyTransactionId: "2000000400000044")
        #expect(statuses.data?.isEmpty == false)
    }

    /// Writes kept without the dataset they were signed on are set aside, not replayed onto a new chain.
    @Test func writesWithoutTheirDatasetAreSetAside() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("iapdesk-kept-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: folder) }
        var configuration = DemoServer.Configuration()
        configuration.stateFolder = folder
        let first = try await DemoServer.start(configuration)
        _ = try await first.makeClient().extendSubscriptionRenewalDate(
            originalTransactionId: "2000000400000044",
            request: ExtendRenewalDateRequest(extendByDays: 4, extendReasonCode: .customerSatisfaction, requestIdentifier: "orphan"))
        await first.stop()
        try FileManager.default.removeItem(atPath: folder + "/dataset.json")
        let second = try await DemoServer.start(configuration)
        defer { Task { await second.stop() } }
        #expect(second.keptState?.replayed == 0)
        let files = try FileManager.default.contentsOfDirectory(atPath: folder)
        #expect(files.contains { $0.hasPrefix("journal.without-dataset-") })
    }
}
