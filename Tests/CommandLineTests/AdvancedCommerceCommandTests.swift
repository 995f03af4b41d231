import AppStoreServerAPI
import Crypto
import DemoServer
import Foundation
import Testing

/// `iapdesk advanced-commerce …` with the real binary: refused without the profile's
/// advanced_commerce, Apple's limits checked before anything is sent, confirmed writes through the
/// audit ledger, and a re-run after an unknown outcome that sends nothing twice.
@Suite(.serialized) struct AdvancedCommerceCommandTests {
    let cli = CommandLineTests()
    static let studio = "2000000400028635"
    static let courses = "2000000400028762"

    /// A config folder with one profile pointing at a port nothing listens on: a request that left
    /// would end in a transport failure (exit 5), so another exit proves nothing was sent.
    func profileFolder(advancedCommerce: Bool) throws -> String {
        try CommandLineTests.profileFolder(extra: "advanced_commerce = \(advancedCommerce)").folder.path
    }

    @Test func refusedUnlessTheProfileSaysSoAndCheckedBeforeSending() async throws {
        let off = try await cli.run(["advanced-commerce", "cancel", "2000000123", "--yes"], environment: ["XDG_CONFIG_HOME": try profileFolder(advancedCommerce: false)])
        #expect(off.status == 9)
        #expect(off.stderr.contains("profile \"support\" does not say advanced_commerce = true"))
        #expect(off.stderr.contains("addendum"))
        let on = try profileFolder(advancedCommerce: true)
        let long = String(repeating: "n", count: 31)
        let tooLong = try await cli.run(
            ["advanced-commerce", "change-metadata", "2000000123", "--effective", "immediately", "--display-name", long, "--yes"],
            environment: ["XDG_CONFIG_HOME": on])
        #expect(tooLong.status == 64)
        #expect(tooLong.stderr.contains("descriptors.displayName is 31 characters; Apple allows at most 30 (DisplayNameLengthExceededError 4000089)"))
        let noAmount = try await cli.run(
            ["advanced-commerce", "refund", "2000000123", "--item", "BOOK=custom", "--reason", "other", "--yes"], environment: ["XDG_CONFIG_HOME": on])
        #expect(noAmount.status == 64)
        #expect(noAmount.stderr.contains("NullRefundAmountError 4000153"))
        let badReason = try await cli.run(
            ["advanced-commerce", "revoke", "2000000123", "--reason", "bored", "--refund-type", "full", "--yes"], environment: ["XDG_CONFIG_HOME": on])
        #expect(badReason.status == 64)
        #expect(badReason.stderr.contains("--reason bored is not one of: unintended-purchase"))
        let badId = try await cli.run(["advanced-commerce", "cancel", "2000000123", "--request-id", "again", "--yes"], environment: ["XDG_CONFIG_HOME": on])
        #expect(badId.status == 64)
    }

    @Test func aCancelIsConfirmedLedgeredAndPrintsTheVerifiedAnswer() async throws {
        let state = ["XDG_STATE_HOME": FileManager.default.temporaryDirectory.appendingPathComponent("iapdesk-ac-state-\(UUID().uuidString)").path, "IAPDESK_AGENT": "sam"]
        let unconfirmed = try await cli.run(["advanced-commerce", "cancel", Self.studio, "--demo"], environment: state)
        #expect(unconfirmed.status == 9)
        #expect(unconfirmed.stderr.contains("POST /advancedCommerce/v1/subscription/cancel/\(Self.studio)") || unconfirmed.stderr.contains("--yes"))
        let sent = try await cli.run(["advanced-commerce", "cancel", Self.studio, "--demo", "--yes", "--json"], environment: state)
        #expect(sent.status == 0, "\(sent.stderr)")
        let document = try #require(try JSONSerialization.jsonObject(with: Data(sent.stdout.utf8)) as? [String: Any])
        #expect(document["action"] as? String == "cancel")
        #expect(document["verified"] as? Bool == true)
        let reference = try #require(document["requestReferenceId"] as? String)
        #expect(sent.stderr.contains("Request identifier: \(reference)"))
        let renewal = try #require(document["renewalInfo"] as? [String: Any])
        #expect(renewal["autoRenewStatus"] as? Int == 0)
        let transaction = try #require(document["transaction"] as? [String: Any])
        let items = try #require((transaction["advancedCommerceInfo"] as? [String: Any])?["items"] as? [[String: Any]])
        #expect(items.compactMap { $0["SKU"] as? String } == ["STUDIO_BASE_1M", "STUDIO_STORAGE_1TB"])
        let audit = try await cli.run(["audit", "--customer", Self.studio, "--demo", "--json"], environment: state)
        let writes = try #require((try JSONSerialization.jsonObject(with: Data(audit.stdout.utf8)) as? [String: Any])?["writes"] as? [[String: Any]])
        #expect(writes.count == 1)
        #expect(writes.first?["write"] as? String == "advanced-commerce")
        #expect(writes.first?["action"] as? String == "advanced-commerce cancel")
        let table = try await cli.run(["audit", "--customer", Self.studio, "--demo"], environment: state.merging(["COLUMNS": "200"]) { $1 })
        #expect(table.stdout.contains("advanced-commerce cancel"), "\(table.stdout)")
        #expect(writes.first?["requestIdentifier"] as? String == reference)
        #expect(writes.first?["state"] as? String == "applied")
        // Ordinary subscriptions are refused as Apple refuses them.
        let ordinary = try await cli.run(["advanced-commerce", "cancel", "2000000400000044", "--demo", "--yes"], environment: state)
        #expect(ordinary.status == 4)
        #expect(ordinary.stderr.contains("SubscriptionNotEligibleError (4030010)"))
    }

    @Test func aRerunAfterAnUnknownOutcomeSendsNothingTwice() async throws {
        // The demo applies the write and cuts its answer short: the outcome is unknown.
        var faults = DemoFaults()
        faults.truncatedEvery = 1
        faults.onlyWrites = true
        let (server, flags) = try await FaultCommandTests().server(faults)
        defer { Task { await server.stop() } }
        let config = try profileFolder(advancedCommerce: true)
        let temporary = FileManager.default.temporaryDirectory.path
        // One ledger for every run, as a support agent's own machine has.
        let environment = [
            "XDG_CONFIG_HOME": config, "IAPDESK_PROFILE": "support", "XDG_DATA_HOME": "\(temporary)/iapdesk-ac-data-\(UUID().uuidString)",
            "XDG_STATE_HOME": "\(temporary)/iapdesk-ac-state-\(UUID().uuidString)",
        ]
        let command = ["advanced-commerce", "change-price", Self.studio, "--price", "STUDIO_BASE_1M=10.99", "--yes"] + flags
        let first = try await cli.run(command, environment: environment)
        #expect(first.status == 5, "\(first.stderr)")
        #expect(first.stderr.contains("The Advanced Commerce change-price of transaction \(Self.studio) may have been applied: "))
        let rerun = try await cli.run(command, environment: environment)
        #expect(rerun.status == 0, "\(rerun.stderr)")
        #expect(rerun.stderr.contains("re-sending it with the same request identifier"))
        #expect(rerun.stdout.hasPrefix("Already applied: the earlier run's change-price of transaction \(Self.studio) reached Apple"))
        #expect(rerun.stdout.contains("RepeatedRequestReferenceIdError, 4000097"))
        let audit = try await cli.run(["audit", "--json"], environment: environment)
        let writes = try #require((try JSONSerialization.jsonObject(with: Data(audit.stdout.utf8)) as? [String: Any])?["writes"] as? [[String: Any]])
        #expect(writes.count == 1)
        // Settled by the re-run's answer, not by anyone's hand.
        #expect((writes.first?["state"] as? String)?.hasPrefix("applied (by the earlier run; Apple answered RepeatedRequestReferenceIdError 4000097") == true)
        #expect(writes.first?["resolved"] as? Bool == true)
        // One price change reached the demo: one PRICE_CHANGE notification.
        let verifier = try server.makeVerifier()
        var changes = 0
        for entry in server.notificationHistory(.production) {
            let body = try JSONSerialization.jsonObject(with: entry.body) as? [String: String]
            let decoded = await verifier.verifyNotification(body?["signedPayload"] ?? "")
            if decoded.notification.payload?.notificationType == .priceChange { changes += 1 }
        }
        #expect(changes == 1)
    }

    @Test func aRerunSaysTheEarlierRunAppliedItEvenWhenTheReadAfterFails() async throws {
        // Every success answer is cut short: the revoke's and, on the re-run, the read after it.
        var faults = DemoFaults()
        faults.truncatedEvery = 1
        let (server, flags) = try await FaultCommandTests().server(faults)
        defer { Task { await server.stop() } }
        let temporary = FileManager.default.temporaryDirectory.path
        let environment = [
            "XDG_CONFIG_HOME": try profileFolder(advancedCommerce: true), "IAPDESK_PROFILE": "support",
            "XDG_DATA_HOME": "\(temporary)/iapdesk-ac-data-\(UUID().uuidString)", "XDG_STATE_HOME": "\(temporary)/iapdesk-ac-state-\(UUID().uuidString)",
        ]
        let command = ["advanced-commerce", "revoke", Self.studio, "--reason", "other", "--refund-type", "full", "--yes"] + flags
        let first = try await cli.run(command, environment: environment)
        #expect(first.status == 5, "\(first.stderr)")
        #expect(first.stderr.contains("The Advanced Commerce revoke of transaction \(Self.studio) may have been applied: "))
        let rerun = try await cli.run(command, environment: environment)
        #expect(rerun.status == 0, "\(rerun.stderr)")
        #expect(rerun.stdout.hasPrefix("Already applied: the earlier run's revoke of transaction \(Self.studio) reached Apple"))
        #expect(rerun.stderr.contains("note: the revoke is applied, but reading the transaction afterwards failed: Get Transaction Info"))
        #expect(rerun.stderr.contains("Read it with `iapdesk transaction \(Self.studio)`."))
        #expect(!rerun.stderr.contains("error:"))
        let json = try await cli.run(["audit", "--json"], environment: environment)
        let writes = try #require((try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])?["writes"] as? [[String: Any]])
        #expect(writes.first?["resolved"] as? Bool == true)
        #expect((writes.first?["state"] as? String)?.hasPrefix("applied (by the earlier run") == true)
    }

    @Test func argumentsAndApplesAnswersAreSaidPlainly() async throws {
        let state = ["XDG_STATE_HOME": FileManager.default.temporaryDirectory.appendingPathComponent("iapdesk-ac-state-\(UUID().uuidString)").path]
        func run(_ arguments: [String]) async throws -> CommandLineTests.Run {
            try await cli.run(["advanced-commerce"] + arguments + ["--demo", "--yes"], environment: state)
        }
        // An amount is named as it was typed, and one too large is said to be too large.
        let large = try await run(["change-price", Self.studio, "--price", "STUDIO_STORAGE_1TB=99999999999"])
        #expect(large.status == 64)
        #expect(large.stderr.contains("--price STUDIO_STORAGE_1TB=99999999999 is too large"), "\(large.stderr)")
        let word = try await run(["change-price", Self.studio, "--price", "STUDIO_STORAGE_1TB=abc"])
        #expect(word.stderr.contains("--price STUDIO_STORAGE_1TB=abc is not an amount such as 9.99"), "\(word.stderr)")
        // simulate-refund-decline outside Sandbox is refused here, saying how to send it to Sandbox.
        let decline = try await run(["refund", Self.courses, "--item", "COURSE_SWIFT_101=full", "--reason", "simulate-refund-decline"])
        #expect(decline.status == 64)
        #expect(decline.stderr.contains("simulate-refund-decline is for Sandbox purchases only"))
        #expect(decline.stderr.contains("add --environment sandbox"))
        // A price change of a subscription that will not renew says so.
        #expect(try await run(["cancel", Self.studio]).status == 0)
        let priced = try await run(["change-price", Self.studio, "--price", "STUDIO_BASE_1M=10.99"])
        #expect(priced.status == 0, "\(priced.stderr)")
        #expect(priced.stdout.contains("the subscription will not renew (auto-renew is off)"), "\(priced.stdout)")
        // A revoke for a legal reason is listed by that reason, not as an accidental purchase.
        #expect(try await run(["revoke", Self.studio, "--reason", "legal", "--refund-type", "full"]).status == 0)
        let refunds = try await cli.run(["refunds", Self.studio, "--demo"], environment: state.merging(["COLUMNS": "250"]) { $1 })
        #expect(refunds.stdout.contains("Legal (Advanced Commerce refund reason)"), "\(refunds.stdout)")
        #expect(!refunds.stdout.contains("accidental purchase"))
        // An item refunded twice: the hint names what lists item refunds.
        #expect(try await run(["refund", Self.courses, "--item", "COURSE_SWIFT_101=full", "--reason", "other"]).status == 0)
        let twice = try await run(["refund", Self.courses, "--item", "COURSE_SWIFT_101=full", "--reason", "other"])
        #expect(twice.stderr.contains("AlreadyRefundedError"))
        #expect(twice.stderr.contains("See what was refunded with iapdesk transaction ID"), "\(twice.stderr)")
    }
}
