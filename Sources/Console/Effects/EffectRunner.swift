import AppStoreServerAPI
import Foundation
import Synchronization
import WebhookStore

/// The client and verifier for an environment (the demo's or the profile's), and where writes are recorded.
public struct ConsoleServices: Sendable {
    public var client: AppStoreServerClient
    /// The same verifying service the command line uses.
    public var verification: VerifyingService
    /// Nil when the audit ledger cannot be opened: then nothing is written to Apple.
    public var writes: WriteContext?
    /// The notifications that arrived at a receiver (the Live pane, "arrived here" marks); nil: none are read.
    public var received: ReceivedNotifications?
    /// The set-up checks of `:doctor` for this console's profile; nil: not available.
    public var doctor: Doctor?

    public init(
        client: AppStoreServerClient, verifier: SignedDataVerifier?, verifierProblem: String? = nil, writes: WriteContext? = nil,
        received: ReceivedNotifications? = nil, doctor: Doctor? = nil
    ) {
        self.client = client
        self.verification = VerifyingService(verifier: verifier, problem: verifierProblem)
        self.writes = writes
        self.received = received
        self.doctor = doctor
    }

    /// An error as the console shows it, with the environment the request went to.
    func failure(_ error: any Error) -> DisplayError {
        var shown = DisplayError(error)
        shown.environment = client.environment.environment
        return shown
    }

    /// The same services sending to, and expecting data from, `environment` (the environment a
    /// customer was found in); unchanged for nil or when this client cannot reach it.
    public func scoped(to environment: AppStoreEnvironment?) -> ConsoleServices {
        guard let environment, let scopedClient = client.client(for: environment) else { return self }
        var scoped = self
        scoped.client = scopedClient
        scoped.verification = verification.expecting(environment)
        return scoped
    }
}

/// Performs the console's API effects in tasks and posts their results back as actions.
public final class EffectRunner: Sendable {
    private let services: Mutex<ConsoleServices>
    private let makeServices: @Sendable (AppStoreEnvironment) throws -> ConsoleServices
    private let post: @Sendable (ConsoleAction) -> Void
    private let tasks = Mutex<[Int: Task<Void, Never>]>([:])
    private let recentLookups: RecentLookups?
    private let makeIdentifier: @Sendable () -> String

    /// `makeIdentifier` makes request identifiers for writes (tests pass a fixed sequence).
    public init(
        services: ConsoleServices,
        makeServices: @escaping @Sendable (AppStoreEnvironment) throws -> ConsoleServices,
        recentLookups: RecentLookups? = nil,
        makeIdentifier: @escaping @Sendable () -> String = { UUID().uuidString.lowercased() },
        post: @escaping @Sendable (ConsoleAction) -> Void
    ) {
        self.recentLookups = recentLookups
        self.makeIdentifier = makeIdentifier
        self.services = Mutex(services)
        self.makeServices = makeServices
        self.post = post
    }

    var current: ConsoleServices { services.withLock { $0 } }

    public func run(_ effect: ConsoleEffect) {
        switch effect {
        case .lookUpOrder(let request, let orderId):
            spawn(request) { services, post in
                do {
                    let response = try await services.client.lookUpOrderId(orderId: orderId)
                    var transactions: [VerifiedTransaction] = []
                    for jws in response.signedTransactions ?? [] { transactions.append(await services.verification.transaction(jws)) }
                    post(.order(request: request, .success(OrderResult(orderId: orderId, status: response.status, transactions: transactions))))
                } catch {
                    post(.order(request: request, .failure(services.failure(error))))
                }
            }
        case .loadCustomer(let request, let anchor, let includeTransaction, let environment):
            spawn(request) { services, post in
                await Self.loadCustomer(
                    request: request, anchor: anchor, includeTransaction: includeTransaction, services: services.scoped(to: environment), post: post)
            }
        case .loadHistory(let request, let anchor, let query, let environment):
            spawn(request) { services, post in
                let result = await Self.history(anchor, query, services.scoped(to: environment)) { rows, pages in
                    post(.historyPage(request: request, rows, pages: pages))
                }
                post(.paneHistory(request: request, result))
            }
        case .loadNotifications(let request, let spec):
            spawn(request) { services, post in
                let result = await Self.notifications(spec, services) { rows, pages in
                    post(.notificationsPage(request: request, rows, pages: pages))
                }
                post(.paneNotifications(request: request, result))
            }
        case .extend(let request, let target):
            spawn(request) { services, post in
                let scoped = services.scoped(to: target.environment)
                guard let writes = scoped.writes else {
                    post(.extended(request: request, .notSent("the audit ledger cannot be opened, so nothing is sent (check the state directory is writable)")))
                    return
                }
                // What the agent confirmed is checked again under the lock: the ledger, then Apple's date.
                let sendGuard = target.seenLedgerAt.map {
                    var sendGuard = SendGuard.sameTarget(path: target.endpoint.path, account: writes.account(for: scoped.client), seenAt: $0)
                    sendGuard.recheck = ExtensionRules.unchanged(
                        target.originalTransactionId, confirmed: target.confirmedRenewal, client: scoped.client, verification: scoped.verification)
                    return sendGuard
                }
                let result = await LedgeredWriter.send(
                    target.endpoint, requestIdentifier: target.body.requestIdentifier ?? "", write: .extend, subject: target.subject,
                    resend: target.isResend, client: scoped.client, context: writes, guardedBy: sendGuard,
                    describe: { response in response.effectiveDate.map { "renews \(DisplayFormat.iso($0))" } })
                post(.extended(request: request, result))
            }
        case .finishTransaction(let request, let target):
            let identifier = makeIdentifier()
            spawn(request) { services, post in
                let scoped = services.scoped(to: target.environment)
                guard let writes = scoped.writes else {
                    post(.transactionFinished(request: request, .notSent("the audit ledger cannot be opened, so nothing is sent (check the state directory is writable)")))
                    return
                }
                let result = await LedgeredWriter.send(
                    target.endpoint, requestIdentifier: identifier, write: .finishTransaction, subject: target.subject,
                    client: scoped.client, context: writes)
                post(.transactionFinished(request: request, result))
            }
        case .countExtensions(let request, let originalTransactionId, let environment):
            spawn(request) { services, post in
                let scoped = services.scoped(to: environment)
                post(.extensionsCounted(request: request, await ExtensionRules.count(originalTransactionId, client: scoped.client, writes: scoped.writes)))
            }
        case .reviewExtension(let request, let originalTransactionId, let environment):
            let identifier = makeIdentifier()
            spawn(request) { services, post in
                let scoped = services.scoped(to: environment)
                post(.extensionReviewed(request: request, await ExtensionRules.review(
                    originalTransactionId, client: scoped.client, verification: scoped.verification, writes: scoped.writes, requestIdentifier: identifier)))
            }
        case .resolveWrite(let write, let note):
            guard let writes = current.writes else {
                post(.writeResolved(requestIdentifier: write.record.requestIdentifier, .failure(DisplayError(summary: "The audit ledger cannot be opened; nothing was recorded."))))
                return
            }
            let line = write.record.resolution(note: note, source: .console, agent: writes.agent, now: Date())
            let post = self.post
            Task {
                do {
                    try await writes.ledger.append(line)
                    post(.writeResolved(requestIdentifier: write.record.requestIdentifier, .success(())))
                } catch {
                    post(.writeResolved(requestIdentifier: write.record.requestIdentifier, .failure(DisplayError(summary: "Not recorded: \(error)"))))
                }
            }
        case .requestTestNotification(let request):
            // The request stays in flight while its status is polled, so it does not finish here.
            spawn(request, finishes: false) { services, post in
                do {
                    let response = try await services.client.requestTestNotification()
                    post(.testRequested(request: request, .success(response.testNotificationToken ?? "")))
                } catch {
                    post(.testRequested(request: request, .failure(services.failure(error))))
                }
            }
        case .pollTestNotification(let request, let token, let delay):
            spawn(request, finishes: false) { services, post in
                try? await Task.sleep(nanoseconds: UInt64(delay * 1_000_000_000))
                guard !Task.isCancelled else { return }
                do {
                    post(.testStatus(request: request, .success(try await services.client.getTestNotificationStatus(testNotificationToken: token))))
                } catch {
                    post(.testStatus(request: request, .failure(services.failure(error))))
                }
            }
        case .task(let task):
            spawn(task.request) { services, post in
                let answer = await task.work(services) { partial in post(.answer(request: task.request, partial)) }
                post(.answer(request: task.request, answer))
            }
        case .cancel(let request):
            tasks.withLock { $0.removeValue(forKey: request) }?.cancel()
        case .switchEnvironment(let environment):
            do {
                let next = try makeServices(environment)
                services.withLock { $0 = next }
                post(.environmentChanged(.success(environment)))
            } catch {
                post(.environmentChanged(.failure(DisplayError(summary: "Cannot switch to \(environment.label): \(error)"))))
            }
        case .saveRecentLookups(let ids):
            // Only saves typing: a failure is not worth interrupting the agent for.
            try? recentLookups?.save(ids)
        case .copy, .setTheme, .quit:
            break
        }
    }

    public func cancelAll() {
        let all = tasks.withLock { tasks -> [Task<Void, Never>] in
            defer { tasks.removeAll() }
            return Array(tasks.values)
        }
        all.forEach { $0.cancel() }
    }

    private func spawn(_ request: Int, finishes: Bool = true, _ body: @escaping @Sendable (ConsoleServices, @escaping @Sendable (ConsoleAction) -> Void) async -> Void) {
        let services = current
        let post = self.post
        let task = Task { [weak self] in
            await body(services, post)
            if finishes { post(.finished(request: request)) }
            _ = self?.tasks.withLock { $0.removeValue(forKey: request) }
        }
        tasks.withLock { $0[request] = task }
    }

    // MARK: Loading

    static func loadCustomer(
        request: Int, anchor: String, includeTransaction: Bool, services: ConsoleServices, post: @escaping @Sendable (ConsoleAction) -> Void
    ) async {
        // Find the environment first (Production, then Sandbox on 4040010), then fetch the rest there,
        // and check every answer against the environment that gave it.
        var located = services
        if includeTransaction {
            do {
                let found = try await services.client.withEnvironmentFallback { client throws(APIError) in
                    try await client.getTransactionInfo(transactionId: anchor)
                }
                located = services.scoped(to: found.environment)
                let transaction = await located.verification.transaction(found.value.signedTransactionInfo ?? "")
                post(.transaction(request: request, .success(Located(value: transaction, environment: found.environment, usedFallback: found.usedFallback))))
            } catch {
                if error.isAppTransactionId {
                    // An app transaction ID: Apple's history, statuses and refunds take it as they are.
                    await loadAppTransactionCustomer(request: request, anchor: anchor, services: services, post: post)
                    return
                }
                post(.transaction(request: request, .failure(services.failure(error))))
                if error.isTransactionNotFound || error.isInvalidTransactionId {
                    // Nothing else can be found for an ID Apple does not know.
                    let failure = services.failure(error)
                    post(.subscriptions(request: request, .failure(failure)))
                    post(.refunds(request: request, .failure(failure)))
                    post(.history(request: request, .failure(failure)))
                    post(.customerNotifications(request: request, .failure(failure)))
                    post(.appTransaction(request: request, .failure(failure)))
                    return
                }
            }
        }
        await loadParts(request: request, anchor: anchor, services: located, post: post)
    }

    /// A customer found by app transaction ID: it is located with Get App Transaction Info
    /// (Production, then Sandbox), then read like any other under that ID.
    static func loadAppTransactionCustomer(
        request: Int, anchor: String, services: ConsoleServices, post: @escaping @Sendable (ConsoleAction) -> Void
    ) async {
        do {
            let found = try await services.client.withEnvironmentFallback { client throws(APIError) in
                try await client.getAppTransactionInfo(anyTransactionId: anchor)
            }
            post(.answer(request: request, AccountLookup.AppTransactionFound(anchor: anchor, environment: found.environment)))
            await loadParts(request: request, anchor: anchor, services: services.scoped(to: found.environment), post: post)
        } catch {
            let failure = services.failure(error)
            for part in [ConsoleAction.transaction(request: request, .failure(failure)), .subscriptions(request: request, .failure(failure)),
                         .refunds(request: request, .failure(failure)), .history(request: request, .failure(failure)),
                         .customerNotifications(request: request, .failure(failure)), .appTransaction(request: request, .failure(failure))] {
                post(part)
            }
        }
    }

    /// Every part of the customer under `anchor`, at once; what the verified payloads tie to the
    /// app's own IDs goes into the store's account index.
    static func loadParts(request: Int, anchor: String, services scoped: ConsoleServices, post: @escaping @Sendable (ConsoleAction) -> Void) async {
        // Each part gives back the links its verified payloads carry.
        let links = await withTaskGroup(of: [AccountLink].self) { group in
            group.addTask {
                do {
                    let response = try await scoped.client.getAllSubscriptionStatuses(anyTransactionId: anchor)
                    let rows = await ExtensionRules.rows(response, verification: scoped.verification)
                    post(.subscriptions(request: request, .success(rows)))
                    return AccountLookup.links(transactions: rows.compactMap(\.transaction), renewals: rows.compactMap(\.renewal), seen: Date())
                } catch {
                    post(.subscriptions(request: request, .failure(scoped.failure(error))))
                    return []
                }
            }
            group.addTask {
                do {
                    var refunds: [VerifiedTransaction] = []
                    for try await page in scoped.client.refundHistoryPages(anyTransactionId: anchor) {
                        for jws in page.signedTransactions ?? [] { refunds.append(await scoped.verification.transaction(jws)) }
                    }
                    post(.refunds(request: request, .success(refunds)))
                } catch {
                    post(.refunds(request: request, .failure(scoped.failure(error))))
                }
                return []
            }
            group.addTask {
                let result = await history(anchor, TransactionHistoryQuery(sort: .descending), scoped) { rows, pages in
                    post(.historyPage(request: request, rows, pages: pages))
                }
                post(.history(request: request, result))
                guard case .success(let transactions) = result else { return [] }
                return AccountLookup.links(transactions: transactions, renewals: [], seen: Date())
            }
            group.addTask {
                let spec = NotificationRequestSpec(since: 30 * 86_400 - 3600, type: nil, subtype: nil, transactionId: anchor, onlyFailures: false)
                post(.customerNotifications(request: request, await notifications(spec, scoped)))
                return []
            }
            group.addTask {
                do {
                    let response = try await scoped.client.getAppTransactionInfo(anyTransactionId: anchor)
                    let payload = await scoped.verification.appTransaction(response.signedAppTransactionInfo ?? "")
                    post(.appTransaction(request: request, .success(payload)))
                } catch {
                    post(.appTransaction(request: request, .failure(scoped.failure(error))))
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
    /// so the list fills while the rest loads and Esc keeps what has arrived; every row is verified
    /// once all are in.
    static func history(
        _ anchor: String, _ query: TransactionHistoryQuery, _ services: ConsoleServices,
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

    static func notifications(
        _ spec: NotificationRequestSpec, _ services: ConsoleServices, onPage: ([NotificationRow], Int) -> Void = { _, _ in }
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
