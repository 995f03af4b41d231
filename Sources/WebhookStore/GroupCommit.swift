import Synchronization

/// Writes that arrive while one transaction commits wait and go together in the next one, so
/// concurrent deliveries share one fsync instead of queueing for one each. Each caller returns only
/// after the transaction holding its write has committed.
public final class GroupCommit<Item: Sendable, Output: Sendable>: Sendable {
    public typealias Commit = @Sendable ([Item]) async -> [Result<Output, any Error>]

    private struct State {
        var waiting: [(item: Item, slot: Slot)] = []
        var committing = false
    }

    private let state = Mutex(State())
    private let maxBatch: Int

    public init(maxBatch: Int = 256) {
        self.maxBatch = maxBatch
    }

    /// `commit` writes a batch in one transaction and gives one result per item, in order. The
    /// caller that finds nobody committing starts a task that commits for everyone waiting, batch
    /// after batch, until nobody waits. That task runs at high priority: between a batch's
    /// statements it waits for a thread, and at the priority of requests it waited behind the
    /// signature checks of every request in flight, which held up every delivery of the batch.
    public func submit(_ item: Item, commit: @escaping Commit) async throws -> Output {
        let slot = Slot()
        let leads = state.withLock { state -> Bool in
            state.waiting.append((item, slot))
            guard !state.committing else { return false }
            state.committing = true
            return true
        }
        if leads { Task(priority: .high) { await self.drain(commit) } }
        return try await slot.value()
    }

    /// Commits batches until nobody waits.
    private func drain(_ commit: @escaping Commit) async {
        while true {
            let batch = state.withLock { state -> [(item: Item, slot: Slot)] in
                let taken = Array(state.waiting.prefix(maxBatch))
                state.waiting.removeFirst(taken.count)
                if taken.isEmpty { state.committing = false }
                return taken
            }
            guard !batch.isEmpty else { return }
            let results = await commit(batch.map(\.item))
            for (index, waiting) in batch.enumerated() {
                waiting.slot.fill(index < results.count ? results[index] : .failure(GroupCommitError.noResult))
            }
        }
    }

    /// One caller's result, filled once by whoever commits its write.
    final class Slot: Sendable {
        private let state = Mutex<(result: Result<Output, any Error>?, continuation: CheckedContinuation<Output, any Error>?)>((nil, nil))

        var isFilled: Bool { state.withLock { $0.result != nil } }

        func fill(_ result: Result<Output, any Error>) {
            let waiting = state.withLock { state -> CheckedContinuation<Output, any Error>? in
                state.result = result
                defer { state.continuation = nil }
                return state.continuation
            }
            waiting?.resume(with: result)
        }

        func value() async throws -> Output {
            try await withCheckedThrowingContinuation { continuation in
                let ready = state.withLock { state -> Result<Output, any Error>? in
                    if let result = state.result { return result }
                    state.continuation = continuation
                    return nil
                }
                if let ready { continuation.resume(with: ready) }
            }
        }
    }
}

enum GroupCommitError: Error {
    case noResult
}
