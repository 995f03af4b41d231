import DeskStore
import Foundation
import Synchronization

/// What the receiver says about its store: when writes begin to fail, and when one succeeds again.
public enum StoreHealthEvent: Sendable, Equatable {
    /// A write failed: requests are answered 503 until the store can be written again.
    case down(cause: String)
    /// A write succeeded after `lasted`; `refused` requests were answered 503 at once meanwhile.
    case up(lasted: Duration, refused: Int)
}

/// The store as the receiver writes it. Every write answers within `deadline` (and a quarter of a
/// second, so that a store's own deadline, which says more, comes first), whatever the store does.
/// A write that fails may have failed on its own (a value the server refuses, which anyone who can
/// post a body might provoke): the store's `checkWritable` decides whether the store is down. While
/// it is, writes fail at once instead of piling up behind it, and the check is asked every
/// `checkInterval`; when it says yes, writes go through again, and the first that succeeds ends the
/// outage. Reads go straight through.
final class GuardedStore: NotificationStore {
    let inner: any NotificationStore
    let deadline: Duration
    let checkInterval: Duration
    private let report: @Sendable (StoreHealthEvent) -> Void
    private let health = Mutex(Health.up)
    /// When a write or a check last said the store can be written.
    private let confirmed = Mutex(ContinuousClock.now)
    /// Past this without a write, /healthz asks the store itself.
    let healthQuiet: Duration
    /// Every write's deadline, watched by one task rather than a timer task per write, at the
    /// requests' priority as the timers it replaces were: the store's own deadline, a quarter of a
    /// second earlier, says more (which server did not answer) and must come first.
    private let writeDeadlines = DeadlineWatch(priority: .medium)

    enum Health {
        case up
        /// A write failed: the check says whether the store is down; writes go on meanwhile.
        /// Since the write (or health check) that failed: an outage is counted from then.
        case checking(cause: String, since: ContinuousClock.Instant)
        case down(Outage)
    }

    struct Outage {
        let since: ContinuousClock.Instant
        var cause: String
        var refused = 0
        /// A check said the store can be written: writes go through to find out.
        var open = false
    }

    static let margin: Duration = .milliseconds(250)

    init(
        _ inner: any NotificationStore, deadline: Duration, checkInterval: Duration = .seconds(1), healthQuiet: Duration = .seconds(5),
        report: @escaping @Sendable (StoreHealthEvent) -> Void
    ) {
        self.inner = inner
        self.deadline = deadline
        self.checkInterval = checkInterval
        self.healthQuiet = healthQuiet
        self.report = report
    }

    /// Whether writes go through now (for /healthz): the store is up, or a check said it is back.
    var accepting: Bool {
        health.withLock { health in
            if case .down(let outage) = health { return outage.open }
            return true
        }
    }

    /// Since when and why the store is down, while it is.
    var outage: (since: ContinuousClock.Instant, cause: String)? {
        health.withLock { health in
            if case .down(let outage) = health { return (outage.since, outage.cause) }
            return nil
        }
    }

    /// A write while the store is known to be down, refused without trying.
    struct Down: Error, CustomStringConvertible {
        let cause: String
        var description: String { "the store is down (\(cause))" }
    }

    func write<T: Sendable>(_ body: @escaping @Sendable () async throws -> T) async throws -> T {
        let refusal = health.withLock { health -> Down? in
            guard case .down(var outage) = health, !outage.open else { return nil }
            outage.refused += 1
            health = .down(outage)
            return Down(cause: outage.cause)
        }
        if let refusal { throw refusal }
        do {
            let value = try await writeDeadlines.within(deadline + Self.margin) { try await body() }
            succeeded()
            return value
        } catch is CancellationError {
            // The receiver is stopping, which says nothing about the store.
            throw CancellationError()
        } catch {
            failed(error)
            throw error
        }
    }

    private func succeeded() {
        confirmed.withLock { $0 = .now }
        let ended = health.withLock { health -> StoreHealthEvent? in
            switch health {
            case .up: return nil
            case .checking:
                health = .up
                return nil
            case .down(let outage):
                health = .up
                return .up(lasted: ContinuousClock.now - outage.since, refused: outage.refused)
            }
        }
        if let ended { report(ended) }
    }

    private func failed(_ error: any Error) {
        let check = health.withLock { health -> Bool in
            switch health {
            case .up:
                health = .checking(cause: "\(error)", since: .now)
                return true
            case .checking:
                return false
            case .down(var outage):
                // The check was wrong, or the store failed again: the same outage goes on.
                outage.open = false
                health = .down(outage)
                return false
            }
        }
        guard check else { return }
        Task { [weak self] in await self?.decide() }
    }

    /// For /healthz: when no write has said so for `healthQuiet`, asks the store itself, so that a
    /// receiver with nothing arriving whose store went away answers 503 and a load balancer sends
    /// elsewhere. Asked at most once at a time; a failed check is an outage as a failed write's is.
    func confirmWritable() async {
        let due = health.withLock { health -> Bool in
            guard case .up = health, ContinuousClock.now - confirmed.withLock({ $0 }) >= healthQuiet else { return false }
            health = .checking(cause: "", since: .now)
            return true
        }
        guard due else { return }
        do {
            try await withinDeadline(deadline + Self.margin) { [inner] in try await inner.checkWritable() }
            confirmed.withLock { $0 = .now }
            health.withLock { health in if case .checking = health { health = .up } }
        } catch {
            health.withLock { health in if case .checking(_, let since) = health { health = .checking(cause: "\(error)", since: since) } }
            settle(writable: false)
        }
    }

    /// After a failed write: down if the store's check fails too, else the write failed on its own.
    private func decide() async {
        settle(writable: await checked())
    }

    private func settle(writable: Bool) {
        if writable { confirmed.withLock { $0 = .now } }
        let cause = health.withLock { health -> String? in
            guard case .checking(let cause, let since) = health else { return nil }
            health = writable ? .up : .down(Outage(since: since, cause: cause))
            return writable ? nil : cause
        }
        guard let cause else { return }
        report(.down(cause: cause))
        Task { [weak self, checkInterval] in
            while true {
                guard (try? await Task.sleep(for: checkInterval)) != nil, let store = self else { return }
                guard await store.checkOnce() else { return }
            }
        }
    }

    private func checked() async -> Bool {
        do {
            try await withinDeadline(deadline + Self.margin) { [inner] in try await inner.checkWritable() }
            return true
        } catch {
            return false
        }
    }

    /// Asks the store whether it can be written, unless writes go through already. False once the outage is over.
    private func checkOnce() async -> Bool {
        let down = health.withLock { health -> Bool? in
            guard case .down(let outage) = health else { return nil }
            return !outage.open
        }
        guard let down else { return false }
        guard down, await checked() else { return true }
        health.withLock { health in
            guard case .down(var outage) = health else { return }
            outage.open = true
            health = .down(outage)
        }
        return true
    }

    // MARK: Writes, guarded

    func record(_ delivery: NotificationDelivery) async throws -> RecordOutcome {
        try await write { [inner] in try await inner.record(delivery) }
    }

    func recordForward(_ forward: ForwardOutcome, delivery: Int64) async throws {
        try await write { [inner] in try await inner.recordForward(forward, delivery: delivery) }
    }

    @discardableResult
    func quarantine(_ body: RefusedDelivery) async throws -> Int64 {
        try await write { [inner] in try await inner.quarantine(body) }
    }

    @discardableResult
    func recordReplay(_ replay: ReplayAttempt) async throws -> Int64 {
        try await write { [inner] in try await inner.recordReplay(replay) }
    }

    func checkWritable() async throws { try await inner.checkWritable() }

    // MARK: Reads

    func notifications(_ filter: NotificationFilter) async throws -> [StoredNotification] { try await inner.notifications(filter) }
    func deliveries(ofNotification id: Int64) async throws -> [StoredDelivery] { try await inner.deliveries(ofNotification: id) }
    func quarantined(_ filter: QuarantineFilter) async throws -> [QuarantinedDelivery] { try await inner.quarantined(filter) }
    func notifications(uuids: Set<String>) async throws -> [StoredNotification] { try await inner.notifications(uuids: uuids) }
    func count(concerning transactionIds: Set<String>) async throws -> Int { try await inner.count(concerning: transactionIds) }
    func notifications(signedIn window: Range<Date>, bodies: Bool) async throws -> [StoredNotification] { try await inner.notifications(signedIn: window, bodies: bodies) }
    func replays(uuids: Set<String>) async throws -> [StoredReplay] { try await inner.replays(uuids: uuids) }
    func close() async throws { try await inner.close() }
}

extension GuardedStore {
    /// The inner store's bounded quarantine, written with the same deadline and health as every
    /// other write; nil when the inner store keeps every body as it comes.
    var boundedQuarantine: (any BoundedQuarantine)? {
        (inner as? any BoundedQuarantine).map { GuardedQuarantine(store: self, bounded: $0) }
    }
}

/// A bounded quarantine whose writes go through a `GuardedStore`.
struct GuardedQuarantine: BoundedQuarantine {
    let store: GuardedStore
    let bounded: any BoundedQuarantine

    func quarantine(_ bodies: [HashedRefusal], within limits: QuarantineLimits) async throws -> QuarantineWrite {
        try await store.write { [bounded] in try await bounded.quarantine(bodies, within: limits) }
    }

    func quarantineUsage() async throws -> (bodies: Int, bytes: Int) { try await bounded.quarantineUsage() }
}
