@testable import DeskStore
import Foundation
import Synchronization
import Testing

/// Deliveries that arrive together share one transaction, and each caller still gets its own outcome.
/// The tests wait for events (a commit entered, writes queued, a deadline's sleep begun), never
/// for a time: each one's bound is the time limit, which only a hang reaches.
@Suite(.timeLimit(.minutes(3))) struct GroupCommitTests {
    @Test func concurrentWritesShareCommitsAndEachGetsItsOwnResult() async throws {
        let queue = GroupCommit<Int, Int>()
        let commits = Batches()
        let entered = Gate()
        let release = Gate()
        let commit: GroupCommit<Int, Int>.Commit = { batch in
            commits.append(batch)
            // The first commit lasts until every other write has queued behind it.
            entered.open()
            await release.wait()
            return batch.map { $0 == 13 ? .failure(CancellationError()) : .success($0 * 2) }
        }
        let results = await withTaskGroup(of: (Int, Int?)?.self) { group in
            for item in 0..<40 {
                group.addTask { (item, try? await queue.submit(item, commit: commit)) }
            }
            group.addTask {
                await entered.wait()
                await whenTrue { commits.items.count + queue.waitingCount == 40 }
                release.open()
                return nil
            }
            return await group.reduce(into: [Int: Int?]()) { if case let (item, result)? = $1 { $0[item] = result } }
        }
        #expect(results.count == 40)
        for item in 0..<40 { #expect(results[item] == (item == 13 ? nil : item * 2)) }
        let batches = commits.all
        // Every item was committed exactly once: those the first commit took, then all the others together.
        #expect(batches.flatMap { $0 }.sorted() == Array(0..<40))
        #expect(batches.count <= 2, "\(batches)")
    }

    @Test func aBurstIntoTheStoreIsStoredOnceEachWithItsDeliveryCount() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let store = try await SQLiteNotificationStore.open(path: folder.storePath)
        // 100 notifications, each delivered three times at once, as Apple's retries and a burst do.
        let outcomes = try await withThrowingTaskGroup(of: RecordOutcome.self) { group in
            for copy in 0..<3 {
                for index in 0..<100 {
                    group.addTask {
                        var delivery = NotificationDelivery(
                            notificationUUID: "burst-\(index)", rawBody: Data("{\"copy\":\(copy)}".utf8), verdict: "verified", receivedAt: Date())
                        delivery.notificationType = "DID_RENEW"
                        return try await store.record(delivery)
                    }
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(outcomes.count == 300)
        #expect(Set(outcomes.map(\.deliveryId)).count == 300)
        #expect(outcomes.filter { !$0.isDuplicate }.count == 100)
        let rows = try await store.notifications(NotificationFilter())
        #expect(rows.count == 100)
        #expect(rows.allSatisfy { $0.deliveryCount == 3 })
        try await store.close()
    }

    /// A commit that never returns (a database call that ignores cancellation) fails its callers at
    /// the deadline; the next writes are committed by a fresh commit, and the stuck one's late
    /// results are dropped.
    @Test func aCommitThatNeverReturnsFailsItsCallersAtTheDeadlineAndTheNextWritesGetAFreshChance() async throws {
        // The deadline passes when the test moves the clock, and only then: a write expected to be
        // committed is never failed by a busy machine.
        let clock = ManualClock()
        let queue = GroupCommit<Int, Int>(deadline: .milliseconds(200), clock: clock)
        let stuck = Gate()
        let entered = Gate()
        let firstCommit = Mutex(true)
        let commit: GroupCommit<Int, Int>.Commit = { batch in
            let first = firstCommit.withLock { first -> Bool in
                defer { first = false }
                return first
            }
            if first {
                entered.open()
                await stuck.waitIgnoringCancellation()
            }
            return batch.map { .success($0 * 10) }
        }
        let hanging = Task { try await queue.submit(1, commit: commit) }
        await entered.wait()
        // Queued behind the stuck commit: it fails at its own deadline, or is committed by the next one.
        let queued = Task { try await queue.submit(2, commit: commit) }
        // The callers' deadline watcher (one sleep for both: their deadlines are the same instant) and the commit's timer.
        await clock.sleepsBegun(atLeast: 2)
        clock.advance(by: .milliseconds(200))
        await #expect(throws: GroupCommitError.timedOut(.milliseconds(200))) { try await hanging.value }
        #expect(await outcome { try await queued.value }.isTimedOutOr(20))
        // Callers time out on their own timers, the commit on its own.
        await whenTrue { queue.stuckCommits == 1 }
        // A fresh chance: the next write is committed while the first commit is still stuck.
        #expect(try await queue.submit(3, commit: commit) == 30)
        stuck.open()
        await whenTrue { queue.stuckCommits == 0 }
        #expect(try await queue.submit(4, commit: commit) == 40)
    }

    /// Abandoned commits are not piled up: while two are stuck, writes fail at once without a commit;
    /// once one ends, writes are committed again.
    @Test func whileTwoCommitsAreStuckWritesFailAtOnceUntilOneEnds() async throws {
        let clock = ManualClock()
        let queue = GroupCommit<Int, Int>(deadline: .milliseconds(100), maxStuck: 2, clock: clock)
        let stuck = Gate()
        let hanging = Mutex(true)
        let committed = Mutex(0)
        let commit: GroupCommit<Int, Int>.Commit = { batch in
            if hanging.withLock({ $0 }) {
                await stuck.waitIgnoringCancellation()
            } else {
                committed.withLock { $0 += 1 }
            }
            return batch.map { .success($0) }
        }
        for item in 0..<2 {
            let write = Task { try await queue.submit(item, commit: commit) }
            // The callers' deadline watcher and the commit's timer, then the deadline passes.
            await clock.sleepsBegun(atLeast: 2 * (item + 1))
            clock.advance(by: .milliseconds(100))
            await #expect(throws: GroupCommitError.timedOut(.milliseconds(100))) { try await write.value }
            await whenTrue { queue.stuckCommits == item + 1 }
        }
        hanging.withLock { $0 = false }
        await #expect(throws: GroupCommitError.stuck(2)) { try await queue.submit(7, commit: commit) }
        #expect(committed.withLock { $0 } == 0)
        stuck.open()
        await whenTrue { queue.stuckCommits == 0 }
        #expect(try await queue.submit(8, commit: commit) == 8)
        #expect(committed.withLock { $0 } == 1)
    }

    /// A caller cancelled while its write waits returns at once; a write nobody waits for any more is not made.
    @Test func aCancelledCallerReturnsAtOnceAndItsQueuedWriteIsDropped() async throws {
        let queue = GroupCommit<Int, Int>()
        let release = Gate()
        let entered = Gate()
        let written = Mutex<[Int]>([])
        let commit: GroupCommit<Int, Int>.Commit = { batch in
            written.withLock { $0 += batch }
            entered.open()
            await release.waitIgnoringCancellation()
            return batch.map { .success($0) }
        }
        let first = Task { try await queue.submit(1, commit: commit) }
        await entered.wait()
        let second = Task { try await queue.submit(2, commit: commit) }
        await whenTrue { queue.waitingCount == 1 }
        second.cancel()
        await #expect(throws: CancellationError.self) { try await second.value }
        release.open()
        #expect(try await first.value == 1)
        #expect(written.withLock { $0 } == [1])
    }
}

/// Opened once; waiters wait until then, whether or not they are cancelled.
final class Gate: Sendable {
    private let state = Mutex<(open: Bool, waiters: [CheckedContinuation<Void, Never>])>((false, []))

    func open() {
        let waiters = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.open = true
            defer { state.waiters = [] }
            return state.waiters
        }
        waiters.forEach { $0.resume() }
    }

    func wait() async { await waitIgnoringCancellation() }

    func waitIgnoringCancellation() async {
        await withCheckedContinuation { continuation in
            let now = state.withLock { state -> Bool in
                if state.open { return true }
                state.waiters.append(continuation)
                return false
            }
            if now { continuation.resume() }
        }
    }
}

/// The batches a commit was given, in order.
final class Batches: Sendable {
    private let batches = Mutex<[[Int]]>([])

    func append(_ batch: [Int]) { batches.withLock { $0.append(batch) } }
    var all: [[Int]] { batches.withLock { $0 } }
    var items: [Int] { all.flatMap { $0 } }
}

/// Returns once `condition` holds, looking every few milliseconds: the pause only paces the looking,
/// and the test's time limit bounds it.
func whenTrue(_ condition: () -> Bool) async {
    while !condition() { try? await Task.sleep(for: .milliseconds(5)) }
}

/// A clock that moves only when the test moves it: a deadline on it passes when the test says, never
/// because a busy machine was slow.
final class ManualClock: Clock, Sendable {
    struct Instant: InstantProtocol {
        var offset: Duration

        func advanced(by duration: Duration) -> Instant { Instant(offset: offset + duration) }
        func duration(to other: Instant) -> Duration { other.offset - offset }
        static func < (left: Instant, right: Instant) -> Bool { left.offset < right.offset }
    }

    private struct State {
        var now = Instant(offset: .zero)
        var begun = 0
        var sleeping: [Int: (deadline: Instant, continuation: CheckedContinuation<Void, any Error>)] = [:]
        var watching: [(count: Int, continuation: CheckedContinuation<Void, Never>)] = []
    }

    private let state = Mutex(State())

    var now: Instant { state.withLock { $0.now } }
    var minimumResolution: Duration { .zero }

    func sleep(until deadline: Instant, tolerance: Duration? = nil) async throws {
        let id = state.withLock { state -> Int in
            state.begun += 1
            return state.begun
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let (now, watchers) = state.withLock { state -> (Result<Void, any Error>?, [CheckedContinuation<Void, Never>]) in
                    let ready = state.watching.filter { $0.count <= state.begun }.map(\.continuation)
                    state.watching.removeAll { $0.count <= state.begun }
                    if Task.isCancelled { return (.failure(CancellationError()), ready) }
                    if deadline <= state.now { return (.success(()), ready) }
                    state.sleeping[id] = (deadline, continuation)
                    return (nil, ready)
                }
                watchers.forEach { $0.resume() }
                if let now { continuation.resume(with: now) }
            }
        } onCancel: {
            state.withLock { $0.sleeping.removeValue(forKey: id) }?.continuation.resume(throwing: CancellationError())
        }
    }

    /// Moves the clock on: every sleep whose deadline it reaches ends.
    func advance(by duration: Duration) {
        let due = state.withLock { state -> [CheckedContinuation<Void, any Error>] in
            state.now = state.now.advanced(by: duration)
            let now = state.now
            let due = state.sleeping.filter { $0.value.deadline <= now }
            for id in due.keys { state.sleeping[id] = nil }
            return due.map(\.value.continuation)
        }
        due.forEach { $0.resume() }
    }

    /// Returns once `count` sleeps have begun since the clock was made (ended ones count too).
    func sleepsBegun(atLeast count: Int) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let now = state.withLock { state -> Bool in
                if state.begun >= count { return true }
                state.watching.append((count, continuation))
                return false
            }
            if now { continuation.resume() }
        }
    }
}

func outcome(_ body: () async throws -> Int) async -> Result<Int, any Error> {
    do { return .success(try await body()) } catch { return .failure(error) }
}

extension Result where Success == Int {
    /// Failed at its deadline, or (on a machine slow enough that the stuck commit was already
    /// abandoned when it was taken) committed with `value`.
    func isTimedOutOr(_ value: Int) -> Bool {
        switch self {
        case .success(let got): return got == value
        case .failure(let error): return (error as? GroupCommitError).map { if case .timedOut = $0 { return true } else { return false } } ?? false
        }
    }
}
