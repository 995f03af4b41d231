import DeskStore
import Synchronization

/// Writes refused bodies to the store's quarantine within its limits. Bodies refused together share
/// one transaction, and at most `maxPending` wait for it; and at most `writesPerSecond` are written
/// (in bursts of twice that). Beyond either, a refused body is answered without being kept (and
/// counted): a flood of them costs no writes, and never queues ahead of notifications.
final class QuarantineKeeper: Sendable {
    enum Outcome: Equatable {
        /// Kept; `count` is how many times this very body has been refused while kept.
        case kept(count: Int)
        case notKept
    }

    let store: any NotificationStore
    let limits: QuarantineLimits
    let counters: ReceiverCounters
    let maxPending: Int
    private let pending = Atomic(0)
    private let batches = GroupCommit<HashedRefusal, QuarantineWrite.Kept>()
    /// The write budget, one bucket for every peer: 0 writes every body.
    private let budget: PeerRateLimiter

    init(store: any NotificationStore, limits: QuarantineLimits, counters: ReceiverCounters, writesPerSecond: Double = 0, maxPending: Int = 256) {
        self.store = store
        self.limits = limits
        self.counters = counters
        self.maxPending = maxPending
        self.budget = PeerRateLimiter(rate: writesPerSecond, burst: 2 * writesPerSecond, unlimited: [])
    }

    /// Throws when the store could not be written.
    func keep(_ refused: RefusedDelivery, bodyHash: String) async throws -> Outcome {
        guard let bounded = (store as? GuardedStore)?.boundedQuarantine ?? (store as? any BoundedQuarantine) else {
            // A store of another kind keeps every body as it always has.
            try await store.quarantine(refused)
            counters.add(.quarantineKept)
            return .kept(count: 1)
        }
        guard budget.admit("quarantine").0 else {
            counters.add(.quarantineNotKept)
            return .notKept
        }
        guard pending.wrappingAdd(1, ordering: .relaxed).newValue <= maxPending else {
            pending.wrappingSubtract(1, ordering: .relaxed)
            counters.add(.quarantineNotKept)
            return .notKept
        }
        defer { pending.wrappingSubtract(1, ordering: .relaxed) }
        let limits = self.limits
        let counters = self.counters
        let kept = try await batches.submit(HashedRefusal(refused, bodyHash: bodyHash)) { batch in
            do {
                let write = try await bounded.quarantine(batch, within: limits)
                counters.add(.quarantineDropped, write.dropped)
                return write.kept.map { .success($0) }
            } catch {
                return batch.map { _ in .failure(error) }
            }
        }
        counters.add(kept.count == 1 ? .quarantineKept : .quarantineRepeats)
        return .kept(count: kept.count)
    }
}
