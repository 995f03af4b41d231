import Synchronization

/// Cuts off body reads that run past their deadline, with one watching task for every read in
/// flight instead of a timer task per request (a task, a timer and three thread hops for each
/// notification, though almost every body arrives at once). The watcher sleeps until the earliest
/// deadline (at most a second): with the receiver's one timeout, deadlines come in the order reads start.
final class ReadDeadlines: Sendable {
    /// A read in flight. `body` is cut before `reader` is cancelled, so the read knows it timed out.
    struct Read: Sendable {
        let deadline: ContinuousClock.Instant
        let body: DeliveryHandler.Collected
        let reader: Task<Void, Never>
    }

    private struct State {
        var next = 0
        var reads: [Int: Read] = [:]
        var watching = false
    }
    private let state = Mutex(State())

    /// Watches `read` until `finish` is called with the number returned.
    func watch(_ read: Read) -> Int {
        let (id, start) = state.withLock { state -> (Int, Bool) in
            state.next += 1
            state.reads[state.next] = read
            defer { state.watching = true }
            return (state.next, !state.watching)
        }
        // Above the requests' priority: a busy receiver must not hold back the cuts it depends on.
        if start { Task.detached(priority: .high) { await self.run() } }
        return id
    }

    func finish(_ id: Int) {
        state.withLock { _ = $0.reads.removeValue(forKey: id) }
    }

    /// Cuts the read off now, as its deadline would; false when it had already ended.
    func cut(_ id: Int) -> Bool {
        guard let read = state.withLock({ $0.reads.removeValue(forKey: id) }) else { return false }
        read.body.cut()
        read.reader.cancel()
        return true
    }

    /// Ends when nothing is left to watch; the next `watch` starts it again.
    private func run() async {
        while true {
            let earliest = state.withLock { state -> ContinuousClock.Instant? in
                guard let earliest = state.reads.values.lazy.map(\.deadline).min() else {
                    state.watching = false
                    return nil
                }
                return earliest
            }
            guard let earliest else { return }
            // At most a second at a time, in case a read with an earlier deadline came in meanwhile.
            try? await Task.sleep(until: min(earliest, .now + .seconds(1)), clock: .continuous)
            let now = ContinuousClock.now
            let expired = state.withLock { state -> [Read] in
                let expired = state.reads.filter { $0.value.deadline <= now }
                for id in expired.keys { state.reads.removeValue(forKey: id) }
                return Array(expired.values)
            }
            for read in expired {
                read.body.cut()
                read.reader.cancel()
            }
        }
    }
}
