import AppStoreServerAPI
import Foundation

/// A refund request Apple asked the app about (CONSUMPTION_REQUEST): Apple weighs the app's answer
/// if it comes within 12 hours of the notification's signedDate.
public struct RefundRequest: Sendable, Equatable {
    public enum State: String, Sendable, Equatable, CaseIterable {
        case pending, answered, expired, refunded, declined

        /// In the agent's words.
        public var label: String {
            switch self {
            case .pending: return "pending"
            case .answered: return "answered"
            case .expired: return "expired unanswered"
            case .refunded: return "refunded by Apple"
            case .declined: return "declined by Apple"
            }
        }
    }

    /// The consumption information sent for it, as the audit ledger has it.
    public struct Answer: Sendable, Equatable {
        public var time: Date
        public var agent: String?
        /// "applied", "refused by Apple: …", "may have been applied".
        public var state: String
        public var applied: Bool
        public var refundPreference: String?
        /// False while the answer may have reached Apple without its outcome being known.
        public var resolved = true
    }

    /// Apple's decision, from the REFUND, REFUND_DECLINED or REFUND_REVERSED notification after it.
    public struct Decision: Sendable, Equatable {
        public var type: NotificationType
        public var time: Date
    }

    public var notificationUUID: String
    public var transactionId: String?
    public var originalTransactionId: String?
    public var productId: String?
    public var price: Int64?
    public var currency: String?
    public var reason: ConsumptionRequestReason?
    /// Apple's signedDate of the request: the 12 hours run from it.
    public var requestedAt: Date
    public var environment: String?
    /// Seen in Apple's notification history, and stored by the receiver.
    public var inAppleHistory = false
    public var receivedHere = false
    public var answer: Answer?
    public var decision: Decision?
    /// The transaction as the request carried it (its type, ownership, account token).
    public var transaction: TransactionPayload?

    public var deadline: Date { requestedAt.addingTimeInterval(RefundRequests.answerWindow) }

    public func state(now: Date) -> State {
        switch decision?.type {
        case .refund?: return .refunded
        case .refundDeclined?: return .declined
        default: break
        }
        if answer?.applied == true { return .answered }
        return now < deadline ? .pending : .expired
    }

    /// "3 h 20 min left", "expired 2 days ago", or for an answered one when it was answered.
    public func timeLeft(now: Date) -> String {
        let left = deadline.timeIntervalSince(now)
        guard left > 0 else { return "closed " + DisplayFormat.relative(deadline, now: now) }
        let hours = Int(left / 3600), minutes = Int(left.truncatingRemainder(dividingBy: 3600) / 60)
        return hours > 0 ? "\(hours) h \(minutes) min left" : "\(minutes) min left"
    }
}

/// The queue of refund requests: every CONSUMPTION_REQUEST seen in Apple's notification history or
/// stored by the receiver, joined with the answers in the audit ledger and Apple's decisions.
public enum RefundRequests {
    public static let answerWindow: TimeInterval = 12 * 3600

    /// One notification as either source has it.
    public struct Sighting: Sendable {
        public var notificationUUID: String
        public var type: NotificationType?
        public var signedDate: Date
        public var transaction: TransactionPayload?
        public var reason: ConsumptionRequestReason?
        public var environment: String?
        public var fromApple: Bool

        public init(
            notificationUUID: String, type: NotificationType?, signedDate: Date, transaction: TransactionPayload?, reason: ConsumptionRequestReason?,
            environment: String?, fromApple: Bool
        ) {
            self.notificationUUID = notificationUUID
            self.type = type
            self.signedDate = signedDate
            self.transaction = transaction
            self.reason = reason
            self.environment = environment
            self.fromApple = fromApple
        }

        /// A notification of Apple's history; nil without a UUID or a date.
        public init?(_ row: NotificationRow) {
            guard let payload = row.payload, let uuid = payload.notificationUUID, let date = payload.signedDate else { return nil }
            self.init(
                notificationUUID: uuid, type: payload.notificationType, signedDate: date, transaction: row.decoded?.transaction?.payload,
                reason: payload.data?.consumptionRequestReason, environment: payload.data?.environment?.rawValue, fromApple: true)
        }
    }

    /// Newest request first.
    public static func merge(_ sightings: [Sighting], writes: [WriteRecord]) -> [RefundRequest] {
        var requests: [String: RefundRequest] = [:]
        for sighting in sightings where sighting.type == .consumptionRequest {
            var request = requests[sighting.notificationUUID] ?? RefundRequest(
                notificationUUID: sighting.notificationUUID, transactionId: sighting.transaction?.transactionId,
                originalTransactionId: sighting.transaction?.originalTransactionId, productId: sighting.transaction?.productId,
                price: sighting.transaction?.price, currency: sighting.transaction?.currency, reason: sighting.reason, requestedAt: sighting.signedDate,
                environment: sighting.environment, transaction: sighting.transaction)
            if sighting.fromApple { request.inAppleHistory = true } else { request.receivedHere = true }
            requests[sighting.notificationUUID] = request
        }
        // Apple's decisions: the first REFUND or REFUND_DECLINED of the transaction after the request.
        let decisions = sightings.filter { [.refund, .refundDeclined, .refundReversed].contains($0.type) }.sorted { $0.signedDate < $1.signedDate }
        let answers = writes.filter { $0.intent.write == WriteKind.consumption.rawValue }
        // Each answer belongs to one request: the policy's names it; another goes to the newest
        // request of its transaction that Apple had sent when it was written (a minute's leeway for
        // clocks only when none had), so that a later request on the same purchase starts unanswered.
        var answerOf: [String: WriteRecord] = [:]
        let byTransaction = Dictionary(grouping: requests.values.filter { $0.transactionId != nil }, by: { $0.transactionId ?? "" })
        for write in answers {
            let target: RefundRequest?
            if write.requestIdentifier.hasPrefix("policy-"), let named = requests.values.first(where: {
                "policy-" + $0.notificationUUID.lowercased() == write.requestIdentifier
            }) {
                target = named
            } else {
                guard let transaction = write.intent.path.split(separator: "/").last.map(String.init),
                      let candidates = byTransaction[transaction]?.sorted(by: { $0.requestedAt < $1.requestedAt })
                else { continue }
                target = candidates.last { $0.requestedAt <= write.intent.time }
                    ?? candidates.first { $0.requestedAt <= write.intent.time.addingTimeInterval(60) }
            }
            // The latest answer of a request is the one that counts.
            if let target { answerOf[target.notificationUUID] = write }
        }
        for (uuid, var request) in requests {
            guard let transaction = request.transactionId else { continue }
            if let decision = decisions.first(where: {
                $0.transaction?.transactionId == transaction && $0.signedDate >= request.requestedAt && $0.type != .refundReversed
            }), let type = decision.type {
                request.decision = RefundRequest.Decision(type: type, time: decision.signedDate)
            }
            if let write = answerOf[uuid] {
                request.answer = RefundRequest.Answer(
                    time: write.lastOutcome?.time ?? write.intent.time, agent: write.intent.agent, state: write.stateLabel,
                    applied: write.lastOutcome?.outcome == .applied, refundPreference: refundPreference(write.intent.body),
                    resolved: write.isResolved)
            }
            requests[uuid] = request
        }
        return requests.values.sorted { ($0.requestedAt, $0.notificationUUID) > ($1.requestedAt, $1.notificationUUID) }
    }

    /// The preference an answer stated, in words ("grant a full refund"), from its JSON body.
    static func refundPreference(_ body: String?) -> String? {
        guard let body, let object = try? JSONSerialization.jsonObject(with: Data(body.utf8)) as? [String: Any] else { return nil }
        switch object["refundPreference"] {
        case let text as String:
            switch text {
            case "DECLINE": return "decline"
            case "GRANT_FULL": return "grant in full"
            case "GRANT_PRORATED": return "grant prorated"
            default: return text.lowercased()
            }
        case let number as Int:
            // Send Consumption Information v1's integers.
            return [1: "prefer grant", 2: "prefer decline", 3: "no preference"][number]
        default: return nil
        }
    }
}
