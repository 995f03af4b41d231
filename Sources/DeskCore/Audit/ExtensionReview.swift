import AppStoreServerAPI
import Foundation

/// What a renewal extension's confirmation is drawn from, read again just before it is drawn: the
/// subscription as Apple has it now, every earlier extension of it, and the identifier the request
/// will carry. The console and `iapdesk extend` read it the same way and refuse the same things.
public struct ExtensionReview: Sendable {
    public var subscription: SubscriptionRow
    public var count: ExtensionCount
    public var requestIdentifier: String

    public init(subscription: SubscriptionRow, count: ExtensionCount, requestIdentifier: String) {
        self.subscription = subscription
        self.count = count
        self.requestIdentifier = requestIdentifier
    }

    /// Why Apple would refuse this extension now, in words with Apple's code; nil when it may go.
    public var refusal: String? {
        if let refusal = SubscriptionOffer.extensionRefusal(subscription) { return refusal }
        if count.total >= ExtensionRules.maxPerYear { return ExtensionRules.limitReached(count) }
        return nil
    }
}

/// Apple's rules for extending one subscription's renewal date, and the reads that check them.
public enum ExtensionRules {
    public static let maxPerYear = 2
    public static let days = 1...90

    /// The refusal of a third extension within 365 days, with what was counted.
    public static func limitReached(_ count: ExtensionCount) -> String {
        "Apple allows \(maxPerYear) extensions of a subscription in 365 days and refuses a third (4030005): \(count.summary)."
    }

    /// The date the subscription renews (or ends) as its renewal info and latest transaction say.
    public static func renewalDate(_ row: SubscriptionRow) -> Date? {
        row.renewal?.payload?.renewalDate ?? row.transaction?.payload?.expiresDate
    }

    /// Every subscription chain of an answer of Get All Subscription Statuses, each payload verified.
    public static func rows(_ response: StatusResponse, verification: VerifyingService) async -> [SubscriptionRow] {
        var rows: [SubscriptionRow] = []
        for item in response.data ?? [] {
            for last in item.lastTransactions ?? [] {
                let transaction = await last.signedTransactionInfo.asyncMap { await verification.transaction($0) }
                let renewal = await last.signedRenewalInfo.asyncMap { await verification.renewalInfo($0) }
                rows.append(SubscriptionRow(
                    groupIdentifier: item.subscriptionGroupIdentifier ?? "-", originalTransactionId: last.originalTransactionId ?? "-",
                    status: last.status, transaction: transaction, renewal: renewal))
            }
        }
        return rows
    }

    /// The subscription as Apple has it now.
    public static func subscription(
        _ originalTransactionId: String, client: AppStoreServerClient, verification: VerifyingService
    ) async throws(APIError) -> SubscriptionRow {
        let response = try await client.getAllSubscriptionStatuses(anyTransactionId: originalTransactionId)
        let rows = await rows(response, verification: verification)
        guard let row = rows.first(where: { $0.originalTransactionId == originalTransactionId }) else {
            throw APIError.invalidRequest("Apple's answer holds no subscription with original transaction ID \(originalTransactionId)")
        }
        return row
    }

    /// Reads the subscription and counts its extensions at once; the identifier comes from the caller.
    public static func review(
        _ originalTransactionId: String, client: AppStoreServerClient, verification: VerifyingService, writes: WriteContext?,
        requestIdentifier: String
    ) async -> Result<ExtensionReview, DisplayError> {
        async let counted = count(originalTransactionId, client: client, writes: writes)
        let subscription: SubscriptionRow
        do {
            subscription = try await self.subscription(originalTransactionId, client: client, verification: verification)
        } catch {
            _ = await counted
            var shown = DisplayError(error)
            shown.environment = client.environment.environment
            return .failure(shown)
        }
        return await counted.map { ExtensionReview(subscription: subscription, count: $0, requestIdentifier: requestIdentifier) }
    }

    /// The check made under the send's lock, right before the request leaves: nil while Apple
    /// still has the renewal date the agent confirmed, otherwise what changed.
    public static func unchanged(
        _ originalTransactionId: String, confirmed: Date?, client: AppStoreServerClient, verification: VerifyingService
    ) -> @Sendable () async -> String? {
        {
            do {
                let now = try await subscription(originalTransactionId, client: client, verification: verification)
                let renews = renewalDate(now)
                guard renews == confirmed else {
                    return "changed meanwhile: the subscription now renews \(DisplayFormat.date(renews)), not \(DisplayFormat.date(confirmed)) as confirmed; review it again"
                }
                if let refusal = SubscriptionOffer.extensionRefusal(now) { return "changed meanwhile: \(refusal)" }
                return nil
            } catch {
                return "the subscription could not be read again before sending (\(DisplayError(error).summary)), so nothing was sent"
            }
        }
    }

    /// Earlier extensions of one subscription: Apple offers no count, so they are found in Apple's
    /// notification history (as far back as it keeps) and, for what is older, in the audit ledger.
    public static func count(_ originalTransactionId: String, client: AppStoreServerClient, writes: WriteContext?) async -> Result<ExtensionCount, DisplayError> {
        let now = Date()
        let environment = client.environment.environment
        let windowDays = environment.notificationHistoryRetentionDays
        let windowStart = now.addingTimeInterval(-environment.notificationHistoryRetention + 3600)
        var request = NotificationHistoryRequest(startDate: windowStart, endDate: now)
        request.transactionId = originalTransactionId
        var notified: [Date] = []
        do {
            for try await page in client.notificationHistoryPages(request: request) {
                for item in page.notificationHistory ?? [] {
                    let notification = SignedDataInspector.decodeUnverified(item.signedPayload ?? "", as: NotificationPayload.self, reason: "counted only")
                    guard let payload = notification.payload, payload.notificationType == .renewalExtended else { continue }
                    let transaction = payload.data?.signedTransactionInfo.map {
                        SignedDataInspector.decodeUnverified($0, as: TransactionPayload.self, reason: "counted only").payload
                    }
                    guard transaction??.originalTransactionId == originalTransactionId else { continue }
                    notified.append(payload.signedDate ?? now)
                }
            }
        } catch {
            var shown = DisplayError(error)
            shown.environment = environment
            return .failure(shown)
        }
        var older: [Date] = []
        var recordedByTeam: [RecordedExtension] = []
        var readAt: Date?
        if let writes {
            let account = writes.account(for: client)
            let path = Endpoints.extendSubscriptionRenewalDate(
                originalTransactionId: originalTransactionId, request: ExtendRenewalDateRequest(extendByDays: 1, extendReasonCode: .undeclared, requestIdentifier: "-")).path
            let yearAgo = now.addingTimeInterval(-365 * 86_400)
            let recorded: [WriteRecord]
            readAt = Date()
            do {
                recorded = try await writes.ledger.writes()
            } catch {
                return .failure(DisplayError(summary: "Earlier extensions cannot be counted: \(error)"))
            }
            // Every agent's, whatever key they send with: Apple counts the subscription's.
            recordedByTeam = RecordedExtension.find(in: recorded, path: path, account: account, since: yearAgo)
            for record in recorded where SendGuard.sameTarget(path: path, account: account, seenAt: yearAgo).matches(record) {
                guard record.intent.write == WriteKind.extend.rawValue, let outcome = record.lastOutcome, outcome.outcome == .applied,
                      outcome.time > yearAgo, outcome.time < windowStart
                else { continue }
                older.append(outcome.time)
            }
        }
        // Applied by an agent but not in Apple's history yet (it lags, or another server's demo):
        // Apple counts them all the same.
        let appliedInWindow = recordedByTeam.filter { $0.applied && $0.time >= windowStart }.map(\.time).sorted()
        var count = ExtensionCount(
            notified: notified.sorted(), fromLedger: older.sorted(), windowDays: windowDays, recorded: recordedByTeam, readAt: readAt)
        count.notYetNotified = Array(appliedInWindow.dropFirst(notified.count))
        return .success(count)
    }
}
