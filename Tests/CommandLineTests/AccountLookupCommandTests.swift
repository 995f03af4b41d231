import Foundation
import Testing

/// `lookup` by the app's own IDs and `index`, run as separate processes on one demo state, as an
/// agent runs them one after another.
@Suite(.serialized) struct AccountLookupCommandTests {
    let environment = [
        "XDG_STATE_HOME": FileManager.default.temporaryDirectory.appendingPathComponent("iapdesk-accounts-\(UUID().uuidString)").path,
    ]

    func run(_ arguments: [String]) async throws -> CommandLineTests.Run {
        try await CommandLineTests().run(arguments, environment: environment)
    }

    func json(_ run: CommandLineTests.Run) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any], "\(run.stdout)\n\(run.stderr)")
    }

    @Test func aTokenNobodySawIsFoundOnceALookupSawItsCustomer() async throws {
        // Auto-renew turned off: no notification of this customer arrived in the demo's store.
        let transaction = try json(try await run(["transaction", "2000000400000301", "--demo", "--json"]))
        let token = try #require(transaction["appAccountToken"] as? String)
        let app = try #require(transaction["appTransactionId"] as? String)

        let unseen = try await run(["lookup", token, "--demo"])
        #expect(unseen.status == 2)
        #expect(unseen.stderr.contains("No purchase seen with app account token \(token)"))
        #expect(unseen.stderr.contains("iapdesk index --since 180d"))

        // The app transaction ID is Apple's own key: its history is read, and what it carries is indexed.
        let byApp = try await run(["lookup", "App transaction ID: \(app)", "--demo"])
        #expect(byApp.status == 0, "\(byApp.stderr)")
        #expect(byApp.stdout.contains("App transaction \(app) in Production"))
        #expect(byApp.stdout.contains("2000000400000301"))

        let seen = try json(try await run(["lookup", token.uppercased(), "--demo", "--json"]))
        let links = try #require(seen["originalTransactions"] as? [[String: Any]])
        #expect(links.first?["originalTransactionId"] as? String == "2000000400000301")
        #expect(links.first?["source"] as? String == "lookup")

        let caseFile = try await run(["case", token, "--demo"])
        #expect(caseFile.status == 0, "\(caseFile.stderr)")
        #expect(caseFile.stdout.contains("Looked up by app account token: \(token)"))
        #expect(caseFile.stdout.contains("2000000400000301"))

        // A transaction ID finds its customer's purchases too.
        let byTransaction = try await run(["lookup", "2000000400000301", "--demo"])
        #expect(byTransaction.status == 0, "\(byTransaction.stderr)")
        #expect(byTransaction.stdout.contains("Transaction 2000000400000301 in Production: the customer's first download"))
    }

    @Test func indexBackFillsFromAppleNotificationHistory() async throws {
        let transaction = try json(try await run(["transaction", "2000000400000301", "--demo", "--json"]))
        let token = try #require(transaction["appAccountToken"] as? String)
        #expect(try await run(["lookup", token, "--demo"]).status == 2)
        let indexed = try await run(["index", "--demo", "--json"])
        #expect(indexed.status == 0, "\(indexed.stderr)")
        let figures = try json(indexed)
        #expect((figures["linksFromAppleHistory"] as? Int ?? 0) > 0)
        #expect((figures["appAccountTokens"] as? Int ?? 0) >= 10)
        let found = try json(try await run(["lookup", token, "--demo", "--json"]))
        let links = try #require(found["originalTransactions"] as? [[String: Any]])
        #expect(links.map { $0["originalTransactionId"] as? String }.contains("2000000400000301"))
    }
}
