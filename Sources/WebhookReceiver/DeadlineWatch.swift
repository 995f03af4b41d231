import DeskStore
import Synchronization

/// Runs each watched entry's expiry when its deadline passes, with one watching task for every
/// entry in flight instead of a timer task per entry: a sleeping task and its cancellation cost
/// about 10 µs of CPU (a fifth of a P-256 verify), though almost every entry ends long before its
/// deadline. The watcher sleeps until the earliest deadline, at most a second at a time, so entries
/// given one duration each (deadlines in the order they are watched) expire on time.
final class DeadlineWatch: Sendable {
    private struct Entry {
        let deadline: ContinuousClock.Instant
        let expire: @Sendable () -> Void
    }

    private struct State {
        var next = 0
        var entries: [Int: Entry] = [:]
        var watching = false
    }
    private let state = Mutex(State())
    /// The watching task's priority.
    private let priority: TaskPriority

    /// - Parameter priority: high for deadlines a busy receiver must not hold back (body reads);
    ///   the callers' own for a deadline that backs up one of theirs and must not overtake it (a
    ///   store write, whose store says more when its own deadline, a little earlier, comes first).
    init(priority: TaskPriority) {
        self.priority = priority
    }

    /// Runs `expire` once `deadline` has passed, unless `finish` is called first with the number returned.
    func watch(until deadline: ContinuousClock.Instant, expire: @escaping @Sendable () -> Void) -> Int {
        let (id, start) = state.withLock { state -> (Int, Bool) in
            state.next += 1
            state.entries[state.next] = Entry(deadline: deadline, expire: expire)
            defer { state.watching = true }
            return (state.next, !state.watching)
        }
        if start { Task.detached(priority: priority) { await self.run() } }
        return id
    }

    func finish(_ id: Int) {
        state.withLock { _ = $0.entries.removeValue(forKey: id) }
    }

    /// Runs the entry's expiry now, as its deadline would; false when it had already ended.
    func expireNow(_ id: Int) -> Bool {
        guard let entry = state.withLock({ $0.entries.removeValue(forKey: id) }) else { return false }
        entry.expire()
        return true
    }

    /// Ends when nothing is left to watch; the next `watch` starts it again.
    private func run() async {
        while true {
            let earliest = state.withLock { state -> ContinuousClock.Instant? in
                guard let earliest = state.entries.values.lazy.map(\.deadline).min() else {
                    state.watching = false
                    return nil
                }
                return earliest
            }
            guard let earliest else { return }
            // At most a second at a time, in case an entry with an earlier deadline came in meanwhile.
            try? await Task.sleep(until: min(earliest, .now + .seconds(1)), clock: .continuous)
            let now = ContinuousClock.now
            let expired = state.withLock { state -> [Entry] in
                let expired = state.entries.filter { $0.value.deadline <= now }
                for id in expired.keys { state.entries.removeValue(forKey: id) }
                return Array(expired.values)
            }
            for entry in expired { entry.expire() }
        }
    }

    /// `body`'s result, or `DeadlinePassed(duration)` thrown once `duration` has passed since the
    /// body began, whichever comes first; a cancelled caller gets CancellationError at once. As
    /// DeskStore's `withinDeadline`, the body runs in a task of its own, which is cancelled and left
    /// to end by itself when the caller stops waiting for it (a store call blocked on a silent
    /// server may ignore cancellation).
    func within<T: Sendable>(_ duration: Duration, _ body: @escaping @Sendable () async throws -> T) async throws -> T {
        let outcome = FirstOutcome<T>()
        let work = Task {
            // Timed from the body's start, as a store's own deadline inside it is: on a loaded
            // machine a task can wait for a thread longer than the margin between the two, and a
            // deadline counted from the call would overtake the store's, which says more.
            let watched = watch(until: .now + duration) { outcome.settle(.failure(DeadlinePassed(duration))) }
            defer { finish(watched) }
            do { outcome.settle(.success(try await body())) } catch { outcome.settle(.failure(error)) }
        }
        // Nothing when the work has ended; else it is told to stop, whether or not it listens.
        defer { work.cancel() }
        return try await withTaskCancellationHandler {
            try await outcome.value()
        } onCancel: {
            outcome.settle(.failure(CancellationError()))
        }
    }
}

/// The first result given, to a caller that waits for it: the work's, its deadline's or its cancellation's.
private final class FirstOutcome<T: Sendable>: Sendable {
    private let state = Mutex<(result: Result<T, any Error>?, continuation: CheckedContinuation<T, any Error>?)>((nil, nil))

    func settle(_ result: Result<T, any Error>) {
        let waiting = state.withLock { state -> CheckedContinuation<T, any Error>? in
            guard state.result == nil else { return nil }
            state.result = result
            defer { state.continuation = nil }
            return state.continuation
        }
        waiting?.resume(with: result)
    }

    func value() async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            let ready = state.withLock { state -> Result<T, any Error>? in
                if let result = state.result { return result }
                state.continuation = continuation
                return nil
            }
            if let ready { continuation.resume(with: ready) }
        }
    }
}
