import Foundation
import Testing
@testable import WebhookReceiver

/// One watcher cuts off every read that runs past its deadline, and only those.
@Suite struct ReadDeadlinesTests {
    @Test func aReadPastItsDeadlineIsCutAndCancelledAndTheOthersAreNot() async throws {
        let deadlines = ReadDeadlines()
        func read(_ body: DeliveryHandler.Collected, for duration: Duration) -> Task<Void, Never> {
            Task {
                try? await Task.sleep(for: duration)
                body.finish()
            }
        }
        let quick = DeliveryHandler.Collected()
        let quickReader = read(quick, for: .milliseconds(10))
        // Far off, so that a machine busy enough to hold the quick read back cannot make it late.
        let quickId = deadlines.watch(.init(deadline: .now + .seconds(600), body: quick, reader: quickReader))
        let stuck = DeliveryHandler.Collected()
        let stuckReader = read(stuck, for: .seconds(180))
        let stuckId = deadlines.watch(.init(deadline: .now + .milliseconds(200), body: stuck, reader: stuckReader))
        await quickReader.value
        deadlines.finish(quickId)
        let started = ContinuousClock.now
        await stuckReader.value
        deadlines.finish(stuckId)
        // A bound, not a speed: without the watcher the read would take its full 180 s; the test
        // pool, busy with CPU-heavy suites at the start of a run, can hold the cut back for tens of seconds.
        #expect(ContinuousClock.now - started < .seconds(120))
        #expect(stuckReader.isCancelled)
        #expect(stuck.snapshot().cut)
        #expect(!quick.snapshot().cut)
        #expect(!quickReader.isCancelled)
    }
}
