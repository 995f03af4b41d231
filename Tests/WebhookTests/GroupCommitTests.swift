import Foundation
import Synchronization
import Testing
@testable import WebhookStore

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
}
