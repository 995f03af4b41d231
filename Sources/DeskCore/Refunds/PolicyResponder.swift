import AppStoreServerAPI
import DeskStore
import Foundation
import Synchronization

/// Answers each refund request (CONSUMPTION_REQUEST) a receiver stores with a consumption policy,
/// through the audit ledger like every write, once: duplicates of a notification, several
/// receivers on one store and a receiver restarted all answer it once.
///
/// How once is kept: a receiver first claims the request in the store (one row per
/// notificationUUID, claimed in a transaction, held for `lease` and renewed before each attempt);
/// its answer carries a request identifier made from the notificationUUID, so the ledger says
/// whether it was sent before; and the send is held under the ledger's lock against another
/// process's line for the same transaction. A write whose intent is in the ledger with no outcome
/// (the receiver stopped while it was on the wire) is closed in the ledger as possibly applied and
/// not sent again. Attempts Apple answered 429 or 5xx, or did not answer, are retried with
/// backoff until Apple's 12 hours end.
public final class PolicyResponder: Sendable {
    public struct Settings: Sendable {
        /// How long a claim holds without being renewed: a receiver that stopped is replaced after it.
        public var lease: TimeInterval = 120
        /// Waits between attempts; the last repeats.
        public var retryDelays: [TimeInterval] = [5, 15, 30, 60, 120, 300]
        /// Seconds one attempt may take.
        public var attemptTimeout: TimeInterval = 30
        /// How often the store is read again for requests not settled (another receiver stopped,
        /// a claim ran out).
        public var sweepInterval: TimeInterval = 60

        public init() {}
    }

    /// One decision or outcome, for the receiver's log.
    public struct Event: Sendable, Equatable {
        public enum Kind: String, Sendable {
            case answered
            case wouldAnswer = "would-answer"
            case skipped
            case retrying
            case failed
            /// Another receiver holds it now.
            case held
            /// Answered, skipped or failed before (a duplicate delivery, another receiver).
            case settled
            /// Its answer may have left before a receiver stopped: closed without sending again.
            case unknown
            /// Claimed from a receiver that stopped before it finished.
            case takenOver = "taken-over"
        }

        public var time: Date
        public var kind: Kind
        public var notificationUUID: String
        public var transactionId: String?
        public var detail: String

        public var line: String {
            "refund request \(notificationUUID)\(transactionId.map { " (transaction \($0))" } ?? ""): \(kind.rawValue): \(detail)"
        }
    }

    public let policy: RefundPolicy
    public let claimant: String
    let store: any NotificationStore & RefundPolicyStore
    let client: AppStoreServerClient
    let context: WriteContext
    let settings: Settings
    let now: @Sendable () -> Date
    let log: @Sendable (Event) -> Void
    private let running = Mutex<[String: Task<Void, Never>]>([:])
    /// Requests this process is done with (settled, skipped, logged as a dry run): the sweep leaves them.
    private let done = Mutex<Set<String>>([])
    private let sweeper = Mutex<Task<Void, Never>?>(nil)

    public init(
        policy: RefundPolicy, store: any NotificationStore & RefundPolicyStore, client: AppStoreServerClient, context: WriteContext,
        claimant: String? = nil, settings: Settings = Settings(), now: @escaping @Sendable () -> Date = Date.init,
        log: @escaping @Sendable (Event) -> Void
    ) {
        self.policy = policy
        self.store = store
        self.client = client
        var context = context
        context.agent = policy.agent
        context.source = .policy
        self.context = context
        self.claimant = claimant ?? Self.claimant(for: policy)
        self.settings = settings
        self.now = now
        self.log = log
    }

    /// Where the answers are recorded, for messages.
    public var ledgerLocation: String { context.ledger.location }

    /// `policy:refunds.toml@host:pid:nonce`: who holds a claim, and whether it is a process of this machine.
    public static func claimant(for policy: RefundPolicy) -> String {
        "\(policy.agent)@\(ProcessInfo.processInfo.hostName):\(getpid()):\(UUID().uuidString.prefix(8).lowercased())"
    }

    /// The request identifier of the policy's answer to one request, the same in every process.
    public static func requestIdentifier(_ notificationUUID: String) -> String { "policy-" + notificationUUID.lowercased() }

    /// Answers what the store holds from the last 12 hours, then reads it again every
    /// `sweepInterval` for requests left by a receiver that stopped.
    public func start() {
        let task = Task { [weak self] in
            while !Task.isCancelled {
                guard let self else { return }
                await self.sweep()
                try? await Task.sleep(for: .seconds(self.settings.sweepInterval))
            }
        }
        sweeper.withLock { $0 = task }
    }

    /// A notification was stored (or delivered again): answered if it is a refund request.
    public func arrived(_ notificationUUID: String, type: String?) {
        guard type == nil || type == NotificationType.consumptionRequest.rawValue else { return }
        begin(notificationUUID)
    }

    /// The stored refund requests of the last 12 hours that this process has not finished.
    public func sweep() async {
        let now = now()
        let stored: [StoredNotification]
        do {
            stored = try await store.notifications(signedIn: now.addingTimeInterval(-RefundRequests.answerWindow)..<now.addingTimeInterval(60))
        } catch {
            log(Event(time: now, kind: .retrying, notificationUUID: "-", transactionId: nil, detail: "the store cannot be read (\(error)); read again in \(Int(settings.sweepInterval)) s"))
            return
        }
        let finished = done.withLock { $0 }
        for notification in stored where notification.notificationType == NotificationType.consumptionRequest.rawValue && !finished.contains(notification.notificationUUID) {
            begin(notification.notificationUUID)
        }
    }

    /// Returns once no request is being answered.
    public func idle() async {
        while true {
            let tasks = running.withLock { Array($0.values) }
            if tasks.isEmpty { return }
            for task in tasks { await task.value }
        }
    }

    /// Stops the sweep and the waits between attempts; an answer on the wire is let finish (within
    /// `attemptTimeout`). A claim left is taken over when its lease ends.
    public func stop() async {
        sweeper.withLock { $0 }?.cancel()
        let tasks = running.withLock { Array($0.values) }
        for task in tasks { task.cancel() }
        for task in tasks { await task.value }
    }

    private func begin(_ uuid: String) {
        running.withLock { running in
            guard running[uuid] == nil else { return }
            running[uuid] = Task { [self] in
                await self.answer(uuid)
                _ = self.running.withLock { $0.removeValue(forKey: uuid) }
            }
        }
    }

    private func emit(_ kind: Event.Kind, _ policyCase: RefundPolicyCase?, _ uuid: String, _ detail: String) {
        log(Event(time: now(), kind: kind, notificationUUID: uuid, transactionId: policyCase?.request.transactionId, detail: detail))
    }

    private func finish(_ uuid: String) { _ = done.withLock { $0.insert(uuid) } }

    // MARK: One request

    private func answer(_ uuid: String) async {
        let policyCase: RefundPolicyCase
        let overrides: [RefundOverride]
        do {
            guard let stored = try await store.notifications(uuids: [uuid]).first, var found = RefundPolicyCase(stored: stored) else { return finish(uuid) }
            // Decided by what is known of it: the answers in the ledger and Apple's decisions the store
            // holds, so that a dry run says what the real run would do, and neither answers twice.
            if let transaction = found.request.transactionId {
                let decisions = try await store.notifications(NotificationFilter(transactionId: transaction))
                    .filter { [NotificationType.refund.rawValue, NotificationType.refundDeclined.rawValue].contains($0.notificationType ?? "") }
                    .compactMap(RefundRequests.Sighting.init(stored:))
                var sighting = RefundRequests.Sighting(stored: stored)
                sighting?.transaction = found.transaction
                let writes = (try? await context.ledger.writes()) ?? []
                if let sighting, let known = RefundRequests.merge([sighting] + decisions, writes: writes).first(where: { $0.notificationUUID == uuid }) {
                    found.request = known
                }
            }
            policyCase = found
            overrides = RefundOverride.current(try await store.refundOverrideChanges())
        } catch {
            return emit(.retrying, nil, uuid, "the store cannot be read (\(error)); tried again at the next sweep")
        }
        let decision = policy.decide(policyCase, overrides: overrides, now: now())
        let because = decision.because.isEmpty ? "" : " [" + decision.because.joined(separator: "; ") + "]"
        let body: ConsumptionRequest
        switch decision.action {
        case .skip(let why):
            finish(uuid)
            return emit(.skipped, policyCase, uuid, why + because)
        case .wouldSend(let request):
            finish(uuid)
            return emit(.wouldAnswer, policyCase, uuid, "dry run, nothing sent; would send: \(RefundPolicyDecision.describe(request))\(because)")
        case .send(let request):
            body = request
        }
        guard await claim(uuid, policyCase) else { return }
        await send(body, uuid: uuid, policyCase: policyCase, because: because)
    }

    /// Claims the request; false (and said why) when another receiver holds it or it was settled.
    private func claim(_ uuid: String, _ policyCase: RefundPolicyCase) async -> Bool {
        var replacing: String?
        while true {
            let now = now()
            let result: PolicyClaimResult
            do {
                result = try await store.claimPolicyAnswer(uuid, claimant: claimant, now: now, until: now.addingTimeInterval(settings.lease), replacing: replacing)
            } catch {
                emit(.retrying, policyCase, uuid, "it cannot be claimed in the store (\(error)); tried again at the next sweep")
                return false
            }
            switch result {
            case .claimed(_, let previous):
                if let previous { emit(.takenOver, policyCase, uuid, "taken over from \(previous), which stopped before it finished") }
                return true
            case .settled(let claim):
                finish(uuid)
                emit(.settled, policyCase, uuid, "\(claim.state.rawValue) already by \(claim.claimant)\(claim.detail.map { ": \($0)" } ?? "")")
                return false
            case .held(let claim):
                if replacing == nil, Self.stoppedOnThisMachine(claim.claimant) {
                    replacing = claim.claimant
                    continue
                }
                emit(.held, policyCase, uuid, "being answered by \(claim.claimant) (until \(DisplayFormat.date(claim.until, seconds: true)))")
                return false
            }
        }
    }

    /// A claimant of this machine whose process is gone.
    static func stoppedOnThisMachine(_ claimant: String) -> Bool {
        guard let at = claimant.lastIndex(of: "@") else { return false }
        let parts = claimant[claimant.index(after: at)...].split(separator: ":")
        guard parts.count == 3, String(parts[0]) == ProcessInfo.processInfo.hostName, let pid = pid_t(parts[1]), pid != getpid() else { return false }
        return kill(pid, 0) != 0 && errno == ESRCH
    }

    private func send(_ body: ConsumptionRequest, uuid: String, policyCase: RefundPolicyCase, because: String) async {
        let request = policyCase.request
        guard let transactionId = request.transactionId else { return }
        let identifier = Self.requestIdentifier(uuid)
        let endpoint = Endpoints.sendConsumptionInformation(transactionId: transactionId, request: body)
        let account = context.account(for: client)
        let subject = "transaction \(transactionId) (refund request \(uuid); customer consent: \(policy.consent?.words ?? "none"))"
        var attempts = 0
        func settle(_ state: PolicyClaim.State, _ kind: Event.Kind, _ detail: String) async {
            let now = now()
            _ = try? await store.updatePolicyClaim(uuid, claimant: claimant, state: state, detail: detail, until: now, now: now)
            finish(uuid)
            emit(kind, policyCase, uuid, detail)
        }
        while !Task.isCancelled {
            let now = now()
            guard now < request.deadline else {
                return await settle(.failed, .failed, "Apple's 12 hours ended (\(DisplayFormat.date(request.deadline))) before an answer was accepted; not sent")
            }
            // Renewed before each attempt: a receiver that lost its claim stops here.
            guard (try? await store.updatePolicyClaim(uuid, claimant: claimant, state: .working, detail: nil, until: now.addingTimeInterval(settings.lease), now: now)) == true else {
                return emit(.held, policyCase, uuid, "another receiver took it over; it answers it")
            }
            let writes: [WriteRecord]
            do {
                writes = try await context.ledger.writes()
            } catch {
                emit(.retrying, policyCase, uuid, "the audit ledger cannot be read (\(error)); nothing sent")
                await wait(attempt: attempts, uuid: uuid)
                attempts += 1
                continue
            }
            let own = writes.last { $0.requestIdentifier == identifier && $0.account == account }
            if let own {
                let last = own.lines.last
                if own.lastOutcome?.outcome == .applied && own.isResolved {
                    return await settle(.answered, .answered, "answered before (\(DisplayFormat.date(own.lastOutcome?.time, seconds: true))): \(RefundPolicyDecision.describe(body))")
                }
                if attempts == 0, last?.event == .intent || last?.event == .resend {
                    // A receiver stopped while this answer was on its way: Apple may have it, and the
                    // policy never answers twice.
                    let note = "the receiver stopped while the policy's answer was being sent; Apple may have it; not sent again (the policy answers once)"
                    try? await context.ledger.append(own.resolution(note: note, source: .policy, agent: policy.agent, now: now))
                    return await settle(.unknown, .unknown, note)
                }
                if attempts == 0, last?.outcome == .refused, !(last?.detail ?? "").contains("429") {
                    return await settle(.failed, .failed, "Apple refused it before: \(last?.detail ?? "refused")")
                }
            }
            let sameTransaction = writes.last {
                $0.requestIdentifier != identifier && $0.intent.write == WriteKind.consumption.rawValue && $0.intent.path == endpoint.path
                    && $0.intent.time >= request.requestedAt.addingTimeInterval(-60) && ($0.lastOutcome?.outcome == .applied || !$0.isResolved)
            }
            if let other = sameTransaction {
                return await settle(.skipped, .skipped, "answered by \(other.intent.agent ?? "someone") \(DisplayFormat.date(other.intent.time)) (\(other.stateLabel)); not sent")
            }
            let seen = own?.lines.count ?? 0
            let ledger = context.ledger
            var sendGuard = SendGuard(
                key: "consumption|" + endpoint.path, seenAt: now,
                matches: { $0.intent.write == WriteKind.consumption.rawValue && $0.intent.path == endpoint.path })
            // Another process's line for this very answer since it was read: read again first.
            sendGuard.recheck = {
                let lines = (try? await ledger.writes())?.last { $0.requestIdentifier == identifier && $0.account == account }?.lines.count ?? 0
                return lines == seen ? nil : "changed meanwhile: another receiver wrote this answer's ledger lines"
            }
            // Not cancelled by a stop: an answer on the wire finishes (within the attempt's time) and
            // its outcome is written, rather than leaving a write nobody knows the end of.
            let (client, context, timeout, clock) = (client, context, settings.attemptTimeout, self.now)
            let result = await Task {
                await Deadline.$current.withValue(Deadline(seconds: timeout)) {
                    await LedgeredWriter.send(
                        endpoint, requestIdentifier: identifier, write: .consumption, subject: subject, resend: own != nil, client: client,
                        context: context, now: clock, guardedBy: sendGuard)
                }
            }.value
            switch result {
            case .applied:
                return await settle(.answered, .answered, "Apple accepted: \(RefundPolicyDecision.describe(body))\(because)")
            case .refused(let error):
                guard case .server(let failure) = error, failure.status == 429 else {
                    return await settle(.failed, .failed, "Apple refused the answer: \(error.summary)")
                }
                emit(.retrying, policyCase, uuid, "Apple is limiting requests (429); sent again later")
                await wait(attempt: attempts, at: failure.retryAfter, uuid: uuid)
            case .unknown(let error):
                emit(.retrying, policyCase, uuid, "no answer that says whether Apple took it (\(error.summary)); sent again with the same values")
                await wait(attempt: attempts, uuid: uuid)
            case .notSent(let reason):
                if reason.hasPrefix("changed meanwhile") && attempts < 3 {
                    attempts += 1
                    continue
                }
                emit(.retrying, policyCase, uuid, "not sent: \(reason)")
                await wait(attempt: attempts, uuid: uuid)
            }
            attempts += 1
        }
    }

    /// The backoff before attempt `attempt + 1` (at least until `retryAfter`), in steps that keep the claim.
    private func wait(attempt: Int, at retryAfter: Date? = nil, uuid: String) async {
        let delays = settings.retryDelays.isEmpty ? [5] : settings.retryDelays
        var delay = delays[min(attempt, delays.count - 1)]
        if let retryAfter { delay = max(delay, retryAfter.timeIntervalSince(now())) }
        var left = delay
        while left > 0, !Task.isCancelled {
            let step = min(left, settings.lease / 3)
            try? await Task.sleep(for: .seconds(step))
            left -= step
            let now = now()
            _ = try? await store.updatePolicyClaim(uuid, claimant: claimant, state: .working, detail: nil, until: now.addingTimeInterval(settings.lease), now: now)
        }
    }
}
