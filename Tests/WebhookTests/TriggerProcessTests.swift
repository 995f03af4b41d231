import AppStoreServerAPI
import Foundation
import Testing

/// `iapdesk trigger` against `iapdesk listen --demo` in another process, as in two shells: the
/// notification is verified with the demo's kept chain and stored. Serialized: each test runs processes.
@Suite(.serialized) struct TriggerProcessTests {
    typealias Running = ListenProcessTests.Running

    /// The JSON objects among a process's output lines.
    static func objects(_ output: String) -> [[String: Any]] {
        output.split(separator: "\n").compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
    }

    /// A JSON document printed whole (pretty-printed) by a command.
    static func document(_ output: String) -> [String: Any]? {
        try? JSONSerialization.jsonObject(with: Data(output.utf8)) as? [String: Any]
    }

    @Test func aTriggeredNotificationIsVerifiedAndStoredByListenDemo() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        // Both default to Production, as the demo does.
        let listen = try Running(["listen", "--demo", "--address", "127.0.0.1:0", "--json", "--store-deadline", "60"], folder: folder)
        let url = try await listen.waitFor { output in Self.objects(output).compactMap { $0["listening"] as? String }.first }
        let target = try #require(url, "listen did not start: \(listen.stderr)")

        let trigger = try Running(["trigger", "REFUND", "--to", target, "--json"], folder: folder)
        #expect(try await trigger.exitStatus(seconds: 120) == 0, "\(trigger.stderr)")
        let sent = try #require(Self.document(trigger.stdout), "\(trigger.stdout)")
        let uuid = try #require(sent["notificationUUID"] as? String)
        #expect(sent["accepted"] as? Bool == true && sent["status"] as? Int == 200 && sent["notificationType"] as? String == "REFUND")

        let arrival = try await listen.waitFor { output in Self.objects(output).first { $0["notificationUUID"] as? String == uuid } }
        #expect(arrival?["outcome"] as? String == "stored", "\(listen.stdout)")
        #expect(arrival?["verdict"] as? String == "verified")

        // A notification of the other environment is refused by this receiver: exit 10, with the way out.
        let sandbox = try Running(["trigger", "DID_RENEW", "--environment", "Sandbox", "--to", target], folder: folder)
        #expect(try await sandbox.exitStatus(seconds: 120) == 10)
        #expect(sandbox.stdout.contains("HTTP 400"), "\(sandbox.stdout)")
        #expect(sandbox.stderr.contains("--environment"), "\(sandbox.stderr)")

        listen.signal(SIGINT)
        #expect(try await listen.exitStatus() == 0)

        // What listen stored is in the demo's store, which every --demo command reads.
        let received = try Running(["received", "--demo", "--json"], folder: folder)
        #expect(try await received.exitStatus(seconds: 120) == 0, "\(received.stderr)")
        #expect(received.stdout.contains(uuid))
    }

    /// Stopping `listen --demo` is how an outage is rehearsed: the demo keeps sending to its URL, the
    /// sends fail, and reconcile finds the notification missing.
    @Test func aStoppedDemoReceiverLeavesTheDemosDeliveriesFailing() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let listen = try Running(["listen", "--demo", "--address", "127.0.0.1:0", "--json"], folder: folder)
        let url = try await listen.waitFor { output in Self.objects(output).compactMap { $0["listening"] as? String }.first }
        #expect(url != nil, "listen did not start: \(listen.stderr)")
        listen.signal(SIGTERM)
        #expect(try await listen.exitStatus() == 0)
        #expect(listen.stderr.contains("now fail as to an endpoint that is down"), "\(listen.stderr)")
        let extend = try Running(["extend", "2000000400000044", "--days", "2", "--reason", "service-issue", "--demo", "--yes"], folder: folder)
        #expect(try await extend.exitStatus(seconds: 120) == 0, "\(extend.stderr)")
        let reconcile = try Running(["reconcile", "--demo", "--since", "1h", "--json"], folder: folder)
        #expect(try await reconcile.exitStatus(seconds: 120) == 10, "\(reconcile.stdout)")
        let counts = Self.document(reconcile.stdout)?["counts"] as? [String: Int] ?? [:]
        #expect(counts["not-delivered-and-missing"] ?? 0 >= 1, "\(counts)")
    }

    @Test func printWritesTheBodyAndTheRootAnAppTrusts() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let root = folder.url.appendingPathComponent("demo-root.der").path
        let printed = try Running(
            ["trigger", "consumption_request", "--print", "--write-root", root, "--set", "data.consumptionRequestReason=LEGAL"], folder: folder)
        #expect(try await printed.exitStatus(seconds: 120) == 0, "\(printed.stderr)")
        let body = try #require(Self.document(printed.stdout), "\(printed.stdout)")
        #expect(body.keys.sorted() == ["signedPayload"])
        let signed = try #require(body["signedPayload"] as? String)

        // The app under test trusts only the root trigger wrote, as it would be configured.
        let rootData = try #require(FileManager.default.contents(atPath: root))
        let verifier = try SignedDataVerifier(
            bundleId: "com.iapdesk.demo", appAppleId: 1_600_000_042, environment: .production, additionalRoots: [rootData], trustAppleRoot: false)
        let decoded = await verifier.verifyNotification(signed)
        #expect(decoded.isFullyVerified)
        #expect(decoded.notification.payload?.data?.consumptionRequestReason == .legal)

        // Wrong input: exit 64 with what is valid; an unknown customer: exit 2.
        let subtype = try Running(["trigger", "did_renew/grace_period", "--print"], folder: folder)
        #expect(try await subtype.exitStatus(seconds: 120) == 64)
        #expect(subtype.stderr.contains("DID_RENEW/BILLING_RECOVERY"), "\(subtype.stderr)")
        let key = try Running(["trigger", "REFUND", "--print", "--set", "transaction.prize=1"], folder: folder)
        #expect(try await key.exitStatus(seconds: 120) == 64)
        let customer = try Running(["trigger", "REFUND", "--print", "--customer", "999"], folder: folder)
        #expect(try await customer.exitStatus(seconds: 120) == 2)
        let nowhere = try Running(["trigger", "REFUND"], folder: folder)
        #expect(try await nowhere.exitStatus(seconds: 120) == 64)
    }
}
