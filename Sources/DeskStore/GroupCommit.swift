import Synchronization

/// Writes that arrive while one transaction commits wait and go together in the next one, so
/// concurrent deliveries share one fsync instead of queueing for one each. Each caller returns only
/// after the transaction holding its write has committed, or failed, or (with a deadline) once the
/// deadline has passed: then its write may still be committed later, and the caller must say it was not.
public final class GroupCommit<Item: Sendable, Output: Sendable>: Sendable {
    public typealias Commit = @Sendable ([Item]) async -> [Result<Output, any Error>]

    private struct State {
        var waiting: [(item: Item, slot: FirstResult<Output>)] = []
        var committing = false
    }

    private let state = Mutex(State())
    private let maxBatch: Int
    private let deadline: Duration?
    private let maxStuck: Int
    private let clock: any Clock<Duration>
    private let stuck = AbandonedCalls()
    /// Every caller's deadline, watched by one task rather than a timer task per write.
    private let writeDeadlines: DeadlineWatch

    /// With a `deadline`, each caller returns within it whatever the commit does. A batch still
    /// committing at its deadline is abandoned (it ends by itself, its results dropped) and the next
    /// batch gets a fresh chance; while `maxStuck` abandoned commits still run, batches fail at once
    /// instead of piling up more of them. Deadlines are measured on `clock`.
    public init(maxBatch: Int = 256, deadline: Duration? = nil, maxStuck: Int = 2, clock: any Clock<Duration> = ContinuousClock()) {
        self.maxBatch = maxBatch
        self.deadline = deadline
        self.maxStuck = max(1, maxStuck)
        self.clock = clock
        // At the requests' priority, as the timers it replaces were.
        writeDeadlines = DeadlineWatch(priority: .medium, clock: clock)
    }

    /// Abandoned commits that have not ended yet.
    public var stuckCommits: Int { stuck.running }
    /// Writes waiting for a commit to take them.
    var waitingCount: Int { state.withLock { $0.waiting.count } }

    /// `commit` writes a batch in one transaction and gives one result per item, in order. The
    /// caller that finds nobody committing starts a task that commits for everyone waiting, batch
    /// after batch, until nobody waits. That task runs at high priority: between a batch's
    /// statements it waits for a thread, and at the priority of requests it waited behind the
    /// signature checks of every request in flight, which held up every delivery of the batch.
    public func submit(_ item: Item, commit: @escaping Commit) async throws -> Output {
        let slot = FirstResult<Output>()
        let leads = state.withLock { state -> Bool in
            state.waiting.append((item, slot))
            guard !state.committing else { return false }
            state.committing = true
            return true
        }
        if leads { Task(priority: .high) { await self.drain(commit) } }
        let watched = deadline.map { deadline in
            writeDeadlines.watch(for: deadline) { slot.settle(.failure(GroupCommitError.timedOut(deadline))) }
        }
        defer { watched.map(writeDeadlines.finish) }
        return try await withTaskCancellationHandler {
            try await slot.value()
        } onCancel: {
            slot.settle(.failure(CancellationError()))
        }
    }

    /// Commits batches until nobody waits.
    private func drain(_ commit: @escaping Commit) async {
        while true {
            let batch = state.withLock { state -> [(item: Item, slot: FirstResult<Output>)] in
                // A caller that gave up before its write was taken is not written.
                state.waiting.removeAll { $0.slot.isSettled }
                let taken = Array(state.waiting.prefix(maxBatch))
                state.waiting.removeFirst(taken.count)
                if taken.isEmpty { state.committing = false }
                return taken
            }
            guard !batch.isEmpty else { return }
            let results = await commitOrGiveUp(batch.map(\.item), commit)
            for (index, waiting) in batch.enumerated() {
                waiting.slot.settle(index < results.count ? results[index] : .failure(GroupCommitError.noResult))
            }
        }
    }

    private func commitOrGiveUp(_ items: [Item], _ commit: @escaping Commit) async -> [Result<Output, any Error>] {
        let running = stuck.running
        if running >= maxStuck { return items.map { _ in .failure(GroupCommitError.stuck(running)) } }
        guard let deadline else { return await commit(items) }
        do {
            return try await withinDeadline(deadline, abandoned: stuck, onTimeout: { GroupCommitError.timedOut(deadline) }, clock: clock) {
                await commit(items)
            }
        } catch {
            return items.map { _ in .failure(error) }
        }
    }
}

public enum GroupCommitError: Error, CustomStringConvertible, Equatable {
    case noResult
    /// The write did not end within the deadline.
    case timedOut(Duration)
    /// Earlier writes still run past their deadline; none more is started until one ends.
    case stuck(Int)

    public var description: String {
        switch self {
        case .noResult: return "the write gave no result"
        case .timedOut(let deadline): return "the write did not end within \(WriteDeadline.words(deadline))"
        case .stuck(let count): return "\(count) earlier write\(count == 1 ? " is" : "s are") still stuck past the deadline"
        }
    }
}
