@testable import DeskStore
import Foundation
import Synchronization
import Testing

/// Deliveries that arrive together share one transaction, and each caller still gets its own outcome.
@Suite struct GroupCommitTests {
    @Test func concurrentWritesShareCommitsAndEachGetsItsOwnResult() async throws {
        let queue = GroupCommit<Int, Int>()
        let commits = Mutex<[[Int]]>([])
        let commit: GroupCommit<Int, Int>.Commit = { batch in
            commits.withLock { $0.append(batch) }
            // Long enough for the others to queue behind the first.
            try? await Task.sleep(nanoseconds: 20_000_000)
            return batch.map { $0 == 13 ? .failure(CancellationError()) : .success($0 * 2) }
        }
        let results = await withTaskGroup(of: (Int, Int?).self) { group in
            for item in 0..<40 {
                group.addTask { (item, try? await queue.submit(item, commit: commit)) }
            }
            return await group.reduce(into: [Int: Int?]()) { $0[$1.0] = $1.1 }
        }
        #expect(results.count == 40)
        for item in 0..<40 { #expect(results[item] == (item == 13 ? nil : item * 2)) }
        let batches = commits.withLock { $0 }
        // Every item was committed exactly once, in fewer transactions than items.
        #expect(batches.flatMap { $0 }.sorted() == Array(0..<40))
        #expect(batches.count < 40)
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
        let queue = GroupCommit<Int, Int>(deadline: .milliseconds(200))
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
        await #expect(throws: GroupCommitError.timedOut(.milliseconds(200))) { try await hanging.value }
        #expect(await outcome { try await queued.value }.isTimedOutOr(20))
        // Callers time out by their own clocks, the commit a moment later by its own.
        while queue.stuckCommits < 1 { try await Task.sleep(for: .milliseconds(5)) }
        // A fresh chance: the next write is committed while the first commit is still stuck.
        #expect(try await queue.submit(3, commit: commit) == 30)
        stuck.open()
        while queue.stuckCommits > 0 { try await Task.sleep(for: .milliseconds(5)) }
        #expect(try await queue.submit(4, commit: commit) == 40)
    }

    /// Abandoned commits are not piled up: while two are stuck, writes fail at once without a commit;
    /// once one ends, writes are committed again.
    @Test func whileTwoCommitsAreStuckWritesFailAtOnceUntilOneEnds() async throws {
        let queue = GroupCommit<Int, Int>(deadline: .milliseconds(100), maxStuck: 2)
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
        // Each caller times out by its own clock, each commit a moment later by its own.
        var item = 0
        while queue.stuckCommits < 2 {
            let next = item
            await #expect(throws: GroupCommitError.self) { try await queue.submit(next, commit: commit) }
            item += 1
        }
        hanging.withLock { $0 = false }
        await #expect(throws: GroupCommitError.stuck(2)) { try await queue.submit(7, commit: commit) }
        #expect(committed.withLock { $0 } == 0)
        stuck.open()
        while queue.stuckCommits > 0 { try await Task.sleep(for: .milliseconds(5)) }
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
        while queue.waitingCount < 1 { try await Task.sleep(for: .milliseconds(5)) }
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
