import AppStoreServerAPI
import DemoServer
import Foundation
import Testing

/// The signed strings a command keeps are the very strings the server sent: `--json` carries them
/// beside the decoded fields, `--raw` prints them under the table's rows.
@Suite(.serialized) struct SignedStringTests {
    /// The active monthly subscription of order MK5TTTVWJH.
    static let subscription = "2000000400000044"

    /// A demo server that records every JWS it serves, and the flags that point the binary at it.
    struct Recorded {
        let server: DemoServer
        let folder: URL

        static func start() async throws -> Recorded {
            var configuration = DemoServer.Configuration()
            configuration.recordsServedSignatures = true
            let server = try await DemoServer.start(configuration)
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent("iapdesk-signed-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            _ = FileManager.default.createFile(
                atPath: folder.appendingPathComponent("key.p8").path, contents: Data(server.signingKey.pemRepresentation.utf8),
                attributes: [.posixPermissions: 0o600])
            try server.rootCertificateDER.write(to: folder.appendingPathComponent("root.der"))
            return Recorded(server: server, folder: folder)
        }

        func run(_ arguments: [String], columns: Int = 160) async throws -> CommandLineTests.Run {
            let flags = [
                "--base-url", server.baseURL.absoluteString, "--environment", "Production", "--issuer-id", DemoServer.issuerId,
                "--key-id", DemoServer.keyId, "--key-file", folder.appendingPathComponent("key.p8").path, "--bundle-id", DemoServer.bundleId,
                "--app-apple-id", String(DemoServer.appAppleId), "--root-cert", folder.appendingPathComponent("root.der").path,
            ]
            let environment = ["XDG_STATE_HOME": folder.appendingPathComponent("state").path, "COLUMNS": String(columns)]
            let (process, out, err) = CommandLineTests.process(arguments + flags, environment: environment)
            return try await CommandLineTests.launch(process, out, err)
        }

        func stop() async {
            await server.stop()
            try? FileManager.default.removeItem(at: folder)
        }
    }

    static func json(_ run: CommandLineTests.Run) throws -> [String: Any] {
        #expect(run.status == 0, "\(run.stderr)")
        return try #require(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any], "\(run.stdout.prefix(300))")
    }

    /// The JSON object a signed string's payload holds.
    static func payload(_ jws: String) throws -> [String: Any] {
        let segment = try #require(jws.split(separator: ".").dropFirst().first)
        let json = try #require(Base64URL.decode(segment))
        return try #require(try JSONSerialization.jsonObject(with: json) as? [String: Any])
    }

    @Test func everyTransactionCommandCarriesTheExactSignedStringsTheServerSent() async throws {
        let demo = try await Recorded.start()
        defer { Task { await demo.stop() } }
        var transactions: [[String: Any]] = []
        transactions += try Self.json(try await demo.run(["history", Self.subscription, "--json"]))["transactions"] as? [[String: Any]] ?? []
        transactions += try Self.json(try await demo.run(["lookup", "MK5TTTVWJH", "--json"]))["transactions"] as? [[String: Any]] ?? []
        transactions.append(try Self.json(try await demo.run(["transaction", Self.subscription, "--json"])))
        transactions += try Self.json(try await demo.run(["refunds", "2000000400002107", "--json"]))["refunds"] as? [[String: Any]] ?? []
        let groups = try Self.json(try await demo.run(["status", Self.subscription, "--json"]))["groups"] as? [[String: Any]] ?? []
        let items = groups.flatMap { $0["lastTransactions"] as? [[String: Any]] ?? [] }
        transactions += items.compactMap { $0["transaction"] as? [String: Any] }
        let renewals = items.compactMap { $0["renewalInfo"] as? [String: Any] }

        let served = Set(demo.server.servedSignatures())
        #expect(transactions.count > 10 && !renewals.isEmpty)
        for transaction in transactions {
            let signed = try #require(transaction["signedTransactionInfo"] as? String)
            #expect(served.contains(signed), "not what the server sent: \(signed.prefix(60))")
            // The decoded fields are those of that very string.
            #expect(try Self.payload(signed)["transactionId"] as? String == transaction["transactionId"] as? String)
        }
        for renewal in renewals {
            let signed = try #require(renewal["signedRenewalInfo"] as? String)
            #expect(served.contains(signed))
            #expect(try Self.payload(signed)["originalTransactionId"] as? String == renewal["originalTransactionId"] as? String)
        }
    }

    @Test func notificationsCarryTheirSignedPayloadAndTheTransactionsTheyConcern() async throws {
        let demo = try await Recorded.start()
        defer { Task { await demo.stop() } }
        let document = try Self.json(try await demo.run(["notifications", "--since", "30d", "--json"]))
        let notifications = try #require(document["notifications"] as? [[String: Any]])
        let served = Set(demo.server.servedSignatures())
        #expect(notifications.count > 10)
        var concerned = 0
        for notification in notifications {
            let signed = try #require(notification["signedPayload"] as? String)
            #expect(served.contains(signed))
            let data = try Self.payload(signed)["data"] as? [String: Any]
            guard let nested = data?["signedTransactionInfo"] as? String else {
                #expect(notification["transactionId"] == nil)
                continue
            }
            concerned += 1
            #expect(notification["signedTransactionInfo"] as? String == nested)
            let transaction = try Self.payload(nested)
            #expect(notification["transactionId"] as? String == transaction["transactionId"] as? String)
            #expect(notification["originalTransactionId"] as? String == transaction["originalTransactionId"] as? String)
            #expect((notification["transactionId"] as? String)?.hasPrefix("2000000") == true)
        }
        #expect(concerned > 5)
    }

    @Test func rawPrintsTheSignedStringsUnderRowsWithoutWideningTheTable() async throws {
        let demo = try await Recorded.start()
        defer { Task { await demo.stop() } }
        let plain = try await demo.run(["history", Self.subscription], columns: 80)
        #expect(plain.status == 0, "\(plain.stderr)")
        #expect(!plain.stdout.contains("eyJ"))
        let before = demo.server.servedSignatures().count
        let raw = try await demo.run(["history", Self.subscription, "--raw"], columns: 80)
        #expect(raw.status == 0, "\(raw.stderr)")
        let sent = demo.server.servedSignatures()[before...]
        let lines = raw.stdout.split(separator: "\n").map(String.init)
        let rawLines = lines.filter { $0.hasPrefix("  signedTransactionInfo: ") }
        #expect(rawLines.count == lines.filter { $0.hasPrefix("2000000") }.count)
        #expect(rawLines.count == 8)
        for line in rawLines { #expect(sent.contains(String(line.dropFirst("  signedTransactionInfo: ".count)))) }
        // Each row is followed by its own string, and the columns stay within 80.
        for (index, line) in lines.enumerated() where line.hasPrefix("2000000") {
            let id = String(line.prefix(16))
            let next = lines[index + 1].dropFirst("  signedTransactionInfo: ".count)
            #expect(try Self.payload(String(next))["transactionId"] as? String == id)
        }
        #expect(lines.filter { !$0.hasPrefix("  ") }.allSatisfy { $0.count <= 80 })

        let status = try await demo.run(["status", Self.subscription, "--raw"], columns: 80)
        #expect(status.stdout.contains("  signedTransactionInfo: eyJ"))
        #expect(status.stdout.contains("  signedRenewalInfo: eyJ"))
        let notifications = try await demo.run(["notifications", "--since", "30d", "--raw"], columns: 80)
        #expect(notifications.status == 0, "\(notifications.stderr)")
        #expect(notifications.stdout.contains("  signedPayload: eyJ"))
        #expect(notifications.stdout.contains("  transactionId: 2000000"))
        let one = try await demo.run(["transaction", Self.subscription, "--raw"])
        #expect(one.stdout.contains("Signed transaction"))
        #expect(one.stdout.split(separator: "\n").contains { $0.hasPrefix("Signed transaction") && demo.server.servedSignatures().contains(String($0.split(separator: " ").last ?? "")) })
    }
}
