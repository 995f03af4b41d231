import AppStoreServerAPI
import DemoServer
import DeskStore
import Foundation
import Testing
import WebhookReceiver

/// The receiver over loopback with every kind of body Apple or anyone else may send.
@Suite struct ReceiverTests {
    @Test func aValidNotificationIsStoredThenAnswered200() async throws {
        let bench = try await ReceiverBench.start()
        let uuid = UUID().uuidString.lowercased()
        let jws = try bench.notifications.payload(uuid: uuid, subtype: .billingRecovery, transactionId: "2000000111111111")
        let answer = try await bench.post(Notifications.body(jws))
        #expect(answer.status == 200)
        #expect(answer.body.isEmpty)
        let rows = try await bench.store.notifications(NotificationFilter())
        #expect(rows.count == 1)
        let row = try #require(rows.first)
        #expect(row.notificationUUID == uuid)
        #expect(row.notificationType == "DID_RENEW")
        #expect(row.subtype == "BILLING_RECOVERY")
        #expect(row.verdict == "verified")
        #expect(row.verdictDetail == "Verified: notification, transaction")
        #expect(row.environment == "Production")
        #expect(row.bundleId == DemoServer.bundleId)
        #expect(row.appAppleId == DemoServer.appAppleId)
        #expect(row.transactionId == "2000000111111111")
        #expect(row.originalTransactionId == "2000000000000001")
        #expect(row.productId == "com.iapdesk.demo.pro.monthly")
        #expect(row.deliveryCount == 1)
        #expect(row.answeredStatus == 200)
        #expect(row.rawBody == Notifications.body(jws))
        #expect(row.signedDate != nil)
        #expect(row.remoteAddress?.hasPrefix("127.0.0.1:") == true)
        let decoded = try #require(row.decodedPayload)
        let object = try #require(try JSONSerialization.jsonObject(with: decoded) as? [String: Any])
        #expect(object["notificationUUID"] as? String == uuid)
        let arrivals = bench.log.all
        #expect(arrivals.count == 1)
        #expect(arrivals.first?.outcome == .stored)
        #expect(arrivals.first?.status == 200)
        await bench.stop()
    }

    @Test func aRepeatedDeliveryIsStoredOnceAndCounted() async throws {
        let bench = try await ReceiverBench.start()
        let uuid = UUID().uuidString.lowercased()
        let body = Notifications.body(try bench.notifications.payload(uuid: uuid))
        #expect(try await bench.post(body).status == 200)
        #expect(try await bench.post(body).status == 200)
        let rows = try await bench.store.notifications(NotificationFilter())
        #expect(rows.count == 1)
        #expect(rows.first?.deliveryCount == 2)
        let deliveries = try await bench.store.deliveries(ofNotification: try #require(rows.first?.id))
        #expect(deliveries.count == 2)
        #expect(deliveries.allSatisfy { $0.answeredStatus == 200 })
        #expect(bench.log.all.map(\.outcome) == [.stored, .duplicate])
        #expect(bench.log.all.last?.deliveryCount == 2)
        await bench.stop()
    }

    @Test func concurrentDeliveriesOfOneNotificationAreStoredOnce() async throws {
        let bench = try await ReceiverBench.start()
        let body = Notifications.body(try bench.notifications.payload())
        let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<16 { group.addTask { try await bench.post(body).status } }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(statuses == Array(repeating: 200, count: 16))
        let rows = try await bench.store.notifications(NotificationFilter())
        #expect(rows.count == 1)
        #expect(rows.first?.deliveryCount == 16)
        await bench.stop()
    }

    @Test func aTamperedSignatureIsRefusedAndQuarantined() async throws {
        let bench = try await ReceiverBench.start()
        let uuid = UUID().uuidString.lowercased()
        let body = Notifications.body(Notifications.tampered(try bench.notifications.payload(uuid: uuid)))
        let answer = try await bench.post(body)
        #expect(answer.status == 400)
        #expect(answer.error?.contains("The notification did not verify") == true)
        #expect(answer.error?.contains("signature") == true)
        #expect(try await bench.store.notifications(NotificationFilter()).isEmpty)
        let quarantined = try await bench.store.quarantined(QuarantineFilter())
        #expect(quarantined.count == 1)
        #expect(quarantined.first?.reason == "invalid-signature")
        #expect(quarantined.first?.body == body)
        #expect(quarantined.first?.truncated == false)
        #expect(quarantined.first?.notificationUUID == uuid)
        #expect(quarantined.first?.answeredStatus == 400)
        await bench.stop()
    }

    @Test func aTamperedNestedTransactionIsRefused() async throws {
        let bench = try await ReceiverBench.start()
        var transaction = TransactionPayload()
        transaction.transactionId = "2000000999999999"
        transaction.bundleId = DemoServer.bundleId
        transaction.environment = .production
        transaction.signedDate = Date()
        var payload = NotificationPayload()
        payload.notificationType = .oneTimeCharge
        payload.notificationUUID = UUID().uuidString.lowercased()
        payload.signedDate = Date()
        var data = NotificationData()
        data.bundleId = DemoServer.bundleId
        data.appAppleId = DemoServer.appAppleId
        data.environment = .production
        data.signedTransactionInfo = Notifications.tampered(try bench.demo.sign(transaction))
        payload.data = data
        let answer = try await bench.post(Notifications.body(try bench.demo.sign(payload)))
        #expect(answer.status == 400)
        #expect(answer.error?.hasPrefix("The nested transaction did not verify") == true)
        #expect(try await bench.store.quarantined(QuarantineFilter()).first?.reason == "invalid-signature")
        #expect(try await bench.store.notifications(NotificationFilter()).isEmpty)
        await bench.stop()
    }

    @Test func anotherAppsNotificationIsRefusedWithThatReason() async throws {
        let bench = try await ReceiverBench.start()
        let answer = try await bench.post(Notifications.body(try bench.notifications.payload(bundleId: "com.example.other")))
        #expect(answer.status == 400)
        #expect(answer.error?.contains("bundle ID com.example.other, not \(DemoServer.bundleId)") == true)
        #expect(try await bench.store.quarantined(QuarantineFilter()).map(\.reason) == ["wrong-bundle-id"])
        #expect(try await bench.store.notifications(NotificationFilter()).isEmpty)
        await bench.stop()
    }

    @Test func anotherEnvironmentsNotificationIsRefusedWithThatReason() async throws {
        let bench = try await ReceiverBench.start()
        let answer = try await bench.post(Notifications.body(try bench.notifications.payload(environment: .sandbox)))
        #expect(answer.status == 400)
        #expect(answer.error?.contains("from Sandbox, not Production") == true)
        #expect(try await bench.store.quarantined(QuarantineFilter()).map(\.reason) == ["wrong-environment"])
        await bench.stop()
    }

    @Test func anotherAppAppleIDIsRefusedWithThatReason() async throws {
        let bench = try await ReceiverBench.start()
        var payload = NotificationPayload()
        payload.notificationType = .test
        payload.notificationUUID = UUID().uuidString.lowercased()
        payload.signedDate = Date()
        var data = NotificationData()
        data.bundleId = DemoServer.bundleId
        data.appAppleId = 1
        data.environment = .production
        payload.data = data
        let answer = try await bench.post(Notifications.body(try bench.demo.sign(payload)))
        #expect(answer.status == 400)
        #expect(answer.error?.contains("app Apple ID 1, not \(DemoServer.appAppleId)") == true)
        #expect(try await bench.store.quarantined(QuarantineFilter()).map(\.reason) == ["wrong-app-apple-id"])
        await bench.stop()
    }

    @Test func aBodyOverOneMebibyteIsRefusedUnread() async throws {
        let bench = try await ReceiverBench.start()
        let body = Data(repeating: UInt8(ascii: "x"), count: (1 << 20) + 1)
        let answer = try await bench.post(body)
        #expect(answer.status == 400)
        #expect(answer.error?.contains("larger than 1048576 bytes") == true)
        let entry = try #require(try await bench.store.quarantined(QuarantineFilter()).first)
        #expect(entry.reason == "too-large")
        #expect(entry.bodySize == (1 << 20) + 1)
        #expect(entry.truncated)
        #expect(entry.body.count <= 64 << 10)
        await bench.stop()
    }

    @Test func exactlyOneMebibyteIsReadAndJudgedOnItsContent() async throws {
        let bench = try await ReceiverBench.start()
        let answer = try await bench.post(Data(repeating: UInt8(ascii: "x"), count: 1 << 20))
        #expect(answer.status == 400)
        #expect(answer.error == "The body is not JSON.")
        // Kept as its hash, its size and its first 4 KiB: bodies that large are not Apple's.
        let kept = try #require(try await bench.store.quarantined(QuarantineFilter()).first)
        #expect(kept.body.count == 4 << 10)
        #expect(kept.bodySize == 1 << 20)
        #expect(kept.truncated)
        #expect(kept.bodyHash?.count == 64)
        await bench.stop()
    }

    @Test func bodiesThatAreNotNotificationsAreRefusedAndKept() async throws {
        let bench = try await ReceiverBench.start()
        let cases: [(Data, String, String)] = [
            (Data("<html>hello</html>".utf8), "not-json", "The body is not JSON."),
            (Data("[1,2]".utf8), "not-json-object", "The body is JSON but not an object like {\"signedPayload\": \"...\"}."),
            (Data(#"{"payload":"x"}"#.utf8), "no-signed-payload", "The body has no signedPayload string."),
            (Data(#"{"signedPayload":"not.a.jws"}"#.utf8), "malformed-jws", ""),
            (Data(), "not-json", "The body is not JSON."),
        ]
        for (body, _, message) in cases {
            let answer = try await bench.post(body)
            #expect(answer.status == 400)
            if !message.isEmpty { #expect(answer.error == message) }
        }
        let kept = try await bench.store.quarantined(QuarantineFilter())
        #expect(kept.map(\.reason) == cases.map(\.1))
        #expect(kept.map(\.body) == cases.map(\.0))
        #expect(try await bench.store.notifications(NotificationFilter()).isEmpty)
        await bench.stop()
    }

    @Test func otherMethodsAndPathsAreNotNotifications() async throws {
        let bench = try await ReceiverBench.start()
        let get = try await bench.post(Data(), method: "GET")
        #expect(get.status == 405)
        #expect(get.error == "Only POST is accepted here.")
        let elsewhere = try await bench.post(Data("{}".utf8), path: "/other")
        #expect(elsewhere.status == 404)
        #expect(try await bench.store.quarantined(QuarantineFilter()).isEmpty)
        await bench.stop()
    }

    @Test func aStoreThatCannotWriteGets503NeverA200() async throws {
        let bench = try await ReceiverBench.start { _ in FailingStore() }
        let answer = try await bench.post(Notifications.body(try bench.notifications.payload()))
        #expect(answer.status == 503)
        #expect(answer.error?.contains("could not be stored") == true)
        let refused = try await bench.post(Data("nope".utf8))
        #expect(refused.status == 503)
        #expect(bench.log.all.map(\.outcome) == [.storeFailed, .storeFailed])
        await bench.stop()
    }

    @Test func noMoreThanTheLimitAreHandledAtOnce() async throws {
        let slow = SlowStore(inner: nil)
        let bench = try await ReceiverBench.start(store: { path in
            slow.inner = try await SQLiteNotificationStore.open(path: path)
            return slow
        }, configure: { $0.maxConcurrentRequests = 2 })
        let bodies = try (0..<6).map { _ in Notifications.body(try bench.notifications.payload()) }
        let posting = Task {
            try await withThrowingTaskGroup(of: Int.self) { group in
                for body in bodies { group.addTask { try await bench.post(body).status } }
                return try await group.reduce(into: []) { $0.append($1) }
            }
        }
        // Every request has arrived: two are in the store's write, four wait for a slot.
        // A bound only a hang reaches.
        let deadline = ContinuousClock.now + .seconds(120)
        while bench.receiver.waiting < 4 || slow.holding < 2, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(5)) }
        #expect(bench.receiver.waiting == 4)
        #expect(bench.receiver.inFlight == 2)
        #expect(slow.holding == 2)
        slow.release()
        #expect(try await posting.value == Array(repeating: 200, count: 6))
        #expect(try await slow.notifications(NotificationFilter()).count == 6)
        await bench.stop()
    }

    @Test func aStopFinishesRequestsInFlight() async throws {
        let slow = SlowStore(inner: nil)
        let bench = try await ReceiverBench.start { path in
            slow.inner = try await SQLiteNotificationStore.open(path: path)
            return slow
        }
        let body = Notifications.body(try bench.notifications.payload())
        let posting = Task { try await bench.post(body) }
        // The request is inside the store's write when the stop begins.
        // A bound only a hang reaches.
        let deadline = ContinuousClock.now + .seconds(120)
        while !slow.entered, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(5)) }
        #expect(slow.entered)
        let stopping = Task { await bench.receiver.stop() }
        // Released only once the receiver no longer takes new connections.
        var refusing = false
        while !refusing, ContinuousClock.now < deadline {
            do {
                _ = try await Poster.post(Data(), to: bench.url, method: "GET")
                try await Task.sleep(for: .milliseconds(5))
            } catch {
                refusing = true
            }
        }
        #expect(refusing)
        slow.release()
        #expect(try await posting.value.status == 200)
        #expect(await stopping.value)
        #expect(try await slow.notifications(NotificationFilter()).count == 1)
        await bench.stop()
    }
}

/// A store whose disk is gone.
struct FailingStore: NotificationStore {
    struct Broken: Error {}
    func record(_ delivery: NotificationDelivery) async throws -> RecordOutcome { throw Broken() }
    func recordForward(_ forward: ForwardOutcome, delivery: Int64) async throws { throw Broken() }
    func quarantine(_ body: RefusedDelivery) async throws -> Int64 { throw Broken() }
    func notifications(_ filter: NotificationFilter) async throws -> [StoredNotification] { [] }
    func deliveries(ofNotification id: Int64) async throws -> [StoredDelivery] { [] }
    func quarantined(_ filter: QuarantineFilter) async throws -> [QuarantinedDelivery] { [] }
    func notifications(uuids: Set<String>) async throws -> [StoredNotification] { [] }
    func count(concerning transactionIds: Set<String>) async throws -> Int { 0 }
    func notifications(signedIn window: Range<Date>, bodies: Bool) async throws -> [StoredNotification] { [] }
    func recordReplay(_ replay: ReplayAttempt) async throws -> Int64 { throw Broken() }
    func replays(uuids: Set<String>) async throws -> [StoredReplay] { [] }
    func close() async throws {}
}

/// Holds each write until released, to catch a request in the middle of it.
final class SlowStore: NotificationStore, @unchecked Sendable {
    private let lock = NSLock()
    private var _inner: (any NotificationStore)?
    private var _entered = false
    private var _holding = 0
    private var waiters: [CheckedContinuation<Void, Never>] = []
    private var released = false

    init(inner: (any NotificationStore)?) { _inner = inner }

    var inner: (any NotificationStore)? {
        get { lock.withLock { _inner } }
        set { lock.withLock { _inner = newValue } }
    }
    var entered: Bool { lock.withLock { _entered } }
    /// Writes held right now.
    var holding: Int { lock.withLock { _holding } }

    func release() {
        let waiting = lock.withLock {
            released = true
            _holding = 0
            defer { waiters = [] }
            return waiters
        }
        waiting.forEach { $0.resume() }
    }

    private func hold() async {
        await withCheckedContinuation { continuation in
            let now = lock.withLock {
                _entered = true
                if released { return true }
                _holding += 1
                waiters.append(continuation)
                return false
            }
            if now { continuation.resume() }
        }
    }

    func record(_ delivery: NotificationDelivery) async throws -> RecordOutcome {
        await hold()
        return try await inner!.record(delivery)
    }
    func recordForward(_ forward: ForwardOutcome, delivery: Int64) async throws { try await inner!.recordForward(forward, delivery: delivery) }
    func quarantine(_ body: RefusedDelivery) async throws -> Int64 { try await inner!.quarantine(body) }
    func notifications(_ filter: NotificationFilter) async throws -> [StoredNotification] { try await inner!.notifications(filter) }
    func deliveries(ofNotification id: Int64) async throws -> [StoredDelivery] { try await inner!.deliveries(ofNotification: id) }
    func quarantined(_ filter: QuarantineFilter) async throws -> [QuarantinedDelivery] { try await inner!.quarantined(filter) }
    func notifications(uuids: Set<String>) async throws -> [StoredNotification] { try await inner!.notifications(uuids: uuids) }
    func count(concerning transactionIds: Set<String>) async throws -> Int { try await inner!.count(concerning: transactionIds) }
    func notifications(signedIn window: Range<Date>, bodies: Bool) async throws -> [StoredNotification] { try await inner!.notifications(signedIn: window, bodies: bodies) }
    func recordReplay(_ replay: ReplayAttempt) async throws -> Int64 { try await inner!.recordReplay(replay) }
    func replays(uuids: Set<String>) async throws -> [StoredReplay] { try await inner!.replays(uuids: uuids) }
    func close() async throws { try await inner?.close() }
}
