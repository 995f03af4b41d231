import AppStoreServerAPI
import DeskCore
import DeskStore
import Foundation
import Synchronization

/// Performs the console's API effects in tasks and posts their results back as actions.
public final class EffectRunner: Sendable {
    private let services: Mutex<DeskServices>
    private let makeServices: @Sendable (AppStoreEnvironment) throws -> DeskServices
    private let post: @Sendable (ConsoleAction) -> Void
    /// The task running for each request, with a number of its own: a request's next step (a
    /// status polled under it) may start before the last one has removed itself.
    private let tasks = Mutex<(running: [Int: (number: UInt64, task: Task<Void, Never>)], next: UInt64)>(([:], 0))
    private let recentLookups: RecentLookups?
    private let makeIdentifier: @Sendable () -> String

    /// `makeIdentifier` makes request identifiers for writes (tests pass a fixed sequence).
    public init(
        services: DeskServices,
        makeServices: @escaping @Sendable (AppStoreEnvironment) throws -> DeskServices,
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

    var current: DeskServices { services.withLock { $0 } }

    public func run(_ effect: ConsoleEffect) {
        switch effect {
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
                    describe: { response in response.effectiveDate.map { "runs to \(DisplayFormat.date($0))" } })
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
        case .answerConsumption(let request, let target):
            let identifier = makeIdentifier()
            spawn(request) { services, post in
                let scoped = services.scoped(to: target.environment)
                guard let writes = scoped.writes else {
                    post(.consumptionAnswered(request: request, .notSent("the audit ledger cannot be opened, so nothing is sent (check the state directory is writable)")))
                    return
                }
                // Under the lock: an answer by anyone since the agent looked stops this one, and so
                // does the end of Apple's 12 hours while the agent read the confirmation.
                var sendGuard = SendGuard.sameTarget(path: target.endpoint.path, account: writes.account(for: scoped.client), seenAt: target.seenLedgerAt)
                let deadline = target.deadline
                sendGuard.recheck = {
                    Date() < deadline ? nil : "Apple's 12 hours for this request ended at \(DisplayFormat.date(deadline)) while it was being confirmed"
                }
                let result = await LedgeredWriter.send(
                    target.endpoint, requestIdentifier: identifier, write: .consumption, subject: target.subject,
                    client: scoped.client, context: writes, guardedBy: sendGuard)
                post(.consumptionAnswered(request: request, result))
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
        case .task(let task):
            spawn(task.request, finishes: task.finishes) { services, post in
                let answer = await task.work(services) { partial in post(.answer(request: task.request, partial)) }
                if let answer { post(.answer(request: task.request, answer)) }
            }
        case .cancel(let request):
            tasks.withLock { $0.running.removeValue(forKey: request) }?.task.cancel()
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
        case .copy, .setTheme, .suspend, .quit:
            break
        }
    }

    public func cancelAll() {
        let all = tasks.withLock { tasks -> [Task<Void, Never>] in
            defer { tasks.running.removeAll() }
            return tasks.running.values.map(\.task)
        }
        all.forEach { $0.cancel() }
    }

    private func spawn(_ request: Int, finishes: Bool = true, _ body: @escaping @Sendable (DeskServices, @escaping @Sendable (ConsoleAction) -> Void) async -> Void) {
        let services = current
        let post = self.post
        let number = tasks.withLock { tasks -> UInt64 in
            defer { tasks.next += 1 }
            return tasks.next
        }
        let task = Task { [weak self] in
            await body(services, post)
            if finishes { post(.finished(request: request)) }
            self?.tasks.withLock { tasks in
                if tasks.running[request]?.number == number { tasks.running[request] = nil }
            }
        }
        tasks.withLock { $0.running[request] = (number, task) }
    }
}
