import DemoServer
import DeskStore
import Foundation
import PostgresNIO
@testable import PostgresStore
import Synchronization
import Testing
@testable import WebhookReceiver

/// The receiver while its store cannot be written: a PostgreSQL server of the test's own stopped
/// (connections cut, new ones refused) or frozen (nothing answers, nothing is refused) under load,
/// then back. Serialized: each test runs a server and a load of its own.
@Suite(.serialized) struct StoreOutageTests {
    enum Outage: String, CustomTestStringConvertible, CaseIterable {
        case stopped, frozen
        var testDescription: String { rawValue }
    }

    /// Every request is answered within the deadline (503 while the server is away, at once once the
    /// outage is known), the outage is told once with its cause and once when it ends, /healthz follows
    /// it, writes resume when the server is back, and every notification Apple sends again until it
    /// is answered 200 is stored exactly once. The outage lasts until 48 requests were answered 503
    /// (IAPDESK_TEST_OUTAGE_SECONDS makes it last at least that long, as in docs/webhooks.md's figures).
    @Test(arguments: Outage.allCases) func anOutageIsAnswered503WithinTheDeadlineAndEverythingIsStoredOnceAfterIt(_ outage: Outage) async throws {
        let server = try await OwnPostgres.start()
        var address = server.address
        address.password = "s3cret-pw"
        // As listen opens it: the store's deadline is the receiver's.
        let store = try await PostgresNotificationStore.open(address, writeDeadline: WriteDeadline.standard)
        let health = Locked<[StoreHealthEvent]>([])
        let bench = try await ReceiverBench.start(store: { _ in store }, configure: { configuration in
            configuration.storeDeadline = WriteDeadline.standard
            configuration.onStoreHealth = { event in health.withLock { $0.append(event) } }
        })
        let deadline = bench.receiver.configuration.storeDeadline
        let minimum = Double(ProcessInfo.processInfo.environment["IAPDESK_TEST_OUTAGE_SECONDS"] ?? "") ?? 0
        // The issue's 16 senders and 300 notifications for the figures; in the suite, 4 senders and
        // 80 notifications leave the tests running beside it (the demo servers' among them) their
        // share of two cores: with 8 and 300 their answers waited past their 30 s deadlines.
        let senders = try Senders(bench: bench, count: minimum > 0 ? 300 : 80)
        senders.start(minimum > 0 ? 16 : 4)

        #expect(try await until { senders.answered(200) >= 20 })
        let began = ContinuousClock.now
        switch outage {
        case .stopped: try await server.stop()
        case .frozen: try await server.freeze()
        }
        #expect(try await until(seconds: 120 + minimum) {
            senders.answered(503) >= 48 && ContinuousClock.now - began >= .seconds(minimum)
        })
        #expect(try await healthz(bench) == 503)
        let returned = ContinuousClock.now
        switch outage {
        case .stopped: try await server.restart()
        case .frozen: try await server.thaw()
        }
        // Stores again: a request sent after the server's return is answered 200.
        #expect(try await until { senders.firstAnswer(200, sentAfter: returned) != nil })
        let resumed = try #require(senders.firstAnswer(200, sentAfter: returned)) - returned
        #expect(try await until { try await healthz(bench) == 200 })
        #expect(try await until(seconds: 180) { senders.pending == 0 })
        await senders.stop()

        let answers = senders.answers
        let slowest = answers.map(\.took).max() ?? .zero
        let refused = answers.filter { $0.status == 503 }
        print(
            "\(outage) for \(WriteDeadline.words(returned - began)): \(refused.count) answered 503, slowest answer \(WriteDeadline.words(slowest)), "
                + "slowest 503 \(WriteDeadline.words(refused.map(\.took).max() ?? .zero)), stored again \(WriteDeadline.words(resumed)) after the server's return")
        // Never held for ever, as the regression held them (until the server's return): the bound is
        // what only a hang reaches, not the deadline's accuracy, which a loaded machine blurs.
        #expect(slowest < deadline + .seconds(60), "\(answers.sorted { $0.took > $1.took }.prefix(5).map { "\($0.status) sent \(WriteDeadline.words($0.sent - began)) into the outage took \(WriteDeadline.words($0.took))" })")
        #expect(answers.allSatisfy { [200, 503].contains($0.status) })
        let events = health.withLock { $0 }
        #expect(events.count == 2)
        if case .down(let cause)? = events.first {
            #expect(cause.contains("127.0.0.1:\(server.port)"))
            #expect(!cause.contains("s3cret"))
        } else {
            Issue.record("the outage was not told first: \(events)")
        }
        if case .up(_, let refusedMeanwhile)? = events.last {
            #expect(refusedMeanwhile > 0)
        } else {
            Issue.record("the end of the outage was not told: \(events)")
        }
        // Each notification once, whatever was committed behind a 503.
        let stored = try await store.notifications(uuids: Set(senders.uuids))
        #expect(stored.count == senders.uuids.count)
        #expect(Set(stored.map(\.notificationUUID)) == Set(senders.uuids))
        await bench.stop()
        await server.remove()
    }

    /// A stop while writes are stuck on a frozen server cuts them off at the drain timeout (plus the
    /// second it may take) and says how many were cut off.
    @Test func aStopWhileWritesAreStuckOnTheServerKeepsTheDrainTimeout() async throws {
        let server = try await OwnPostgres.start()
        let store = try await PostgresNotificationStore.open(server.address, writeDeadline: .seconds(120))
        let bench = try await ReceiverBench.start(store: { _ in store }, configure: { configuration in
            configuration.storeDeadline = .seconds(120)
            configuration.drainTimeout = .seconds(1)
        })
        #expect(try await bench.post(Notifications.body(try bench.notifications.payload())).status == 200)
        try await server.freeze()
        let bodies = try (0..<4).map { _ in Notifications.body(try bench.notifications.payload()) }
        let posting = Task {
            await withTaskGroup(of: Int.self) { group in
                for body in bodies { group.addTask { (try? await bench.post(body).status) ?? 0 } }
                return await group.reduce(into: []) { $0.append($1) }
            }
        }
        // Every request is in the store's write, one of them sent to the server that does not read it.
        #expect(try await until { bench.receiver.inFlight == 4 && server.unreadBytes() > 0 })
        let stopping = ContinuousClock.now
        let drained = await bench.receiver.stop()
        let took = ContinuousClock.now - stopping
        print("stop while stuck: \(WriteDeadline.words(took)) with --drain-timeout 1 s, \(bench.receiver.cutOff) cut off")
        #expect(!drained)
        // Cut off by the drain timeout (the count says so), not by the store's 120 s deadline; the bound
        // is for a loaded machine.
        #expect(took < .seconds(60))
        #expect(bench.receiver.cutOff == 4)
        #expect(await posting.value.allSatisfy { $0 != 200 })
        try await server.thaw()
        await bench.stop()
        await server.remove()
    }

    /// `iapdesk listen` with writes stuck on a frozen server: SIGTERM exits within --drain-timeout
    /// and a second, saying how many requests were cut off unanswered.
    @Test func listenExitsWithinTheDrainTimeoutOnSIGTERMWhileStuckOnTheServer() async throws {
        let server = try await OwnPostgres.start()
        let folder = try TemporaryFolder()
        let demo = try await DemoServer.start()
        let (running, url) = try await ListenProcessTests().listen(
            folder: folder, demo: demo, store: server.url, extra: ["--store-deadline", "60", "--drain-timeout", "1"])
        let notifications = Notifications(demo: demo)
        #expect(try await Poster.post(Notifications.body(try notifications.payload()), to: url).status == 200)
        try await server.freeze()
        let bodies = try (0..<3).map { _ in Notifications.body(try notifications.payload()) }
        let posting = Task {
            await withTaskGroup(of: Int.self) { group in
                for body in bodies { group.addTask { (try? await Poster.post(body, to: url).status) ?? 0 } }
                return await group.reduce(into: []) { $0.append($1) }
            }
        }
        #expect(try await until { server.unreadBytes() > 0 })
        let signalled = ContinuousClock.now
        running.signal(SIGTERM)
        let status = try await running.exitStatus(seconds: 120)
        let took = ContinuousClock.now - signalled
        print("listen on a frozen server: SIGTERM to exit \(WriteDeadline.words(took)) with --drain-timeout 1")
        #expect(status == 0)
        // Ended by the drain timeout (the words below say it cut them off), not by the store's 60 s
        // deadline; the bound is for a loaded machine.
        #expect(took < .seconds(50))
        #expect(running.stderr.contains("cut off unanswered"), "\(running.stderr)")
        #expect(await posting.value.allSatisfy { $0 != 200 })
        try await server.thaw()
        await demo.stop()
        await server.remove()
        folder.remove()
    }

    /// The outage's two lines and /healthz, with a store made to fail: only the first write of the
    /// outage reaches the store, the others are answered 503 without trying.
    @Test func theOutageIsToldOnceWithItsCauseAndOnceWhenItEndsAndHealthzFollowsIt() async throws {
        let (bench, breakable, health) = try await breakableBench()
        #expect(try await healthz(bench) == 200)
        breakable.broken = true
        #expect(try await bench.post(Notifications.body(try bench.notifications.payload())).status == 503)
        // The store's check fails too: the store is down, and the next writes are not tried.
        #expect(try await until { !health.withLock { $0 }.isEmpty })
        for _ in 0..<2 {
            #expect(try await bench.post(Notifications.body(try bench.notifications.payload())).status == 503)
        }
        #expect(breakable.writes == 1)
        #expect(health.withLock { $0 } == [.down(cause: "the disk is gone")])
        #expect(try await healthz(bench) == 503)
        breakable.broken = false
        #expect(try await until { try await healthz(bench) == 200 })
        let uuid = UUID().uuidString.lowercased()
        #expect(try await bench.post(Notifications.body(try bench.notifications.payload(uuid: uuid))).status == 200)
        let events = health.withLock { $0 }
        #expect(events.count == 2)
        if case .up(_, let refused)? = events.last { #expect(refused == 2) } else { Issue.record("no end told: \(events)") }
        #expect(try await bench.store.notifications(uuids: [uuid]).count == 1)
        await bench.stop()
    }

    /// A write that fails on its own (a value the server refuses) while the store's check passes is
    /// answered 503 alone: the store is not called down, so such bodies cannot shut the receiver.
    @Test func aWriteThatFailsOnItsOwnDoesNotMakeTheStoreDown() async throws {
        let (bench, breakable, health) = try await breakableBench()
        breakable.failNextWrite = true
        #expect(try await bench.post(Notifications.body(try bench.notifications.payload())).status == 503)
        // Every later write is tried and stored, whether or not the check has answered yet.
        for _ in 0..<3 {
            #expect(try await bench.post(Notifications.body(try bench.notifications.payload())).status == 200)
        }
        #expect(try await healthz(bench) == 200)
        #expect(health.withLock { $0 }.isEmpty)
        await bench.stop()
    }

    /// A receiver with nothing arriving learns of an outage from /healthz itself: the store is asked
    /// when no write has said so lately, so a load balancer stops sending to it.
    @Test func healthzAsksTheStoreWhenNothingArrives() async throws {
        let (bench, breakable, health) = try await breakableBench { $0.storeHealthQuiet = .zero }
        #expect(try await healthz(bench) == 200)
        breakable.broken = true
        #expect(try await healthz(bench) == 503)
        #expect(health.withLock { $0 } == [.down(cause: "the disk is gone")])
        #expect(breakable.writes == 0)
        breakable.broken = false
        #expect(try await until { try await healthz(bench) == 200 })
        #expect(try await bench.post(Notifications.body(try bench.notifications.payload())).status == 200)
        await bench.stop()
    }

    /// A receiver on a store the test breaks and mends, and the health events it tells.
    func breakableBench(
        _ configure: (inout NotificationReceiver.Configuration) -> Void = { _ in }
    ) async throws -> (ReceiverBench, BreakableStore, Locked<[StoreHealthEvent]>) {
        let breakable = BreakableStore()
        let health = Locked<[StoreHealthEvent]>([])
        let bench = try await ReceiverBench.start(store: { path in
            breakable.inner = try await SQLiteNotificationStore.open(path: path)
            return breakable
        }, configure: { configuration in
            configuration.onStoreHealth = { event in health.withLock { $0.append(event) } }
            configure(&configuration)
        })
        return (bench, breakable, health)
    }

    func healthz(_ bench: ReceiverBench) async throws -> Int {
        try await bench.post(Data(), path: "/healthz", method: "GET").status
    }
}

/// Polls `condition` until it holds, for at most `seconds`: a bound for a loaded machine, not a speed.
func until(seconds: Double = 60, _ condition: () async throws -> Bool) async throws -> Bool {
    let deadline = ContinuousClock.now + .milliseconds(Int64(seconds * 1000))
    while ContinuousClock.now < deadline {
        if try await condition() { return true }
        try await Task.sleep(for: .milliseconds(20))
    }
    return try await condition()
}

/// Senders posting notifications as Apple does: each until it is answered 200, sent again after any
/// other answer, every answer kept with when it was sent and how long it took.
final class Senders: Sendable {
    struct Answer {
        let uuid: String
        let status: Int
        let sent: ContinuousClock.Instant
        let took: Duration
    }

    let uuids: [String]
    private let bodies: [String: Data]
    private let url: URL
    private let queue: Locked<[String]>
    private let kept = Locked<[Answer]>([])
    private let running = Locked<Task<Void, Never>?>(nil)
    private let stopped = Locked(false)

    init(bench: ReceiverBench, count: Int) throws {
        let uuids = (0..<count).map { _ in UUID().uuidString.lowercased() }
        var bodies: [String: Data] = [:]
        for uuid in uuids { bodies[uuid] = Notifications.body(try bench.notifications.payload(uuid: uuid)) }
        self.uuids = uuids
        self.bodies = bodies
        url = bench.url
        queue = Locked(uuids)
    }

    func start(_ senders: Int) {
        let task = Task {
            await withTaskGroup(of: Void.self) { group in
                for _ in 0..<senders { group.addTask { await self.send() } }
            }
        }
        running.withLock { $0 = task }
    }

    private func send() async {
        while !stopped.withLock({ $0 }) {
            guard let uuid = queue.withLock({ $0.isEmpty ? nil : $0.removeFirst() }) else { return }
            let sent = ContinuousClock.now
            let status = (try? await Poster.post(bodies[uuid]!, to: url).status) ?? 0
            kept.withLock { $0.append(Answer(uuid: uuid, status: status, sent: sent, took: ContinuousClock.now - sent)) }
            guard status != 200 else { continue }
            queue.withLock { $0.append(uuid) }
            // Paced, as Apple's retries are: the outage is not a flood of 503s on two cores.
            try? await Task.sleep(for: .milliseconds(100))
        }
    }

    func stop() async {
        stopped.withLock { $0 = true }
        await running.withLock { $0 }?.value
    }

    var answers: [Answer] { kept.withLock { $0 } }
    /// Notifications not answered 200 yet.
    var pending: Int { uuids.count - Set(kept.withLock { $0.filter { $0.status == 200 }.map(\.uuid) }).count }
    func answered(_ status: Int) -> Int { kept.withLock { $0.filter { $0.status == status }.count } }

    /// When the first request sent after `instant` and answered `status` was answered.
    func firstAnswer(_ status: Int, sentAfter instant: ContinuousClock.Instant) -> ContinuousClock.Instant? {
        kept.withLock { answers in answers.filter { $0.status == status && $0.sent >= instant }.map { $0.sent + $0.took }.min() }
    }
}

/// A store whose writes fail while `broken`, as a disk gone away does, counting the writes that reach it.
final class BreakableStore: NotificationStore, @unchecked Sendable {
    private let lock = NSLock()
    private var _inner: (any NotificationStore)?
    private var _broken = false
    private var _failNextWrite = false
    private var _writes = 0

    struct Gone: Error, CustomStringConvertible {
        var description: String { "the disk is gone" }
    }

    struct Refused: Error, CustomStringConvertible {
        var description: String { "a value the store refuses" }
    }

    var inner: (any NotificationStore)? {
        get { lock.withLock { _inner } }
        set { lock.withLock { _inner = newValue } }
    }
    var broken: Bool {
        get { lock.withLock { _broken } }
        set { lock.withLock { _broken = newValue } }
    }
    /// The next write fails, the store itself being fine.
    var failNextWrite: Bool {
        get { lock.withLock { _failNextWrite } }
        set { lock.withLock { _failNextWrite = newValue } }
    }
    /// Writes that reached the store while it was broken.
    var writes: Int { lock.withLock { _writes } }

    private func write() throws {
        try lock.withLock {
            if _failNextWrite {
                _failNextWrite = false
                throw Refused()
            }
            guard _broken else { return }
            _writes += 1
            throw Gone()
        }
    }

    func checkWritable() async throws { if broken { throw Gone() } }
    func record(_ delivery: NotificationDelivery) async throws -> RecordOutcome {
        try write()
        return try await inner!.record(delivery)
    }
    func recordForward(_ forward: ForwardOutcome, delivery: Int64) async throws {
        try write()
        try await inner!.recordForward(forward, delivery: delivery)
    }
    func quarantine(_ body: RefusedDelivery) async throws -> Int64 {
        try write()
        return try await inner!.quarantine(body)
    }
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
