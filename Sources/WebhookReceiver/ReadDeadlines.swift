import DeskStore

/// Cuts off body reads that run past their deadline, all watched by one `DeadlineWatch` (a task, a
/// timer and three thread hops for each notification otherwise, though almost every body arrives at
/// once). With the receiver's one timeout, deadlines come in the order reads start.
final class ReadDeadlines: Sendable {
    /// A read in flight. `body` is cut before `reader` is cancelled, so the read knows it timed out.
    struct Read: Sendable {
        let deadline: ContinuousClock.Instant
        let body: DeliveryHandler.Collected
        let reader: Task<Void, Never>
    }

    /// Above the requests' priority: a busy receiver must not hold back the cuts it depends on.
    private let watcher = DeadlineWatch(priority: .high)

    /// Watches `read` until `finish` is called with the number returned.
    func watch(_ read: Read) -> Int {
        watcher.watch(for: read.deadline - .now) {
            read.body.cut()
            read.reader.cancel()
        }
    }

    func finish(_ id: Int) {
        watcher.finish(id)
    }

    /// Cuts the read off now, as its deadline would; false when it had already ended.
    func cut(_ id: Int) -> Bool {
        watcher.expireNow(id)
    }
}
