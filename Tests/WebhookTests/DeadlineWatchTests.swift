import DeskStore
import Synchronization
import Testing

/// Deadlines watched by one task, on the clock they are given; and a store write's deadline: the write's result when
/// it ends in time, the deadline's error when it does not (the write cancelled and left to end by
/// itself), and the caller's cancellation at once.
@Suite(.timeLimit(.minutes(1))) struct DeadlineWatchTests {
    /// Resumed by the test, so that a write ends only when the test says.
    final class Gate: Sendable {
        private let state = Mutex<(open: Bool, waiting: CheckedContinuation<Void, Never>?)>((false, nil))

        func wait() async {
            await withCheckedContinuation { continuation in
                let open = state.withLock { state -> Bool in
                    if !state.open { state.waiting = continuation }
                    return state.open
                }
                if open { continuation.resume() }
            }
        }

        func open() {
            state.withLock { state -> CheckedContinuation<Void, Never>? in
                state.open = true
                defer { state.waiting = nil }
                return state.waiting
            }?.resume()
        }
    }

    @Test func aWriteThatEndsInTimeGivesItsResult() async throws {
        let watch = DeadlineWatch(priority: .medium)
        let value = try await watch.within(.seconds(600)) { 42 }
        #expect(value == 42)
        await #expect(throws: DeadlinePassed.self) {
            try await watch.within(.seconds(600)) { () async throws -> Int in throw DeadlinePassed(.seconds(1)) }
        }
    }

    @Test func aWriteThatDoesNotEndInTimeGivesTheDeadlineAndIsCancelled() async throws {
        let watch = DeadlineWatch(priority: .medium)
        let gate = Gate()
        let sawCancellation = Locked<Bool?>(nil)
        let ended = Gate()
        do {
            _ = try await watch.within(.milliseconds(50)) { () async -> Int in
                // Ignores cancellation, as a call blocked on a silent server does.
                await gate.wait()
                sawCancellation.withLock { $0 = Task.isCancelled }
                ended.open()
                return 1
            }
            Issue.record("the write was answered though it had not ended")
        } catch let error as DeadlinePassed {
            #expect(error == DeadlinePassed(.milliseconds(50)))
        }
        gate.open()
        await ended.wait()
        #expect(sawCancellation.withLock { $0 } == true)
    }

    @Test func aCancelledCallerIsAnsweredAtOnce() async throws {
        let watch = DeadlineWatch(priority: .medium)
        let gate = Gate()
        let started = Gate()
        let caller = Task {
            try await watch.within(.seconds(600)) { () async -> Int in
                started.open()
                await gate.wait()
                return 1
            }
        }
        await started.wait()
        caller.cancel()
        await #expect(throws: CancellationError.self) { try await caller.value }
        gate.open()
    }

    /// On a clock that moves only when the test says: an entry expires when the clock reaches its
    /// deadline, and a finished one never does.
    @Test func entriesExpireWhenTheirClockReachesTheDeadlineUnlessFinished() async throws {
        let clock = ManualClock()
        let watch = DeadlineWatch(priority: .medium, clock: clock)
        let finishedRan = Locked(false)
        let expired = Gate()
        let finished = watch.watch(for: .milliseconds(100)) { finishedRan.withLock { $0 = true } }
        let watched = watch.watch(for: .milliseconds(100)) { expired.open() }
        watch.finish(finished)
        await clock.sleepsBegun(atLeast: 1)
        clock.advance(by: .milliseconds(100))
        await expired.wait()
        #expect(finishedRan.withLock { $0 } == false)
        #expect(watch.expireNow(watched) == false, "an expired entry is no longer watched")
    }
}
