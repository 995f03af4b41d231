import AppStoreServerAPI
import Foundation

/// The changes writes make to an environment's data, shared by the routes (after they checked the
/// request) and the replay of the journal (which applies what was accepted, without checking again).
extension DemoEnvironmentData {
    /// Moves a subscription's expiry (and renewal date) by `days` and records the extension; nil
    /// when the subscription is unknown or this request identifier was applied to it before.
    mutating func extendRenewal(_ originalTransactionId: String, days: Int, requestIdentifier: String, at date: Date) -> ExtendRenewalDateResponse? {
        guard var subscription = subscriptions[originalTransactionId],
              !subscription.extensions.contains(where: { $0.requestIdentifier == requestIdentifier }),
              var latest = transactions[subscription.latestTransactionId], let expires = latest.payload.expiresDate
        else { return nil }
        let newExpiry = expires.addingTimeInterval(Double(days) * 86_400)
        latest.payload.expiresDate = newExpiry
        transactions[subscription.latestTransactionId] = latest
        if subscription.renewal.renewalDate != nil { subscription.renewal.renewalDate = newExpiry }
        var response = ExtendRenewalDateResponse()
        response.originalTransactionId = originalTransactionId
        response.webOrderLineItemId = latest.payload.webOrderLineItemId
        response.success = true
        response.effectiveDate = newExpiry
        subscription.extensions.append(DemoExtension(date: date, days: days, requestIdentifier: requestIdentifier, response: response))
        subscriptions[originalTransactionId] = subscription
        return response
    }

    mutating func requestMassExtension(_ request: MassExtendRenewalDateRequest, at date: Date) {
        guard let productId = request.productId, let identifier = request.requestIdentifier else { return }
        let key = SubscriptionRoutes.massKey(productId, identifier)
        guard massExtensions[key] == nil else { return }
        massExtensions[key] = DemoMassExtension(request: request, requested: date, complete: false, completeDate: nil, succeeded: 0, failed: 0)
    }

    /// Extends every eligible subscription of the job's product at `now`; the summary Apple sends
    /// when it is done, or nil when there is no such job or it is complete already.
    mutating func completeMassExtension(key: String, at now: Date) -> NotificationSummary? {
        guard var job = massExtensions[key], !job.complete, let identifier = job.request.requestIdentifier else { return nil }
        let days = Int(job.request.extendByDays ?? 0)
        for id in subscriptions.keys.sorted() {
            guard let subscription = subscriptions[id], let latest = transactions[subscription.latestTransactionId],
                  latest.payload.productId == job.request.productId
            else { continue }
            if let codes = job.request.storefrontCountryCodes, !codes.contains(latest.payload.storefront ?? "") { continue }
            let recent = subscription.extensions.filter { $0.date > now.addingTimeInterval(-365 * 86_400) }.count
            guard subscription.status == .active, !subscription.inFreeOffer, latest.payload.inAppOwnershipType != .familyShared,
                  recent < SubscriptionRoutes.maxExtensionsPerYear, let expires = latest.payload.expiresDate, expires > now,
                  extendRenewal(id, days: days, requestIdentifier: identifier, at: now) != nil
            else {
                job.failed += 1
                continue
            }
            job.succeeded += 1
        }
        job.complete = true
        job.completeDate = now
        massExtensions[key] = job
        var summary = NotificationSummary()
        summary.environment = environment
        summary.appAppleId = environment == .production ? DemoCatalog.appAppleId : nil
        summary.bundleId = DemoCatalog.bundleId
        summary.productId = job.request.productId
        summary.requestIdentifier = job.request.requestIdentifier
        summary.storefrontCountryCodes = job.request.storefrontCountryCodes
        summary.succeededCount = job.succeeded
        summary.failedCount = job.failed
        return summary
    }

    /// Adds a notification to the history once (a UUID seen before is not added again).
    mutating func addNotification(_ note: DemoNotification) {
        guard !notifications.contains(where: { $0.uuid == note.uuid }) else { return }
        notifications.append(note)
    }

    mutating func recordAttempt(_ attempt: SendAttemptItem, notification uuid: String) {
        if let index = notifications.lastIndex(where: { $0.uuid == uuid }) { notifications[index].attempts.append(attempt) }
    }

    mutating func recordAttempt(_ attempt: SendAttemptItem, testToken token: String) {
        testNotifications[token]?.attempts.append(attempt)
    }

    /// The token applies to the chain's current and future transactions and its renewal info.
    mutating func setAppAccountToken(_ token: String, originalTransactionId id: String) {
        guard let transaction = transactions[id] else { return }
        for other in customerTransactions[transaction.customer, default: []] where transactions[other]?.payload.originalTransactionId == id {
            transactions[other]?.payload.appAccountToken = token
        }
        if var subscription = subscriptions[id] {
            subscription.renewal.appAccountToken = token
            subscriptions[id] = subscription
        }
    }

    mutating func finishTransaction(_ id: String) {
        transactions[id]?.finished = true
    }

    /// Replays one journaled write.
    mutating func apply(_ entry: DemoJournalEntry) {
        switch entry.kind {
        case .renewalExtension:
            if let id = entry.id, let days = entry.days, let identifier = entry.requestIdentifier {
                _ = extendRenewal(id, days: days, requestIdentifier: identifier, at: entry.at)
            }
        case .massExtension:
            if let request = entry.massExtension { requestMassExtension(request, at: entry.at) }
        case .massExtensionCompleted:
            if let id = entry.id { _ = completeMassExtension(key: id, at: entry.at) }
        case .notification:
            if let note = entry.notification { addNotification(note.note) }
        case .testNotification:
            if let token = entry.id, let note = entry.notification { testNotifications[token] = note.note }
        case .sendAttempt:
            guard let id = entry.id, let attempt = entry.attempt else { return }
            if entry.isTest == true { recordAttempt(attempt, testToken: id) } else { recordAttempt(attempt, notification: id) }
        case .appAccountToken:
            if let id = entry.id, let token = entry.appAccountToken { setAppAccountToken(token, originalTransactionId: id) }
        case .finishTransaction:
            if let id = entry.id { finishTransaction(id) }
        case .consumption:
            // Waits for Apple's decision (a refund-decision line when it was made).
            if let id = entry.id, let outcome = DemoRefundOutcome(body: entry.body) { _ = acceptConsumption(id, outcome, at: entry.at) }
        case .refundDecision:
            if let id = entry.id { _ = decideRefund(id, at: entry.at) }
        case .retention:
            if let change = entry.retention { retention.apply(change, at: entry.at) }
        case .advancedCommerce:
            if let id = entry.id, let request = DemoAdvancedCommerceRequest(action: entry.action, body: entry.body) {
                _ = try? applyAdvancedCommerce(request, to: id, at: entry.at)
            }
        }
    }
}
