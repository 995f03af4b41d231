import AppStoreServerAPI
import ArgumentParser
import DeskCore
import DeskStore
import Foundation

/// The refund-request queue: Apple's CONSUMPTION_REQUESTs with their 12 hours, the answers sent and
/// Apple's decisions.
struct RefundRequestsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "refund-requests",
        abstract: "Apple's refund requests (CONSUMPTION_REQUEST) with the time left to answer, the answers sent and Apple's decisions.",
        discussion: """
            When a customer asks Apple for a refund, Apple may send the app a CONSUMPTION_REQUEST and weighs the answer \
            (Send Consumption Information, iapdesk consumption) if it arrives within 12 hours of the notification's signed \
            date. This lists every such request in Apple's notification history and in the store (what listen received) \
            since --since, newest first, with the customer, product, price, Apple's reason, the time left, the answer in the \
            audit ledger (who, when, what), and Apple's decision once REFUND or REFUND_DECLINED arrived. docs/refunds.md \
            says how refunds work.
            """)

    @Option(name: .long, help: "From this signed date (default 30d; Apple keeps 180 days in Production, 30 in Sandbox).") var since: String = "30d"
    @Flag(name: .long, help: "Only requests still waiting for an answer within their 12 hours.") var pending = false
    @OptionGroup var storeOptions: StoreOptions
    @OptionGroup var global: GlobalOptions

    func run() async throws {
        try await withSession(global, extraTime: 600) { session, printer in
            let window = try NotificationHistoryWindow.make(since: since, until: nil, environment: session.environment)
            if let note = window.clampNote { StandardStreams.error("note: \(note)\n") }
            var sightings: [RefundRequests.Sighting] = []
            // One query per type: the request and Apple's two decisions.
            for type in [NotificationType.consumptionRequest, .refund, .refundDeclined] {
                var request = NotificationHistoryRequest()
                request.startDate = window.range.lowerBound
                request.endDate = window.range.upperBound
                request.notificationType = type
                let listing = await PagedListing<RefundRequests.Sighting>.fetch(
                    session.client.notificationHistoryPages(request: request), noun: "\(type.rawValue) notifications"
                ) { page in
                    var found: [RefundRequests.Sighting] = []
                    for item in page.notificationHistory ?? [] {
                        guard let signed = item.signedPayload else { continue }
                        let decoded = await session.verification.notification(signed)
                        if let sighting = RefundRequests.Sighting(NotificationRow(decoded: decoded, signedPayload: signed, attempts: [])) {
                            found.append(sighting)
                        }
                    }
                    return found
                }
                try listing.requireComplete(noun: "\(type.rawValue) notifications")
                sightings += listing.items
            }
            var notes: [String] = []
            sightings += await storedSightings(session, window: window.range, notes: &notes)
            let writes: [WriteRecord]
            do {
                let ledger = try await AuditLedgerAccess.open(profileStore: session.profile.store, demo: session.demo != nil)
                writes = try await ledger.writes()
            } catch {
                writes = []
                notes.append("the answers sent cannot be read from the audit ledger: \(error)")
            }
            for note in notes { StandardStreams.error("note: \(note)\n") }
            let now = Date()
            let requests = RefundRequests.merge(sightings, writes: writes).filter { !pending || $0.state(now: now) == .pending }
            printer.emit(RefundRequestsOutput(
                since: DisplayFormat.iso(window.range.lowerBound), environment: session.environment,
                requests: requests.map { RefundRequestsOutput.Request($0, now: now) }))
            guard !requests.isEmpty else {
                printer.text("No\(pending ? " pending" : "") refund requests since \(DisplayFormat.date(window.range.lowerBound)) in \(session.environmentLabel).\n")
                return
            }
            let open = requests.filter { $0.state(now: now) == .pending }.count
            printer.text("\(DisplayFormat.count(requests.count, "refund request")) in \(session.environmentLabel)\(open > 0 ? ", \(open) waiting for an answer" : ""):\n")
            var table = TextTable("ASKED", "STATE", "TIME LEFT", "TRANSACTION", "PRODUCT", "PRICE", "REASON", "ANSWER", "APPLE")
            for request in requests {
                // An answer Apple did not take (refused, or its outcome unknown) says so, not what it asked.
                let answer = request.answer.map { answer in
                    "\(answer.agent ?? "someone") \(DisplayFormat.relative(answer.time, now: now)): "
                        + (answer.applied ? answer.refundPreference ?? answer.state : answer.state)
                } ?? "-"
                let decision = request.decision.map { "\($0.type == .refund ? "refunded" : "declined") \(DisplayFormat.relative($0.time, now: now))" } ?? "-"
                let state = request.state(now: now)
                table.add([
                    DisplayFormat.date(request.requestedAt), state.label, state == .pending || state == .expired ? request.timeLeft(now: now) : "-",
                    request.transactionId ?? "-", request.productId ?? "-", DisplayFormat.money(request.price, request.currency),
                    request.reason?.label ?? "-", answer, decision,
                ])
            }
            printer.text(table.render())
            if open > 0 {
                printer.text("\nAnswer within the time left: iapdesk consumption TRANSACTION_ID --delivery-status ... --customer-consented\(global.followUpFlags) (docs/refunds.md).\n")
            }
        }
    }

    /// The CONSUMPTION_REQUESTs and decisions the store received (verified when they arrived).
    private func storedSightings(_ session: Session, window: Range<Date>, notes: inout [String]) async -> [RefundRequests.Sighting] {
        do {
            return try await RefundQueue.stored(session, storeOptions: storeOptions, window: window)
        } catch {
            notes.append("the store's received notifications are left out: \(error)")
            return []
        }
    }
}

/// `refund-requests --json`: each refund request with its state, deadline, the answer sent and Apple's decision.
struct RefundRequestsOutput: Encodable {
    struct Answer: Encodable {
        var time: String
        var agent: String?
        var state: String
        var applied: Bool
        var refundPreference: String?
    }

    struct Decision: Encodable {
        var type: NotificationType
        var time: String
    }

    struct Request: Encodable {
        var notificationUUID: String
        var state: String
        var requestedAt: String
        var deadline: String
        var secondsLeft: Int
        var transactionId: String?
        var originalTransactionId: String?
        var productId: String?
        var price: Int64?
        var currency: String?
        var consumptionRequestReason: ConsumptionRequestReason?
        var inAppleHistory: Bool
        var receivedHere: Bool
        var answer: Answer?
        var decision: Decision?

        init(_ request: RefundRequest, now: Date) {
            (notificationUUID, state) = (request.notificationUUID, request.state(now: now).rawValue)
            (requestedAt, deadline) = (DisplayFormat.iso(request.requestedAt), DisplayFormat.iso(request.deadline))
            secondsLeft = max(0, Int(request.deadline.timeIntervalSince(now)))
            (transactionId, originalTransactionId, productId) = (request.transactionId, request.originalTransactionId, request.productId)
            (price, currency, consumptionRequestReason) = (request.price, request.currency, request.reason)
            (inAppleHistory, receivedHere) = (request.inAppleHistory, request.receivedHere)
            answer = request.answer.map {
                Answer(time: DisplayFormat.iso($0.time), agent: $0.agent, state: $0.state, applied: $0.applied, refundPreference: $0.refundPreference)
            }
            decision = request.decision.map { Decision(type: $0.type, time: DisplayFormat.iso($0.time)) }
        }
    }

    var since: String
    var environment: AppStoreEnvironment
    var requests: [Request]
}
