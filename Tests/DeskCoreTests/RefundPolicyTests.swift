import AppStoreServerAPI
@testable import DeskCore
import DeskStore
import Foundation
import Testing

/// The consumption policy: read from TOML with errors that name the line and key, and `decide`,
/// the pure function the receiver and the pane share.
@Suite struct RefundPolicyTests {
    let now = Date(timeIntervalSince1970: 1_800_000_000)

    func policyCase(
        product: String = "com.example.coins.100", reason: ConsumptionRequestReason = .unintendedPurchase, hoursAgo: Double = 1,
        type: ProductType = .consumable, token: String? = nil, revoked: Bool = false
    ) -> RefundPolicyCase {
        var transaction = TransactionPayload()
        transaction.transactionId = "2000000400002200"
        transaction.originalTransactionId = "2000000400002107"
        transaction.productId = product
        transaction.type = type
        transaction.appAccountToken = token
        if revoked { transaction.revocationDate = now.addingTimeInterval(-60) }
        let sighting = RefundRequests.Sighting(
            notificationUUID: "u1", type: .consumptionRequest, signedDate: now.addingTimeInterval(-hoursAgo * 3600), transaction: transaction,
            reason: reason, environment: "Production", fromApple: false)
        return RefundPolicyCase(request: RefundRequests.merge([sighting], writes: []).first!, transaction: transaction)
    }

    func sent(_ decision: RefundPolicyDecision) -> ConsumptionRequest? {
        if case .send(let request) = decision.action { return request }
        return nil
    }

    /// The first TOML example of docs/refunds.md, which people copy to start.
    static func documentedPolicy() throws -> String {
        let docs = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("docs/refunds.md")
        let text = try String(contentsOf: docs, encoding: .utf8)
        let start = try #require(text.range(of: "```toml\n"))
        let end = try #require(text.range(of: "```", range: start.upperBound..<text.endIndex))
        return String(text[start.upperBound..<end.lowerBound])
    }

    @Test func theDocumentedPolicyAnswersEveryRequestWithConsentAndAStatedPreference() throws {
        let policy = try RefundPolicy.parse(try Self.documentedPolicy(), name: "refund-policy.toml")
        #expect(policy.consent == .appTerms)
        #expect(policy.dryRun == false)
        for reason in ConsumptionRequestReason.catalog.map(\.value) {
            for type in [ProductType.consumable, .autoRenewableSubscription, .nonRenewingSubscription] {
                let request = try #require(sent(policy.decide(policyCase(product: "any.product", reason: reason, type: type), overrides: [], now: now)))
                #expect(request.customerConsented == true)
                #expect(request.refundPreference != nil)
                #expect(request.deliveryStatus == .delivered)
            }
        }
        #expect(policy.agent == "policy:refund-policy.toml")
    }

    @Test func aRuleThatMatchesEverythingBeforeOthersIsSaid() throws {
        let hiding = try RefundPolicy.parse(
            "consent = \"app-terms\"\nrefund_preference = \"decline\"\n[[rule]]\nrefund_preference = \"grant-full\"\n[[rule]]\nreason = \"legal\"\nanswer = false\n",
            name: "p.toml")
        #expect(hiding.words.contains { $0.hasPrefix("⚠ Rule 1 matches every request, so rules 2 to 2 never apply") })
        // Last, it is the policy's fallback: nothing said.
        let last = try RefundPolicy.parse(
            "consent = \"app-terms\"\nrefund_preference = \"decline\"\n[[rule]]\nreason = \"legal\"\nanswer = false\n[[rule]]\nrefund_preference = \"grant-full\"\n",
            name: "p.toml")
        #expect(!last.words.contains { $0.hasPrefix("⚠") })
    }

    @Test func rulesMatchByProductPatternAndReasonTheFirstWins() throws {
        let policy = try RefundPolicy.parse(
            """
            consent = "app-terms"
            refund_preference = "decline"

            [[rule]]
            product = ["com.example.coins.*", "com.example.gems.??"]
            reason = "unintended-purchase"
            refund_preference = "grant-full"
            consumption_share = 40

            [[rule]]
            reason = ["FULFILLMENT_ISSUE", "unsatisfied-with-purchase"]
            refund_preference = "grant-prorated"
            delivery_status = "undelivered-server-outage"

            [[rule]]
            product = "com.example.pro.*"
            answer = false
            """, name: "p.toml")
        let coins = sent(policy.decide(policyCase(), overrides: [], now: now))
        #expect(coins?.refundPreference == .grantFull)
        #expect(coins?.consumptionPercentage == 40_000)
        #expect(policy.decide(policyCase(), overrides: [], now: now).because.contains { $0.hasPrefix("rule 1 (line 4)") })
        #expect(sent(policy.decide(policyCase(product: "com.example.gems.10"), overrides: [], now: now))?.refundPreference == .grantFull)
        #expect(sent(policy.decide(policyCase(product: "com.example.gems.100"), overrides: [], now: now))?.refundPreference == .decline)
        // Not delivered: Apple takes only 0 as the share.
        let outage = sent(policy.decide(policyCase(product: "com.example.coins.100", reason: .fulfillmentIssue), overrides: [], now: now))
        #expect(outage?.refundPreference == .grantProrated)
        #expect(outage?.deliveryStatus == .undeliveredServerOutage)
        #expect(outage?.consumptionPercentage == nil)
        guard case .skip(let why) = policy.decide(policyCase(product: "com.example.pro.monthly", reason: .legal), overrides: [], now: now).action else {
            Issue.record("a rule with answer = false answers nothing")
            return
        }
        #expect(why.contains("rule 3"))
    }

    @Test func aShareIsNeverSentForASubscriptionAndIsZeroWhenNotDelivered() throws {
        let policy = try RefundPolicy.parse("consent = \"app-terms\"\nrefund_preference = \"none\"\nconsumption_share = 75.5\n", name: "p.toml")
        #expect(sent(policy.decide(policyCase(), overrides: [], now: now))?.consumptionPercentage == 75_500)
        let subscription = policy.decide(policyCase(type: .autoRenewableSubscription), overrides: [], now: now)
        #expect(sent(subscription)?.consumptionPercentage == nil)
        #expect(subscription.because.contains { $0.contains("auto-renewable") })
        // Refunded or revoked already: not delivered (the default delivery status follows the transaction).
        let revoked = sent(policy.decide(policyCase(revoked: true), overrides: [], now: now))
        #expect(revoked?.deliveryStatus == .undeliveredOther)
        #expect(revoked?.consumptionPercentage == 0)
        #expect(sent(policy.decide(policyCase(), overrides: [], now: now))?.refundPreference == nil)
    }

    @Test func aCustomerInTheFileThenAnAgentsOverrideComeOverTheRules() throws {
        let policy = try RefundPolicy.parse(
            """
            consent = "app-terms"
            refund_preference = "decline"
            [[customer]]
            original_transaction_id = "2000000400002107"
            refund_preference = "grant-prorated"
            note = "long-time customer"
            """, name: "p.toml")
        #expect(sent(policy.decide(policyCase(), overrides: [], now: now))?.refundPreference == .grantProrated)
        let token = "D2BCD010-7AA6-4831-9EBE-EDF71FA3146B"
        let overrides = [
            RefundOverride(kind: .originalTransactionId, account: "2000000400002107", refundPreference: "decline", note: nil, agent: "sam", time: now.addingTimeInterval(-60)),
            RefundOverride(kind: .appAccountToken, account: token, refundPreference: "grant-full", note: "outage", agent: "kim", time: now.addingTimeInterval(-30)),
        ]
        let decision = policy.decide(policyCase(token: token.lowercased()), overrides: overrides, now: now)
        #expect(sent(decision)?.refundPreference == .grantFull)
        #expect(decision.because.last?.hasPrefix("override by kim") == true)
        // Another customer's override changes nothing.
        #expect(sent(policy.decide(policyCase(), overrides: [overrides[1]], now: now))?.refundPreference == .grantProrated)
    }

    @Test func withoutConsentPastTheDeadlineOrInADryRunNothingIsSent() throws {
        let silent = try RefundPolicy.parse("refund_preference = \"decline\"\n", name: "p.toml")
        guard case .skip(let noConsent) = silent.decide(policyCase(), overrides: [], now: now).action else {
            Issue.record("no consent, no answer")
            return
        }
        #expect(noConsent.contains("consent"))
        #expect(silent.words.first?.contains("never sends") == true)
        let policy = try RefundPolicy.parse("consent = \"app-terms\"\nrefund_preference = \"decline\"\n", name: "p.toml")
        guard case .skip(let late) = policy.decide(policyCase(hoursAgo: 12.01), overrides: [], now: now).action else {
            Issue.record("past the 12 hours, no answer")
            return
        }
        #expect(late.contains("12 hours"))
        let dry = try RefundPolicy.parse("consent = \"app-terms\"\nrefund_preference = \"decline\"\ndry_run = true\n", name: "p.toml")
        guard case .wouldSend(let request) = dry.decide(policyCase(), overrides: [], now: now).action else {
            Issue.record("a dry run only says what it would send")
            return
        }
        #expect(request.refundPreference == .decline)
    }

    @Test(arguments: [
        ("refund_preference = \"maybe\"\n", 1, "refund_preference", "not decline, grant-full"),
        ("consent = \"asked\"\nrefund_preference = \"decline\"\n", 1, "consent", "not a source of consent"),
        ("consent = \"app-terms\"\n", nil, "refund_preference", "missing"),
        ("refund_preference = \"decline\"\n\n[[rule]]\nproduct = \"x\"\ncolour = 1\n", 5, "rule[1].colour", "unknown key"),
        ("refund_preference = \"decline\"\n[[rule]]\nreason = \"bored\"\n", 3, "rule[1].reason", "not one of Apple's reasons"),
        ("refund_preference = \"decline\"\n[[rule]]\nproduct = \"com example\"\n", 3, "rule[1].product", "not a product ID"),
        ("refund_preference = \"decline\"\nconsumption_share = 120\n", 2, "consumption_share", "0 to 100"),
        ("refund_preference = \"decline\"\ndelivery_status = \"lost\"\n", 2, "delivery_status", "from-transaction, delivered"),
        ("refund_preference = \"decline\"\n[[customer]]\noriginal_transaction_id = \"1\"\napp_account_token = \"x\"\n", 2, "customer[1]", "exactly one"),
        ("refund_preference = \"decline\"\n[[customer]]\napp_account_token = \"not-a-uuid\"\n", 3, "customer[1].app_account_token", "UUID"),
        ("refund_preference = \"decline\"\ndry_run = \"yes\"\n", 2, "dry_run", "true or false"),
        ("refund_preference = \"decline\n", 1, nil, "not TOML"),
    ] as [(String, Int?, String?, String)])
    func aFileThatCannotBeUsedSaysWhichLineAndKey(text: String, line: Int?, key: String?, message: String) {
        do {
            _ = try RefundPolicy.parse(text, name: "refunds.toml")
            Issue.record("expected \(message)")
        } catch {
            #expect(error.line == line)
            #expect(error.key == key)
            #expect(error.message.contains(message))
            #expect(error.description.hasPrefix("refunds.toml"))
        }
    }

    @Test func whatAppleWouldRefuseIsNotSent() throws {
        let policy = try RefundPolicy.parse("consent = \"app-terms\"\nrefund_preference = \"decline\"\n", name: "p.toml")
        var shared = policyCase()
        shared.transaction?.inAppOwnershipType = .familyShared
        guard case .skip(let why) = policy.decide(shared, overrides: [], now: now).action else {
            Issue.record("a family member's shared access takes no answer")
            return
        }
        #expect(why.contains("4000185"))
        // The request's own transaction is used when none is given.
        #expect(RefundPolicyCase(request: policyCase().request).transaction?.productId == "com.example.coins.100")
    }

    @Test func productPatternsMatchAsGlobs() {
        #expect(RefundPolicy.Rule.glob("com.example.*", matches: "com.example.coins.100"))
        #expect(RefundPolicy.Rule.glob("*.100", matches: "com.example.coins.100"))
        #expect(!RefundPolicy.Rule.glob("com.example.coins", matches: "com.example.coins.100"))
        #expect(RefundPolicy.Rule.glob("com.example.coins.10?", matches: "com.example.coins.100"))
        #expect(RefundPolicy.Rule.glob("*", matches: ""))
    }
}
