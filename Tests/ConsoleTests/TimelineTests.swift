import AppStoreServerAPI
@testable import Console
import DemoServer
@testable import DeskCore
import DeskStore
import Foundation
import Testing

/// One time-ordered history of a customer, each event naming its source, with what they spent.
@Suite struct TimelineTests {
    static let day: TimeInterval = 86_400
    static let start = Date(timeIntervalSince1970: 1_790_000_000)

    static func transaction(_ id: String, days: Double, price: Int64, renewal: Bool = false, refundedAfter: Double? = nil) -> VerifiedTransaction {
        var t = TransactionPayload()
        t.transactionId = id
        t.originalTransactionId = "1000"
        t.productId = "pro.monthly"
        t.purchaseDate = start.addingTimeInterval(days * day)
        t.price = price
        t.currency = "EUR"
        t.transactionReason = renewal ? .renewal : .purchase
        if let refundedAfter {
            t.revocationDate = start.addingTimeInterval((days + refundedAfter) * day)
            t.revocationReason = .refundedDueToIssue
        }
        return VerifiedPayload(payload: t, rawPayload: nil, header: nil, status: .verified, chainSubjects: [])
    }

    @Test func purchasesRefundsWritesAndNotesMergeInTimeOrderWithTheirSourcesAndTheNetSpent() {
        var customer = CustomerState(query: "1000", lookup: 1)
        let refunded = Self.transaction("1002", days: 30, price: 9_990, renewal: true, refundedAfter: 2)
        customer.history = .loaded([Self.transaction("1000", days: 0, price: 9_990), refunded, Self.transaction("1003", days: 60, price: 9_990, renewal: true)])
        // The refund history repeats a refunded purchase: it is counted once.
        customer.refunds = .loaded([refunded])
        let account = WriteAccount(profile: "p", environment: .production, baseURL: "https://x", bundleId: "com.a", keyId: "K")
        let intent = AuditLedger.Entry(
            time: Self.start.addingTimeInterval(45 * Self.day), event: .intent, requestIdentifier: "r-1", write: "extend", method: "PUT",
            path: "/inApps/v1/subscriptions/extend/1000", body: #"{"extendByDays":7,"extendReasonCode":3,"requestIdentifier":"r-1"}"#,
            account: account, subject: nil, source: .console, agent: "sam")
        var outcome = intent
        outcome.event = .outcome
        outcome.outcome = .applied
        let note = CaseNote(id: 1, time: Self.start.addingTimeInterval(31 * Self.day), agent: "kim", text: "Called about the double charge")

        let events = Timeline.events(customer: customer, writes: [WriteRecord(intent: intent, lines: [intent, outcome])], notes: [note])
        #expect(events.map(\.kind) == [.purchase, .renewal, .note, .refund, .extension, .renewal])
        #expect(events.map(\.source) == [.history, .history, .store, .history, .ledger, .history])
        #expect(events.map(\.time) == events.map(\.time).sorted())
        #expect(events[2].summary == "note by kim: Called about the double charge")
        #expect(events[3].summary.contains("refunded") && events[3].transactionId == "1002")
        #expect(events[4].summary.hasPrefix("renewal extended by 7 days (Service issue or outage) by sam: applied"), "\(events[4].summary)")

        let spent = Timeline.spent(customer)
        #expect(spent.count == 1)
        #expect(spent.first?.paid == 29_970)
        #expect(spent.first?.refunded == 9_990)
        #expect(Timeline.spentLine(customer).hasPrefix("net \(DisplayFormat.money(19_980, "EUR"))"))
    }

    @Test func theTimelinePaneHoldsTheHistoryAndTheNotificationsOfTheCustomerOnScreen() async throws {
        let harness = try await ConsoleHarness.start()
        defer { Task { await harness.stop() } }
        harness.type("8SAVFG75PQ")
        harness.send(.enter)
        try await harness.settle()
        let customer = try #require(harness.state.customer)
        harness.send(.character(Character(String(Panes.index(of: .timeline) + 1))))
        #expect(harness.state.pane == .timeline)
        try await harness.tick(until: { $0.timeline.reading == nil && $0.timeline.readFor == customer.lookup })
        let rows = TimelinePane.rows(harness.state)
        let purchases = Set((customer.history.value ?? []).compactMap { $0.payload?.transactionId })
        #expect(Set(rows.filter { $0.source == .history && $0.kind != .refund }.compactMap(\.transactionId)) == purchases)
        #expect(rows.filter { $0.kind == .refund && $0.source == .history }.count == customer.refunds.value?.count)
        #expect(rows.filter { $0.source == .notifications }.count == customer.notifications.value?.count)
        let screen = harness.screen(width: 120, height: 36)
        #expect(screen.contains("Spent: net"))
        #expect(screen.contains("REFUND_DECLINED"))
    }

    @Test func aProratedRefundGivesBackItsShareAndFamilyRevocationNothing() {
        var prorated = TransactionPayload()
        prorated.price = 79_990
        prorated.currency = "USD"
        prorated.revocationDate = Date(timeIntervalSince1970: 1_800_000_000)
        prorated.revocationType = .refundProrated
        prorated.revocationPercentage = 67_500
        #expect(Timeline.refundedAmount(prorated) == 53_990)
        var family = prorated
        family.revocationType = .familyRevoke
        family.revocationPercentage = nil
        #expect(Timeline.refundedAmount(family) == 0)
        var full = prorated
        full.revocationType = .refundFull
        full.revocationPercentage = nil
        #expect(Timeline.refundedAmount(full) == 79_990)
        var kept = prorated
        kept.revocationDate = nil
        #expect(Timeline.refundedAmount(kept) == nil)
        let event = Timeline.purchaseEvents(prorated).first { $0.kind == .refund }
        #expect(event?.summary.contains("refunded 67.5% prorated") == true)
        #expect(event?.summary.contains("53.99 USD of 79.99 USD") == true)
    }
}
