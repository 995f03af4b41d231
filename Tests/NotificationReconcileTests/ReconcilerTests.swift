import AppStoreServerAPI
import DeskStore
import Foundation
import NotificationReconcile
import Testing

/// A week of Apple's history and a store, with one notification of each kind of gap.
struct ReconcileFixture {
    static let now = Date(timeIntervalSince1970: 1_800_000_000)
    static let window = now.addingTimeInterval(-7 * 86_400)..<now

    static func at(_ hoursAgo: Double) -> Date { now.addingTimeInterval(-hoursAgo * 3_600) }

    static func attempt(_ hoursAgo: Double, _ result: SendAttemptResult) -> SendAttemptItem {
        SendAttemptItem(attemptDate: at(hoursAgo), sendAttemptResult: result)
    }

    static func entry(_ uuid: String?, signed hoursAgo: Double, _ attempts: [SendAttemptItem], verification: VerificationStatus = .verified) -> NotificationHistoryEntry {
        NotificationHistoryEntry(
            notificationUUID: uuid, notificationType: "DID_RENEW", signedDate: at(hoursAgo), attempts: attempts,
            signedPayload: uuid.map { "jws-of-\($0)" }, verification: verification)
    }

    static func stored(_ uuid: String, id: Int64, arrived hoursAgo: Double, count: Int = 1, signed: Double? = nil) -> StoredNotification {
        var row = StoredNotification(
            id: id, notificationUUID: uuid, rawBody: Data(#"{"signedPayload":"stored-\#(uuid)"}"#.utf8), firstReceivedAt: at(hoursAgo),
            deliveryCount: count)
        row.signedDate = signed.map(at)
        return row
    }

    static let history: [NotificationHistoryEntry] = [
        entry("received", signed: 100, [attempt(100, .success)]),
        // Stored at once but answered too late for Apple: TIMED_OUT, no retry yet.
        entry("late-answer", signed: 90, [attempt(90, .timedOut)]),
        // Delivered per Apple, to a URL that is not this receiver.
        entry("elsewhere", signed: 80, [attempt(80, .success)]),
        entry("never", signed: 70, [attempt(70, .tlsIssue), attempt(69, .tlsIssue)]),
        entry("retried", signed: 60, [attempt(60, .timedOut), attempt(59, .success)]),
        // Apple has not tried yet: counts as not delivered.
        entry("pending", signed: 1, []),
        entry("UPPER-CASE-IN-STORE", signed: 50, [attempt(50, .success)]),
        entry(nil, signed: 40, [attempt(40, .success)]),
    ]

    static let store: [StoredNotification] = [
        stored("received", id: 1, arrived: 100 - 0.001),
        stored("late-answer", id: 2, arrived: 90 - 0.002),
        stored("retried", id: 3, arrived: 59, count: 2),
        stored("upper-case-in-store", id: 4, arrived: 50),
        // Another environment's notification, signed inside the window.
        stored("sandbox-one", id: 5, arrived: 30, signed: 30),
        // Signed long before the window (a late retry): outside, as in Apple's history.
        stored("old", id: 6, arrived: 2, signed: 24 * 30),
    ]
}

@Suite struct ReconcilerTests {
    typealias F = ReconcileFixture

    @Test func eachNotificationGetsExactlyOneVerdict() {
        let report = Reconciler.reconcile(history: F.history, stored: F.store, window: F.window)
        let verdicts = Dictionary(uniqueKeysWithValues: report.rows.map { ($0.notificationUUID, $0.verdict) })
        #expect(verdicts == [
            "received": .received, "late-answer": .failedAtAppleButArrived, "elsewhere": .deliveredButMissing,
            "never": .notDeliveredAndMissing, "retried": .duplicate, "pending": .notDeliveredAndMissing,
            "UPPER-CASE-IN-STORE": .received, "sandbox-one": .unknownToApple,
        ])
        #expect(report.rows.count == 8)
        #expect(report.unreadable.count == 1)
        #expect(report.hasGaps)
        #expect(report.counts == [
            .received: 2, .failedAtAppleButArrived: 1, .deliveredButMissing: 1, .notDeliveredAndMissing: 2, .unknownToApple: 1, .duplicate: 1,
            .testNotification: 0, .recovered: 0, .forwardFailed: 0,
        ])
    }

    @Test func aMissingNotificationThatARePostDeliveredIsRecoveredAndNoGap() {
        func replay(_ uuid: String, id: Int64, status: Int?, command: String = "recover") -> StoredReplay {
            StoredReplay(id: id, attempt: ReplayAttempt(
                notificationUUID: uuid, targetURL: "https://app.example.com/hook", source: .appleHistory, command: command,
                sentAt: F.at(1), result: status.map { "HTTP \($0)" } ?? "not delivered: cannot connect", status: status, milliseconds: 12))
        }
        // "never" failed once then went through; "elsewhere" was re-posted to an endpoint that was down.
        let replays = [replay("never", id: 1, status: nil), replay("NEVER", id: 2, status: 200, command: "replay"), replay("elsewhere", id: 3, status: 503)]
        let report = Reconciler.reconcile(history: F.history, stored: F.store, replays: replays, window: F.window)
        let never = report.rows.first { $0.notificationUUID == "never" }
        #expect(never?.verdict == .recovered)
        #expect(never?.replays.count == 2, "every re-post is kept with the row, whatever the case of its UUID")
        #expect(never?.recovery?.attempt.command == "replay")
        #expect(report.rows.first { $0.notificationUUID == "elsewhere" }?.verdict == .deliveredButMissing, "a re-post the app refused recovers nothing")
        #expect(!ReconcileVerdict.recovered.isGap)

        // Once the rest is recovered too, only the notification unknown to Apple is a gap.
        let all = replays + [replay("elsewhere", id: 4, status: 200), replay("pending", id: 5, status: 204)]
        let fixed = Reconciler.reconcile(history: F.history, stored: F.store, replays: all, window: F.window)
        #expect(fixed.counts[.recovered] == 3)
        #expect(fixed.rows.filter(\.verdict.isGap).map(\.notificationUUID) == ["sandbox-one"])

        // Re-posted to this receiver itself: stored after the re-post, so it was the re-post that brought it.
        var arrived = F.store
        arrived.append(F.stored("never", id: 9, arrived: 0.5))
        let viaReceiver = Reconciler.reconcile(history: F.history, stored: arrived, replays: replays, window: F.window)
        #expect(viaReceiver.rows.first { $0.notificationUUID == "never" }?.verdict == .recovered)
        // One that arrived long before any re-post keeps its own verdict.
        #expect(viaReceiver.rows.first { $0.notificationUUID == "received" }?.verdict == .received)
    }

    @Test func aTestNotificationThatArrivedIsNoGap() {
        var test = F.stored("test-one", id: 50, arrived: 3, signed: 3)
        test.notificationType = "TEST"
        let report = Reconciler.reconcile(history: [], stored: [test], window: F.window)
        #expect(report.rows.map(\.verdict) == [.testNotification])
        #expect(!report.hasGaps)
        var other = F.stored("other-one", id: 51, arrived: 3, signed: 3)
        other.notificationType = "DID_RENEW"
        #expect(Reconciler.reconcile(history: [], stored: [other], window: F.window).rows.map(\.verdict) == [.unknownToApple])
    }

    @Test func rowsAreOldestFirstAndCarryBothSides() throws {
        let report = Reconciler.reconcile(history: F.history, stored: F.store, window: F.window)
        #expect(report.rows.map(\.time) == report.rows.map(\.time).sorted())
        #expect(report.rows.first?.notificationUUID == "received")
        #expect(report.rows.last?.notificationUUID == "pending")
        let unknown = try #require(report.rows.first { $0.verdict == .unknownToApple })
        #expect(unknown.apple == nil)
        #expect(unknown.stored?.id == 5)
        let missing = try #require(report.rows.first { $0.notificationUUID == "elsewhere" })
        #expect(missing.stored == nil)
        #expect(missing.apple?.lastAttempt?.sendAttemptResult == .success)
    }

    @Test func lateArrivalIsMeasuredFromSigningAndFromTheFailedAttempt() throws {
        let report = Reconciler.reconcile(history: F.history, stored: F.store, window: F.window)
        let late = try #require(report.rows.first { $0.notificationUUID == "late-answer" })
        #expect(abs((late.arrivalAfterSigned ?? 0) - 7.2) < 0.01)
        #expect(abs((late.arrivalAfterFailedAttempt ?? 0) - 7.2) < 0.01)
        let retried = try #require(report.rows.first { $0.notificationUUID == "retried" })
        #expect(abs((retried.arrivalAfterFailedAttempt ?? 0) - 3_600) < 0.01)
    }

    @Test func aStoreInStepWithAppleHasNoGaps() {
        let history = [F.entry("a", signed: 10, [F.attempt(10, .success)]), F.entry("b", signed: 5, [F.attempt(5, .timedOut), F.attempt(4, .success)])]
        let store = [F.stored("a", id: 1, arrived: 10), F.stored("b", id: 2, arrived: 4, count: 2)]
        let report = Reconciler.reconcile(history: history, stored: store, window: F.window)
        #expect(!report.hasGaps)
        #expect(report.rows.map(\.verdict) == [.received, .duplicate])
        #expect(Reconciler.reconcile(history: [], stored: [], window: F.window).hasGaps == false)
    }

    @Test func aHistoryEntryThatCannotBeReadIsAGapOfItsOwn() {
        let report = Reconciler.reconcile(history: [F.entry(nil, signed: 10, [F.attempt(10, .success)])], stored: [], window: F.window)
        #expect(report.rows.isEmpty)
        #expect(report.unreadable.count == 1)
        #expect(report.hasGaps)
    }

    @Test func anUnverifiedHistoryEntryIsJoinedAndReported() {
        let forged = VerificationStatus.failed(.invalidSignature)
        let history = [F.entry("a", signed: 10, [F.attempt(10, .success)], verification: forged)]
        let report = Reconciler.reconcile(history: history, stored: [F.stored("a", id: 1, arrived: 10)], window: F.window)
        #expect(report.rows.map(\.verdict) == [.received])
        #expect(report.unverified.map(\.notificationUUID) == ["a"])
    }

    @Test func storedButNotForwardedToTheAppIsAGapUntilARePostReachesIt() throws {
        var store = F.store
        let index = try #require(store.firstIndex { $0.notificationUUID == "received" })
        store[index].forwardResult = "HTTP 500"
        store[index].forwardStatus = 500
        let report = Reconciler.reconcile(history: F.history, stored: store, window: F.window)
        #expect(report.rows.first { $0.notificationUUID == "received" }?.verdict == .forwardFailed)
        #expect(ReconcileVerdict.forwardFailed.isGap)
        // A forward that never answered counts the same.
        store[index].forwardResult = "timed out after 10 s"
        store[index].forwardStatus = nil
        #expect(Reconciler.reconcile(history: F.history, stored: store, window: F.window).rows.first { $0.notificationUUID == "received" }?.verdict == .forwardFailed)
        // recover re-posted the stored body and the app took it: recovered.
        let replay = StoredReplay(id: 1, attempt: ReplayAttempt(
            notificationUUID: "received", targetURL: "https://app.example.com/hook", source: .store, command: "recover", sentAt: F.at(0.5),
            result: "HTTP 200", status: 200, milliseconds: 9))
        let fixed = Reconciler.reconcile(history: F.history, stored: store, replays: [replay], window: F.window)
        #expect(fixed.rows.first { $0.notificationUUID == "received" }?.verdict == .recovered)
    }

    @Test func onlyMissingAndUnknownNotificationsAreGaps() {
        #expect(ReconcileVerdict.allCases.filter(\.isGap) == [.deliveredButMissing, .notDeliveredAndMissing, .forwardFailed, .unknownToApple])
        #expect(ReconcileVerdict.allCases.allSatisfy { !$0.title.isEmpty && !$0.action.isEmpty })
    }
}

@Suite struct RecoveryPlanTests {
    typealias F = ReconcileFixture

    func forwarded(_ row: StoredNotification, result: String, status: Int?) -> StoredNotification {
        var row = row
        row.forwardResult = result
        row.forwardStatus = status
        return row
    }

    @Test func whatTheAppDidNotGetIsRecoveredWhetherAppleFailedOrDeliveredElsewhere() throws {
        let store = F.store.filter { $0.notificationUUID != "late-answer" } + [
            forwarded(F.stored("late-answer", id: 2, arrived: 90), result: "timed out after 10 s", status: nil),
            forwarded(F.stored("forwarded-ok", id: 7, arrived: 20), result: "HTTP 200", status: 200),
            F.stored("kept-here", id: 8, arrived: 15),
        ]
        let history = F.history + [
            F.entry("forwarded-ok", signed: 20, [F.attempt(20, .timedOut)]),
            F.entry("kept-here", signed: 15, [F.attempt(15, .noResponse)]),
            F.entry("forged", signed: 12, [F.attempt(12, .timedOut)], verification: .failed(.invalidSignature)),
        ]
        let plan = RecoveryPlan.make(history: history, stored: store, replays: [], target: "http://app/hook")
        #expect(plan.candidates.map(\.notificationUUID) == ["late-answer", "elsewhere", "never", "pending"])
        let late = try #require(plan.candidates.first)
        // The stored body goes as it arrived; the others are built from Apple's signedPayload.
        #expect(late.source == .store)
        #expect(late.body == Data(#"{"signedPayload":"stored-late-answer"}"#.utf8))
        #expect(plan.candidates[1].reason.contains("SUCCESS to the URL it has, yet it never arrived here"))
        #expect(plan.candidates[2].source == .appleHistory)
        #expect(plan.candidates[2].body == Data(#"{"signedPayload":"jws-of-never"}"#.utf8))
        #expect(plan.candidates[2].reason.contains("TLS_ISSUE"))
        let skipped = Dictionary(uniqueKeysWithValues: plan.skipped.compactMap { skip in skip.notificationUUID.map { ($0, skip.reason) } })
        #expect(skipped["forwarded-ok"]?.contains("forward succeeded") == true)
        #expect(skipped["kept-here"]?.contains("not forwarded") == true)
        #expect(skipped["forged"]?.contains("did not verify") == true)
        // Delivered per Apple and stored here: it reached the app; neither sent nor listed as skipped.
        #expect(skipped["received"] == nil)
        #expect(!plan.candidates.contains { $0.notificationUUID == "received" || $0.notificationUUID == "retried" })
    }

    @Test func aNotificationAlreadyRecoveredToTheSameURLIsNotSentAgain() {
        let done = StoredReplay(id: 1, attempt: ReplayAttempt(
            notificationUUID: "never", targetURL: "http://app/hook", source: .appleHistory, command: "recover", sentAt: F.now, result: "HTTP 200",
            status: 200, milliseconds: 3))
        var failed = done
        failed.attempt.notificationUUID = "pending"
        failed.attempt.status = 500
        failed.attempt.result = "HTTP 500"
        let plan = RecoveryPlan.make(history: F.history, stored: F.store, replays: [done, failed], target: "http://app/hook")
        #expect(plan.candidates.map(\.notificationUUID) == ["elsewhere", "pending"])
        #expect(plan.skipped.contains { $0.notificationUUID == "never" && $0.reason.contains("already recovered") })
        // To another URL it goes again.
        let elsewhere = RecoveryPlan.make(history: F.history, stored: F.store, replays: [done], target: "http://other/hook")
        #expect(elsewhere.candidates.map(\.notificationUUID) == ["elsewhere", "never", "pending"])
    }
}

/// A notification forwarded to the app by one delivery reached it, whatever a later retry's forward gave.
@Suite struct ForwardHistoryTests {
    @Test func anEarlierDeliverysForwardCountsWhenTheLatestFailed() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("iapdesk-forwards-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let store = try await SQLiteNotificationStore.open(path: folder + "/store.sqlite")
        let delivery = NotificationDelivery(notificationUUID: "n", rawBody: Data("{}".utf8), verdict: "verified", receivedAt: Date())
        let first = try await store.record(delivery)
        try await store.recordForward(ForwardOutcome(result: "HTTP 200", status: 200, milliseconds: 3, answeredStatus: 200, elapsedMilliseconds: 4), delivery: first.deliveryId)
        let second = try await store.record(delivery)
        try await store.recordForward(ForwardOutcome(result: "HTTP 500", status: 500, milliseconds: 3, answeredStatus: 200, elapsedMilliseconds: 4), delivery: second.deliveryId)
        let rows = try await store.notifications(uuids: ["n"])
        #expect(rows.first?.forwardStatus == 500, "the row carries the latest delivery's forward")
        let settled = try await ForwardHistory.settled(rows, in: store)
        #expect(settled.first?.forwardStatus == 200)
        // Never forwarded to the app by any delivery: it stays failed.
        let other = NotificationDelivery(notificationUUID: "m", rawBody: Data("{}".utf8), verdict: "verified", receivedAt: Date())
        let only = try await store.record(other)
        try await store.recordForward(ForwardOutcome(result: "timed out after 10 s", status: nil, milliseconds: 10_000, answeredStatus: 200, elapsedMilliseconds: 10_001), delivery: only.deliveryId)
        _ = try await store.record(other)
        let failed = try await ForwardHistory.settled(try await store.notifications(uuids: ["m"]), in: store)
        #expect(failed.first?.forwardResult == "timed out after 10 s")
        try await store.close()
    }
}
