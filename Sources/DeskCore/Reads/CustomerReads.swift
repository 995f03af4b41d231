import AppStoreServerAPI
import DeskStore
import Foundation

/// The reads that make up a customer, as plain async functions: the console runs them as its
/// effects, the command line awaits them.
public enum CustomerReads {
    /// Look Up Order ID, every purchase of the order verified.
    public static func order(_ orderId: String, _ services: DeskServices) async -> Result<OrderResult, DisplayError> {
        do {
            let response = try await services.client.lookUpOrderId(orderId: orderId)
            var transactions: [VerifiedTransaction] = []
            for jws in response.signedTransactions ?? [] { transactions.append(await services.verification.transaction(jws)) }
            return .success(OrderResult(orderId: orderId, status: response.status, transactions: transactions))
        } catch {
            return .failure(services.failure(error))
        }
    }

    /// What the store's account index holds under an app account token, the most recently seen first.
    public static func accountLinks(_ token: String, _ services: DeskServices) async -> Result<[AccountLink], DisplayError> {
        guard let index = await services.accountIndex() else {
            return .failure(DisplayError(
                summary: "No store to find app account tokens in: the store listen writes cannot be opened.",
                hint: "Give the console the store with --store (or the profile's store), or look the customer up by an order or transaction ID."))
        }
        do {
            let links = try await index.accountLinks(.appAccountToken, token)
            guard !links.isEmpty else {
                return .failure(DisplayError(
                    summary: "No purchase seen with app account token \(token).",
                    hint: "The store's index knows only what listen received and lookups saw: iapdesk index --since 180d fills it from Apple's notification history. Or ask for the order ID on the customer's receipt e-mail."))
            }
            return .success(links)
        } catch {
            return .failure(DisplayError(summary: "The account index cannot be read: \(error)"))
        }
    }

    /// Every part of the customer under `anchor`, each as it arrives; the stream ends when all have
    /// answered, and ending it early cancels what is still asked.
    public static func parts(anchor: String, includeTransaction: Bool, services: DeskServices) -> AsyncStream<CustomerPart> {
        AsyncStream { continuation in
            let task = Task {
                await load(anchor: anchor, includeTransaction: includeTransaction, services: services) { continuation.yield($0) }
                continuation.finish()
            }
            continuation.onTermination = { _ in task.cancel() }
        }
    }

    /// Finds the environment first (Production, then Sandbox on 4040010), then reads the rest there,
    /// checking every answer against the environment that gave it.
    public static func load(
        anchor: String, includeTransaction: Bool, services: DeskServices, part: @escaping @Sendable (CustomerPart) -> Void
    ) async {
        var located = services
        if includeTransaction {
            do {
                let found = try await services.client.withEnvironmentFallback { client throws(APIError) in
                    try await client.getTransactionInfo(transactionId: anchor)
                }
                located = services.scoped(to: found.environment)
                let transaction = await located.verification.transaction(found.value.signedTransactionInfo ?? "")
                part(.transaction(.success(Located(value: transaction, environment: found.environment, usedFallback: found.usedFallback))))
            } catch {
                if error.isAppTransactionId {
                    // An app transaction ID: Apple's history, statuses and refunds take it as they are.
                    await loadAppTransactionCustomer(anchor: anchor, services: services, part: part)
                    return
                }
                part(.transaction(.failure(services.failure(error))))
                if error.isTransactionNotFound || error.isInvalidTransactionId {
                    // Nothing else can be found for an ID Apple does not know.
                    everyPartFailed(services.failure(error), part: part, includingTransaction: false)
                    return
                }
            }
        }
        await loadParts(anchor: anchor, services: located, part: part)
    }

    private static func everyPartFailed(_ failure: DisplayError, part: (CustomerPart) -> Void, includingTransaction: Bool) {
        if includingTransaction { part(.transaction(.failure(failure))) }
        part(.subscriptions(.failure(failure)))
        part(.refunds(.failure(failure)))
        part(.history(.failure(failure)))
        part(.notifications(.failure(failure)))
        part(.appTransaction(.failure(failure)))
    }

    /// A customer found by app transaction ID: located with Get App Transaction Info (Production,
    /// then Sandbox), then read like any other under that ID.
    private static func loadAppTransactionCustomer(anchor: String, services: DeskServices, part: @escaping @Sendable (CustomerPart) -> Void) async {
        do {
            let found = try await services.client.withEnvironmentFallback { client throws(APIError) in
                try await client.getAppTransactionInfo(anyTransactionId: anchor)
            }
            part(.appTransactionFound(anchor: anchor, environment: found.environment))
            await loadParts(anchor: anchor, services: services.scoped(to: found.environment), part: part)
        } catch {
            everyPartFailed(services.failure(error), part: part, includingTransaction: true)
        }
    }

    /// Every part of the customer under `anchor`, at once; what the verified payloads tie to the
    /// app's own IDs goes into the store's account index.
    private static func loadParts(anchor: String, services scoped: DeskServices, part: @escaping @Sendable (CustomerPart) -> Void) async {
        // Each part gives back the links its verified payloads carry.
        let links = await withTaskGroup(of: [AccountLink].self) { group in
            group.addTask {
                do {
                    let response = try await scoped.client.getAllSubscriptionStatuses(anyTransactionId: anchor)
                    let rows = await ExtensionRules.rows(response, verification: scoped.verification)
                    part(.subscriptions(.success(rows)))
                    return accountLinks(transactions: rows.compactMap(\.transaction), renewals: rows.compactMap(\.renewal), seen: Date())
                } catch {
                    part(.subscriptions(.failure(scoped.failure(error))))
                    return []
                }
            }
            group.addTask {
                do {
                    var refunds: [VerifiedTransaction] = []
                    for try await page in scoped.client.refundHistoryPages(anyTransactionId: anchor) {
                        for jws in page.signedTransactions ?? [] { refunds.append(await scoped.verification.transaction(jws)) }
                    }
                    part(.refunds(.success(refunds)))
                } catch {
                    part(.refunds(.failure(scoped.failure(error))))
                }
                return []
            }
            group.addTask {
                let result = await history(anchor, TransactionHistoryQuery(sort: .descending), scoped) { rows, pages in
                    part(.historyPage(rows, pages: pages))
                }
                part(.history(result))
                guard case .success(let transactions) = result else { return [] }
                return accountLinks(transactions: transactions, renewals: [], seen: Date())
            }
            group.addTask {
                let spec = NotificationRequestSpec(since: NotificationRequestSpec.customerSpan, type: nil, subtype: nil, transactionId: anchor, onlyFailures: false)
                part(.notifications(await notifications(spec, scoped)))
                return []
            }
            group.addTask {
                do {
                    let response = try await scoped.client.getAppTransactionInfo(anyTransactionId: anchor)
                    let payload = await scoped.verification.appTransaction(response.signedAppTransactionInfo ?? "")
                    part(.appTransaction(.success(payload)))
                } catch {
                    part(.appTransaction(.failure(scoped.failure(error))))
                }
                return []
            }
            return await group.reduce(into: []) { $0 += $1 }
        }
        // The index only saves a later lookup; failing to fill it is not the agent's concern now.
        if !links.isEmpty, let index = await scoped.accountIndex() { try? await index.recordAccountLinks(AccountLink.merged(links)) }
    }

    /// The whole history, its date windows fetched at once within Apple's rate limits, ordered as
    /// the query asks. `onPage` hears each page as it arrives (decoded, marked as being verified),
    /// so a list fills while the rest loads and Esc keeps what has arrived; every row is verified
    /// once all are in.
    public static func history(
        _ anchor: String, _ query: TransactionHistoryQuery, _ services: DeskServices,
        onPage: ([VerifiedTransaction], Int) -> Void = { _, _ in }
    ) async -> Result<[VerifiedTransaction], DisplayError> {
        var shown: [String: VerifiedTransaction] = [:]
        var arrived: [HistoryEntry] = []
        let fetched = await services.client.transactionHistoryConcurrently(anyTransactionId: anchor, query: query) { progress in
            for entry in progress.arrived {
                shown[entry.transactionId] = SignedDataInspector.decodeUnverified(entry.signedTransaction, as: TransactionPayload.self, reason: "being verified")
            }
            arrived += progress.arrived
            guard progress.windowsDone < progress.windows else { return }
            onPage(WindowedHistory.ordered(arrived, sort: query.sort).compactMap { shown[$0.transactionId] }, progress.pages)
        }
        switch fetched.end {
        case .failed(let error): return .failure(services.failure(error))
        case .interrupted: return .failure(DisplayError(summary: "Cancelled."))
        case .complete, .stopped: return .success(await services.verification.transactions(fetched.signedTransactions))
        }
    }

    /// Apple's notification history for `spec`, newest first, at most 2,000 rows.
    public static func notifications(
        _ spec: NotificationRequestSpec, _ services: DeskServices, onPage: ([NotificationRow], Int) -> Void = { _, _ in }
    ) async -> Result<[NotificationRow], DisplayError> {
        let now = Date()
        var request = NotificationHistoryRequest(startDate: now.addingTimeInterval(-spec.since), endDate: now)
        request.notificationType = spec.type
        request.notificationSubtype = spec.subtype
        request.transactionId = spec.transactionId
        request.onlyFailures = spec.onlyFailures ? true : nil
        do {
            var rows: [NotificationRow] = []
            var pages = 0
            // Newest first: on-call engineers look at what just happened.
            let newestFirst = { (rows: inout [NotificationRow]) in
                rows.sort { ($0.payload?.signedDate ?? .distantPast) > ($1.payload?.signedDate ?? .distantPast) }
            }
            for try await page in services.client.notificationHistoryPages(request: request) {
                for item in page.notificationHistory ?? [] {
                    let signed = item.signedPayload ?? ""
                    let decoded = await services.verification.notification(signed)
                    rows.append(NotificationRow(decoded: decoded, signedPayload: signed, attempts: item.sendAttempts ?? []))
                }
                pages += 1
                if rows.count >= 2_000 || page.hasMore != true { break }
                newestFirst(&rows)
                onPage(rows, pages)
            }
            newestFirst(&rows)
            return .success(rows)
        } catch {
            return .failure(services.failure(error))
        }
    }

    /// What a customer's payloads add to the account index: every verified transaction and renewal
    /// info that carries the app's IDs.
    public static func accountLinks(transactions: [VerifiedTransaction], renewals: [VerifiedPayload<RenewalInfoPayload>], seen: Date) -> [AccountLink] {
        var links: [AccountLink] = []
        for transaction in transactions where transaction.status.isVerified {
            guard let t = transaction.payload else { continue }
            links += AccountLink.links(
                appAccountToken: t.appAccountToken, appTransactionId: t.appTransactionId, originalTransactionId: t.originalTransactionId,
                environment: t.environment?.rawValue, source: .lookup, seen: seen, signedDate: t.signedDate)
        }
        for renewal in renewals where renewal.status.isVerified {
            guard let r = renewal.payload else { continue }
            links += AccountLink.links(
                appAccountToken: r.appAccountToken, appTransactionId: r.appTransactionId, originalTransactionId: r.originalTransactionId,
                environment: r.environment?.rawValue, source: .lookup, seen: seen, signedDate: r.signedDate)
        }
        return AccountLink.merged(links)
    }
}

extension DeskServices {
    /// The store's account index (the store listen writes); nil when there is none to open.
    public func accountIndex() async -> (any AccountIndex)? {
        guard let received else { return nil }
        return (try? await received.store()) as? any AccountIndex
    }
}

extension APIError {
    /// Apple's answer to an ID that cannot be a transaction ID at all.
    fileprivate var isInvalidTransactionId: Bool {
        if case .server(let failure) = self { return failure.code == .invalidTransactionId }
        return false
    }

    /// Apple's answer to an app transaction ID where a purchase's transaction ID belongs.
    fileprivate var isAppTransactionId: Bool {
        if case .server(let failure) = self { return failure.code == .appTransactionIdNotSupported }
        return false
    }
}
