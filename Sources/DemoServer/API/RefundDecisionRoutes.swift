import AppStoreServerAPI
import Foundation

/// Apple's answer to a refund request, as the demo gives it: `decisionDelay` after it accepts the
/// app's consumption information it decides as `DemoRefundOutcome` says, revokes the transaction
/// when it refunds, and sends REFUND or REFUND_DECLINED (signed, in the notification history, to
/// the webhook). Apple takes days; the demo seconds, so a walkthrough sees it arrive.
struct RefundDecisionRoutes: Sendable {
    let store: DemoStore
    let notifications: NotificationRoutes
    static let decisionDelay: TimeInterval = 3

    /// Decides on `transactionId`'s refund request `after` seconds (at once when its time has come).
    func schedule(_ transactionId: String, environment: AppStoreEnvironment, after delay: TimeInterval) {
        let (store, notifications) = (store, notifications)
        guard delay > 0 else { return Self.decide(transactionId, environment: environment, store: store, notifications: notifications) }
        // Tracked: a process keeping the state lets it happen before it ends (a `consumption --demo`
        // then delivers the decision to the demo's receiver in another shell).
        store.track {
            try? await Task.sleep(nanoseconds: UInt64(delay * 1_000_000_000))
            Self.decide(transactionId, environment: environment, store: store, notifications: notifications)
        }
    }

    /// The decisions an earlier run accepted an answer for but did not see made (it ended first).
    func resumePending() {
        let now = store.clock()
        for environment in [AppStoreEnvironment.production, .sandbox] {
            let pending = (try? store.read(environment) { data throws(DemoAPIError) in data.consumptionAnswers.map { ($0.key, $0.value.date) } }) ?? []
            for (transactionId, accepted) in pending.sorted(by: { $0.0 < $1.0 }) {
                schedule(transactionId, environment: environment, after: accepted.addingTimeInterval(Self.decisionDelay).timeIntervalSince(now))
            }
        }
    }

    static func decide(_ transactionId: String, environment: AppStoreEnvironment, store: DemoStore, notifications: NotificationRoutes) {
        let now = store.clock()
        // Two processes sharing the kept state may both get here: the second finds it decided.
        let decided = try? store.write(environment) { data throws(DemoAPIError) -> (customer: Int, outcome: DemoRefundOutcome)? in
            guard let answer = data.consumptionAnswers[transactionId], data.refundDecisions[transactionId] == nil else { return nil }
            var entry = DemoJournalEntry(.refundDecision, environment, at: now, id: transactionId)
            entry.refundOutcome = answer.outcome
            try store.keep(entry)
            return data.decideRefund(transactionId, at: now)
        }
        guard let made = decided ?? nil else { return }
        notifications.publish(made.outcome.notificationType, nil, environment: environment, customer: made.customer, transactionId: transactionId)
    }
}
