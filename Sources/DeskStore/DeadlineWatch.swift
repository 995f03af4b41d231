import Synchronization

/// Runs each watched entry's expiry when its deadline passes, with one watching task for every
/// entry in flight instead of a timer task per entry: a sleeping task and its cancellation cost
/// about 10 µs of CPU (a fifth of a P-256 verify), though almost every entry ends long before its
/// deadline. The watcher sleeps until the earliest deadline, at most a second at a time, so entries
/// given one duration each (deadlines in the order they are watched) expire on time.
public final class DeadlineWatch: Sendable {
    private struct Entry {
        /// On the clock, counted from when the watch was made.
        let deadline: Duration
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
    /// Time on the clock since the watch was made.
    private let elapsed: @Sendable () -> Duration
    /// Sleeps until that much time on the clock since the watch was made: an instant, not a span,
    /// so that a clock moved while the watcher looks does not push its wake-up later.
    private let sleepUntil: @Sendable (Duration) async throws -> Void

    /// - Parameter priority: high for deadlines a busy receiver must not hold back (body reads);
    ///   the callers' own for a deadline that backs up one of theirs and must not overtake it (a
    ///   store write, whose store says more when its own deadline, a little earlier, comes first).
    /// - Parameter clock: what deadlines are measured on (a test's own moves only when it says).
    public init<C: Clock<Duration>>(priority: TaskPriority, clock: C = ContinuousClock()) {
        self.priority = priority
        let origin = clock.now
        elapsed = { origin.duration(to: clock.now) }
        sleepUntil = { try await clock.sleep(until: origin.advanced(by: $0), tolerance: nil) }
    }

    /// Runs `expire` once `duration` has passed on the clock, unless `finish` is called first with
    /// the number returned.
    public func watch(for duration: Duration, expire: @escaping @Sendable () -> Void) -> Int {
        let deadline = elapsed() + duration
        let (id, start) = state.withLock { state -> (Int, Bool) in
            state.next += 1
            state.entries[state.next] = Entry(deadline: deadline, expire: expire)
            defer { state.watching = true }
            return (state.next, !state.watching)
        }
        if start { Task.detached(priority: priority) { await self.run() } }
        return id
    }

    public func finish(_ id: Int) {
        state.withLock { _ = $0.entries.removeValue(forKey: id) }
    }

    /// Runs the entry's expiry now, as its deadline would; false when it had already ended.
    public func expireNow(_ id: Int) -> Bool {
        guard let entry = state.withLock({ $0.entries.removeValue(forKey: id) }) else { return false }
        entry.expire()
        return true
    }

    /// Ends when nothing is left to watch; the next `watch` starts it again.
    private func run() async {
        while true {
            let earliest = state.withLock { state -> Duration? in
                guard let earliest = state.entries.values.lazy.map(\.deadline).min() else {
                    state.watching = false
                    return nil
                }
                return earliest
            }
            guard let earliest else { return }
            // At most a second at a time, in case an entry with an earlier deadline came in meanwhile.
            try? await sleepUntil(min(earliest, elapsed() + .seconds(1)))
            let now = elapsed()
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
    /// `withinDeadline`, the body runs in a task of its own, which is cancelled and left to end by
    /// itself when the caller stops waiting for it (a store call blocked on a silent server may
    /// ignore cancellation).
    public func within<T: Sendable>(_ duration: Duration, _ body: @escaping @Sendable () async throws -> T) async throws -> T {
        let outcome = FirstResult<T>()
        let work = Task {
            // Timed from the body's start, as a store's own deadline inside it is: on a loaded
            // machine a task can wait for a thread longer than the margin between the two, and a
            // deadline counted from the call would overtake the store's, which says more.
            let watched = watch(for: duration) { outcome.settle(.failure(DeadlinePassed(duration))) }
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
