import AppStoreServerAPI
@testable import DeskCore
import Foundation
import Testing

/// The refund-request queue: each CONSUMPTION_REQUEST once, its 12 hours, the answer in the ledger
/// and Apple's decision.
@Suite struct RefundRequestsTests {
    let now = Date(timeIntervalSince1970: 1_800_000_000)

    func sighting(_ uuid: String, _ type: NotificationType, hoursAgo: Double, transaction: String, fromApple: Bool = true) -> RefundRequests.Sighting {
        var t = TransactionPayload()
        t.transactionId = transaction
        t.originalTransactionId = transaction
        t.productId = "coins"
        t.price = 990
        t.currency = "USD"
        return RefundRequests.Sighting(
            notificationUUID: uuid, type: type, signedDate: now.addingTimeInterval(-hoursAgo * 3600), transaction: t,
            reason: type == .consumptionRequest ? .unintendedPurchase : nil, environment: "Production", fromApple: fromApple)
    }

    func answer(_ transaction: String, hoursAgo: Double, outcome: AuditLedger.OutcomeStatus, agent: String = "sam") -> WriteRecord {
        let time = now.addingTimeInterval(-hoursAgo * 3600)
        let intent = AuditLedger.Entry(
            time: time, event: .intent, requestIdentifier: "r-\(transaction)", write: WriteKind.consumption.rawValue, method: "PUT",
            path: "/inApps/v2/transactions/consumption/\(transaction)", body: #"{"customerConsented":true,"deliveryStatus":"DELIVERED","refundPreference":"DECLINE"}"#,
            account: WriteAccount(profile: "demo", environment: .production, baseURL: "demo", bundleId: "com.example", keyId: "K"),
            subject: "transaction \(transaction)", source: .commandLine, agent: agent)
        var closing = intent
        closing.event = .outcome
        closing.outcome = outcome
        closing.time = time.addingTimeInterval(1)
        return WriteRecord(intent: intent, lines: [intent, closing])
    }

    /// Apple may ask twice about one purchase: the answer to the first is not the second's.
    @Test func anAnswerBelongsToTheRequestItAnswered() {
        let sightings = [
            sighting("first", .consumptionRequest, hoursAgo: 3, transaction: "7"),
            sighting("second", .consumptionRequest, hoursAgo: 2.99, transaction: "7"),
        ]
        // Answered half a minute before the second request was signed.
        let requests = RefundRequests.merge(sightings, writes: [answer("7", hoursAgo: 2.999, outcome: .applied)])
        let byUUID = Dictionary(uniqueKeysWithValues: requests.map { ($0.notificationUUID, $0) })
        #expect(byUUID["first"]?.state(now: now) == .answered)
        #expect(byUUID["second"]?.state(now: now) == .pending)
        #expect(byUUID["second"]?.answer == nil)
        // An answer written a few seconds before its request arrived (clocks apart) still counts.
        let early = RefundRequests.merge([sighting("only", .consumptionRequest, hoursAgo: 1, transaction: "8")], writes: [answer("8", hoursAgo: 1.005, outcome: .applied)])
        #expect(early.first?.state(now: now) == .answered)
    }

    @Test func everyStateOfARequestIsToldApart() {
        let sightings = [
            sighting("pending", .consumptionRequest, hoursAgo: 1, transaction: "1"),
            // The same request stored by the receiver too: one row, seen on both sides.
            sighting("pending", .consumptionRequest, hoursAgo: 1, transaction: "1", fromApple: false),
            sighting("expired", .consumptionRequest, hoursAgo: 13, transaction: "2"),
            sighting("answered", .consumptionRequest, hoursAgo: 5, transaction: "3"),
            sighting("refunded", .consumptionRequest, hoursAgo: 30, transaction: "4"),
            sighting("r4", .refund, hoursAgo: 20, transaction: "4"),
            sighting("declined", .consumptionRequest, hoursAgo: 30, transaction: "5"),
            sighting("d5", .refundDeclined, hoursAgo: 2, transaction: "5"),
            // A refusal by Apple is no answer: still pending.
            sighting("refused", .consumptionRequest, hoursAgo: 2, transaction: "6"),
        ]
        let requests = RefundRequests.merge(sightings, writes: [answer("3", hoursAgo: 4, outcome: .applied), answer("6", hoursAgo: 1, outcome: .refused)])
        let states = Dictionary(uniqueKeysWithValues: requests.map { ($0.notificationUUID, $0.state(now: now)) })
        #expect(requests.count == 6)
        #expect(states == ["pending": .pending, "expired": .expired, "answered": .answered, "refunded": .refunded, "declined": .declined, "refused": .pending])
        let pending = requests.first { $0.notificationUUID == "pending" }
        #expect(pending?.inAppleHistory == true && pending?.receivedHere == true)
        #expect(pending?.timeLeft(now: now) == "11 h 0 min left")
        #expect(requests.first { $0.notificationUUID == "answered" }?.answer?.agent == "sam")
        #expect(requests.first { $0.notificationUUID == "answered" }?.answer?.refundPreference == "decline")
        #expect(requests.first { $0.notificationUUID == "expired" }?.timeLeft(now: now).hasPrefix("closed") == true)
        // Newest first.
        #expect(requests.map(\.notificationUUID).prefix(2) == ["pending", "refused"])
    }
}
