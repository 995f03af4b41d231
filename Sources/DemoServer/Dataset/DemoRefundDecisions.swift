import AppStoreServerAPI
import Foundation

/// Apple's decision on a refund request, as the demo makes it from the app's consumption
/// information: the same answer always leads to the same decision, so a walkthrough can show both.
public enum DemoRefundOutcome: String, Codable, Sendable {
    case refundFull = "refund-full"
    case refundProrated = "refund-prorated"
    case declined

    /// GRANT_FULL refunds in full, GRANT_PRORATED half, DECLINE declines; with no preference stated,
    /// content not delivered is refunded and delivered content is not.
    init(_ answer: ConsumptionRequest) {
        switch answer.refundPreference {
        case .grantFull?: self = .refundFull
        case .grantProrated?: self = .refundProrated
        case .decline?: self = .declined
        default: self = answer.deliveryStatus == .delivered ? .declined : .refundFull
        }
    }

    /// Send Consumption Information V1: prefer grant refunds, prefer decline declines, otherwise
    /// delivered content is not refunded.
    init(_ answer: ConsumptionRequestV1) {
        switch answer.refundPreference {
        case .preferGrant?: self = .refundFull
        case .preferDecline?: self = .declined
        default: self = answer.deliveryStatus == .deliveredAndWorkingProperly ? .declined : .refundFull
        }
    }

    /// The answer as it was accepted (a v2 or a V1 body); nil when it cannot be read.
    init?(body: String?) {
        guard let data = body.map({ Data($0.utf8) }) else { return nil }
        if let v2 = try? AppStoreJSON.decode(ConsumptionRequest.self, from: data), v2.deliveryStatus != nil {
            self.init(v2)
        } else if let v1 = try? AppStoreJSON.decode(ConsumptionRequestV1.self, from: data) {
            self.init(v1)
        } else {
            return nil
        }
    }

    var notificationType: NotificationType { self == .declined ? .refundDeclined : .refund }
}

/// An answer the demo accepted, waiting for its decision.
struct DemoConsumptionAnswer: Sendable {
    let date: Date
    let outcome: DemoRefundOutcome
}

/// A refund request the demo's data shows as answered already, with the answer the app sent (the
/// demo's audit ledger is seeded with it, as if a policy had answered).
public struct DemoSeededAnswer: Sendable, Equatable {
    public let notificationUUID: String
    public let transactionId: String
    public let answeredAt: Date
    public let answer: ConsumptionRequest
    /// Who answered, as the ledger names it.
    public let agent: String
}

extension DemoEnvironmentData {
    /// Keeps an accepted answer for the decision to come; false when Apple did not ask about the
    /// transaction (no refund request in the history: nothing to decide) or decided on it already
    /// (a second answer changes nothing).
    mutating func acceptConsumption(_ transactionId: String, _ outcome: DemoRefundOutcome, at date: Date) -> Bool {
        guard refundRequests[transactionId] != nil, refundDecisions[transactionId] == nil, transactions[transactionId] != nil else { return false }
        if consumptionAnswers[transactionId] == nil { consumptionAnswers[transactionId] = DemoConsumptionAnswer(date: date, outcome: outcome) }
        return true
    }

    /// Apple's decision on an answered request: a refund revokes the transaction (a subscription's
    /// latest one leaves the subscription revoked). Returns the customer, or nil when it was decided before.
    mutating func decideRefund(_ transactionId: String, at date: Date) -> (customer: Int, outcome: DemoRefundOutcome)? {
        guard refundDecisions[transactionId] == nil, let answer = consumptionAnswers[transactionId], var transaction = transactions[transactionId] else {
            return nil
        }
        refundDecisions[transactionId] = date
        consumptionAnswers[transactionId] = nil
        guard answer.outcome != .declined else { return (transaction.customer, answer.outcome) }
        transaction.payload.revocationDate = date
        transaction.payload.revocationReason = .refundedForOtherReason
        transaction.payload.revocationType = answer.outcome == .refundFull ? .refundFull : .refundProrated
        transaction.payload.revocationPercentage = answer.outcome == .refundFull ? nil : 50_000
        transaction.modified = date
        transactions[transactionId] = transaction
        if let original = transaction.payload.originalTransactionId, var subscription = subscriptions[original],
           subscription.latestTransactionId == transactionId
        {
            subscription.status = .revoked
            subscriptions[original] = subscription
        }
        return (transaction.customer, answer.outcome)
    }
}
