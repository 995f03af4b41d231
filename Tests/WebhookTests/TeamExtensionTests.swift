import AppStoreServerAPI
import Console
import DemoServer
@testable import DeskCore
import DeskStore
import Foundation
import Testing

/// Two agents on one store extend the same subscription at the same moment: one extension goes,
/// the other waits for it, sees it in the ledger and is asked to look again.
@Suite struct TeamExtensionTests {
    @Test(arguments: StoreKind.allCases) func twoAgentsExtendingOneSubscriptionAtOnceSendOne(kind: StoreKind) async throws {
        var configuration = DemoServer.Configuration()
        var faults = DemoFaults()
        // Long enough that both sends would be on the wire together without the lock.
        faults.latency = 0.3
        configuration.faults = faults
        let server = try await DemoServer.start(configuration)
        let fixture = try await kind.fixture()
        let stores = [try await fixture.open(), try await fixture.open()]
        let seenAt = Date()
        let client = try server.makeClient()
        let results = try await withThrowingTaskGroup(of: (String, WriteResult<ExtendRenewalDateResponse>).self) { group in
            for (agent, store) in zip(["sam", "kim"], stores) {
                let ledger = AuditLedger(.store(try #require(store as? any LedgerStore), location: "team"))
                let context = WriteContext(
                    ledger: ledger, profile: agent, bundleId: DemoServer.bundleId, keyId: "KEY-\(agent)", isDemo: true, source: .console, agent: agent)
                group.addTask {
                    let request = ExtendRenewalDateRequest(extendByDays: 3, extendReasonCode: .serviceIssueOrOutage, requestIdentifier: UUID().uuidString.lowercased())
                    let endpoint = Endpoints.extendSubscriptionRenewalDate(originalTransactionId: "2000000400000044", request: request)
                    let sendGuard = SendGuard.sameTarget(path: endpoint.path, account: context.account(for: client), seenAt: seenAt)
                    let result = await LedgeredWriter.send(
                        endpoint, requestIdentifier: request.requestIdentifier ?? "", write: .extend, subject: "original transaction 2000000400000044",
                        client: client, context: context, guardedBy: sendGuard)
                    return (agent, result)
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        var applied: [String] = []
        var stopped: [(String, String)] = []
        for (agent, result) in results {
            switch result {
            case .applied: applied.append(agent)
            case .notSent(let reason): stopped.append((agent, reason))
            default: Issue.record("\(agent): \(result)")
            }
        }
        #expect(applied.count == 1)
        #expect(stopped.count == 1)
        let winner = try #require(applied.first)
        #expect(stopped.first?.1.contains("\(winner) sent an extension of the same subscription") == true)
        #expect(stopped.first?.1.hasPrefix("changed meanwhile: ") == true)
        // The ledger both read has one extension sent, by the winner, applied.
        let ledger = AuditLedger(.store(try #require(stores[0] as? any LedgerStore), location: "team"))
        let sent = try await ledger.writes().filter { $0.intent.write == "extend" }
        #expect(sent.map(\.intent.agent) == [winner])
        #expect(sent.first?.stateLabel == "applied")
        for store in stores { try await store.close() }
        await fixture.cleanup()
        await server.stop()
    }
}
