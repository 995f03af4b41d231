import AppStoreServerAPI
import DemoServer
@testable import DeskCore
import DeskStore
import Foundation
import Synchronization
import Testing
import WebhookReceiver

/// The consumption policy on a receiver: each refund request answered once through the audit
/// ledger, whatever is delivered twice, whoever else shares the store, and whenever a receiver stopped.
@Suite struct PolicyResponderTests {
    /// Counts the Send Consumption Information requests that leave, and fails the first `failing` with `status`.
    final class ConsumptionCounter: HTTPTransport {
        private let inner = AsyncHTTPClientTransport()
        private let state = Mutex<(sent: [String], failing: Int)>(([], 0))
        let status: Int

        init(failing: Int = 0, status: Int = 503) {
            self.status = status
            state.withLock { $0.failing = failing }
        }

        /// The transactions answered, one entry per request sent.
        var sent: [String] { state.withLock { $0.sent } }

        func send(_ request: HTTPRequest) async throws -> HTTPResponse {
            guard request.url.path.contains("/transactions/consumption/") else { return try await inner.send(request) }
            let fail = state.withLock { state -> Bool in
                state.sent.append(request.url.lastPathComponent)
                guard state.failing > 0 else { return false }
                state.failing -= 1
                return true
            }
            return fail ? HTTPResponse(status: status) : try await inner.send(request)
        }
    }

    final class EventLog: Sendable {
        private let events = Mutex<[PolicyResponder.Event]>([])
        func append(_ event: PolicyResponder.Event) { events.withLock { $0.append(event) } }
        var all: [PolicyResponder.Event] { events.withLock { $0 } }
        func kinds(_ uuid: String) -> [PolicyResponder.Event.Kind] { all.filter { $0.notificationUUID == uuid }.map(\.kind) }
    }

    static let policyText = "consent = \"app-terms\"\nrefund_preference = \"decline\"\n"

    /// A demo server, the demo's refund requests as a receiver stored them, and a ledger in the store.
    struct Bench {
        let demo: DemoServer
        let fixture: StoreFixture
        let store: any NotificationStore & RefundPolicyStore & LedgerStore
        let ledger: AuditLedger
        /// The demo's CONSUMPTION_REQUESTs by how long ago Apple signed them, newest first.
        let requests: [(uuid: String, body: Data, hoursAgo: Double)]

        static func start(_ kind: StoreKind) async throws -> Bench {
            let demo = try await DemoServer.start()
            let fixture = try await kind.fixture()
            let store = try #require(try await fixture.open() as? any NotificationStore & RefundPolicyStore & LedgerStore)
            let verifier = try demo.makeVerifier()
            var requests: [(String, Data, Double)] = []
            for entry in demo.notificationHistory(.production) {
                guard case .success(let delivery) = await NotificationIntake.delivery(from: entry.body, verifier: verifier, receivedAt: Date(), remoteAddress: nil),
                      delivery.notificationType == NotificationType.consumptionRequest.rawValue, let signed = delivery.signedDate
                else { continue }
                requests.append((delivery.notificationUUID, entry.body, Date().timeIntervalSince(signed) / 3600))
            }
            return Bench(
                demo: demo, fixture: fixture, store: store, ledger: AuditLedger(.store(store, location: "the test store")),
                requests: requests.sorted { $0.2 < $1.2 })
        }

        /// The request Apple asked about an hour ago, with eleven hours left.
        var pending: (uuid: String, body: Data, hoursAgo: Double) { requests[0] }

        func store(_ body: Data, times: Int = 1) async throws {
            guard case .success(let delivery) = await NotificationIntake.delivery(from: body, verifier: try demo.makeVerifier(), receivedAt: Date(), remoteAddress: nil) else {
                throw CancellationError()
            }
            for _ in 0..<times { _ = try await store.record(delivery) }
        }

        func responder(
            _ policy: String = PolicyResponderTests.policyText, store: (any NotificationStore & RefundPolicyStore & LedgerStore)? = nil, transport: ConsumptionCounter,
            log: EventLog, claimant: String? = nil
        ) throws -> PolicyResponder {
            let store = store ?? self.store
            var settings = PolicyResponder.Settings()
            settings.retryDelays = [0.05]
            settings.sweepInterval = 3600
            let context = WriteContext(
                ledger: AuditLedger(.store(store, location: "the test store")), profile: "demo", bundleId: DemoServer.bundleId, keyId: DemoServer.keyId,
                isDemo: true, source: .commandLine, agent: "unused")
            return PolicyResponder(
                policy: try RefundPolicy.parse(policy, name: "refunds.toml"), store: store, client: try demo.makeClient(transport: transport),
                context: context, claimant: claimant, settings: settings, log: { log.append($0) })
        }

        func stop() async {
            try? await store.close()
            await fixture.cleanup()
            await demo.stop()
        }
    }

    @Test(arguments: StoreKind.allCases) func theSameRequestDeliveredThreeTimesIsAnsweredOnce(kind: StoreKind) async throws {
        let bench = try await Bench.start(kind)
        let sent = ConsumptionCounter(), log = EventLog()
        let responder = try bench.responder(transport: sent, log: log)
        let request = bench.pending
        // A receiver in front of it: each delivery is stored, then handed to the policy.
        var configuration = NotificationReceiver.Configuration()
        configuration.port = 0
        configuration.storeDeadline = .seconds(600)
        let receiver = try await NotificationReceiver.start(configuration, verifier: try bench.demo.makeVerifier(), store: bench.store) { arrival in
            if let uuid = arrival.notificationUUID { responder.arrived(uuid, type: arrival.notificationType) }
        }
        for _ in 0..<3 { #expect(try await Poster.post(request.body, to: receiver.url).status == 200) }
        await responder.idle()
        // And once more after it was answered.
        _ = try await Poster.post(request.body, to: receiver.url)
        await responder.idle()
        #expect(sent.sent.count == 1)
        #expect(log.kinds(request.uuid).filter { $0 == .answered }.count == 1)
        let writes = try await bench.ledger.writes()
        #expect(writes.count == 1)
        #expect(writes.first?.intent.agent == "policy:refunds.toml")
        #expect(writes.first?.intent.source == .policy)
        #expect(writes.first?.intent.subject?.contains("customer consent: the app's terms give it") == true)
        #expect(writes.first?.intent.body?.contains(#""refundPreference":"DECLINE""#) == true)
        #expect(writes.first?.lastOutcome?.outcome == .applied)
        #expect(try await bench.store.policyClaims([request.uuid]).first?.state == .answered)
        await receiver.stop()
        await bench.stop()
    }

    @Test(arguments: StoreKind.allCases) func twoReceiversOnOneStoreAnswerOnce(kind: StoreKind) async throws {
        let bench = try await Bench.start(kind)
        let request = bench.pending
        try await bench.store(request.body, times: 2)
        let other = try #require(try await bench.fixture.open() as? any NotificationStore & RefundPolicyStore & LedgerStore)
        let sent = ConsumptionCounter(), log = EventLog()
        let first = try bench.responder(transport: sent, log: log, claimant: "first")
        let second = try bench.responder(store: other, transport: sent, log: log, claimant: "second")
        first.arrived(request.uuid, type: "CONSUMPTION_REQUEST")
        second.arrived(request.uuid, type: "CONSUMPTION_REQUEST")
        await first.idle()
        await second.idle()
        #expect(sent.sent.count == 1)
        let kinds = log.kinds(request.uuid)
        #expect(kinds.filter { $0 == .answered }.count == 1)
        // The other said who answers it, or that it was answered.
        #expect(kinds.contains(.held) || kinds.contains(.settled))
        #expect(try await bench.ledger.writes().count == 1)
        try await other.close()
        await bench.stop()
    }

    @Test(arguments: StoreKind.allCases) func aReceiverStoppedBetweenIntentAndOutcomeIsResolvedOnRestartWithoutSendingAgain(kind: StoreKind) async throws {
        let bench = try await Bench.start(kind)
        let (interrupted, untouched) = (bench.requests[0], bench.requests[1])
        try await bench.store(interrupted.body)
        try await bench.store(untouched.body)
        // The receiver that stopped: it claimed both, wrote the intent of one answer, and died.
        let gone = "policy:refunds.toml@\(ProcessInfo.processInfo.hostName):999999:gone"
        let now = Date()
        for uuid in [interrupted.uuid, untouched.uuid] {
            _ = try await bench.store.claimPolicyAnswer(uuid, claimant: gone, now: now, until: now.addingTimeInterval(3600), replacing: nil)
        }
        let account = WriteAccount(profile: "demo", environment: .production, baseURL: "demo", bundleId: DemoServer.bundleId, keyId: DemoServer.keyId)
        let transaction = try #require(try await bench.store.notifications(uuids: [interrupted.uuid]).first?.transactionId)
        try await bench.ledger.append(AuditLedger.Entry(
            time: now, event: .intent, requestIdentifier: PolicyResponder.requestIdentifier(interrupted.uuid), write: WriteKind.consumption.rawValue,
            method: "PUT", path: "/inApps/v2/transactions/consumption/\(transaction)", body: #"{"customerConsented":true,"deliveryStatus":"DELIVERED"}"#,
            account: account, subject: "transaction \(transaction)", source: .policy, agent: "policy:refunds.toml"))
        // Restarted: the store's requests of the last 12 hours are gone through again.
        let sent = ConsumptionCounter(), log = EventLog()
        let responder = try bench.responder(transport: sent, log: log)
        await responder.sweep()
        await responder.idle()
        #expect(log.kinds(interrupted.uuid) == [.takenOver, .unknown])
        #expect(log.kinds(untouched.uuid) == [.takenOver, .answered])
        // Only the request with no intent was sent.
        #expect(sent.sent == [try #require(try await bench.store.notifications(uuids: [untouched.uuid]).first?.transactionId)])
        let record = try #require(try await bench.ledger.writes().first { $0.requestIdentifier == PolicyResponder.requestIdentifier(interrupted.uuid) })
        #expect(record.lines.last?.event == .resolved)
        #expect(record.isResolved)
        #expect(try await bench.store.policyClaims([interrupted.uuid]).first?.state == .unknown)
        // Another restart finds both settled and sends nothing.
        await responder.sweep()
        await responder.idle()
        let again = EventLog()
        let restarted = try bench.responder(transport: sent, log: again)
        await restarted.sweep()
        await restarted.idle()
        #expect(sent.sent.count == 1)
        #expect(again.all.allSatisfy { $0.kind == .settled || $0.kind == .skipped })
        await bench.stop()
    }

    @Test func aDryRunSendsNothingAndClaimsNothing() async throws {
        let bench = try await Bench.start(.sqlite)
        let request = bench.pending
        try await bench.store(request.body)
        let sent = ConsumptionCounter(), log = EventLog()
        let responder = try bench.responder(PolicyResponderTests.policyText + "dry_run = true\n", transport: sent, log: log)
        responder.arrived(request.uuid, type: "CONSUMPTION_REQUEST")
        await responder.idle()
        #expect(sent.sent.isEmpty)
        #expect(log.kinds(request.uuid) == [.wouldAnswer])
        #expect(log.all.first?.detail.contains("prefer to decline") == true)
        #expect(try await bench.ledger.writes().isEmpty)
        #expect(try await bench.store.policyClaims([request.uuid]).isEmpty)
        await bench.stop()
    }

    /// The dry run says what the real run would do: a request answered already is skipped by both.
    @Test func aDryRunSkipsWhatTheRealRunWouldSkip() async throws {
        let bench = try await Bench.start(.sqlite)
        let request = bench.pending
        try await bench.store(request.body)
        let sent = ConsumptionCounter()
        let real = try bench.responder(transport: sent, log: EventLog())
        real.arrived(request.uuid, type: "CONSUMPTION_REQUEST")
        await real.idle()
        #expect(sent.sent.count == 1)
        let log = EventLog()
        let dry = try bench.responder(PolicyResponderTests.policyText + "dry_run = true\n", transport: sent, log: log)
        dry.arrived(request.uuid, type: "CONSUMPTION_REQUEST")
        await dry.idle()
        #expect(sent.sent.count == 1)
        #expect(log.kinds(request.uuid) == [.skipped], "\(log.all)")
        #expect(log.all.first?.detail.contains("answered already") == true, "\(log.all)")
        await bench.stop()
    }

    @Test func aRequestPastItsDeadlineIsNotSent() async throws {
        let bench = try await Bench.start(.sqlite)
        // Asked two days ago: Apple's 12 hours are over.
        let late = try #require(bench.requests.first { $0.hoursAgo > 12 })
        try await bench.store(late.body)
        let sent = ConsumptionCounter(), log = EventLog()
        let responder = try bench.responder(transport: sent, log: log)
        responder.arrived(late.uuid, type: "CONSUMPTION_REQUEST")
        await responder.idle()
        #expect(sent.sent.isEmpty)
        #expect(log.kinds(late.uuid) == [.skipped])
        #expect(log.all.first?.detail.contains("12 hours") == true)
        await bench.stop()
    }

    @Test func withoutConsentNothingIsSent() async throws {
        let bench = try await Bench.start(.sqlite)
        try await bench.store(bench.pending.body)
        let sent = ConsumptionCounter(), log = EventLog()
        let responder = try bench.responder("refund_preference = \"grant-full\"\n", transport: sent, log: log)
        responder.arrived(bench.pending.uuid, type: "CONSUMPTION_REQUEST")
        await responder.idle()
        #expect(sent.sent.isEmpty)
        #expect(log.kinds(bench.pending.uuid) == [.skipped])
        #expect(try await bench.ledger.writes().isEmpty)
        await bench.stop()
    }

    @Test(arguments: [503, 429]) func aBusyAppleIsAskedAgainAndTheAnswerIsOneWrite(status: Int) async throws {
        let bench = try await Bench.start(.sqlite)
        try await bench.store(bench.pending.body)
        let sent = ConsumptionCounter(failing: 2, status: status), log = EventLog()
        let responder = try bench.responder(transport: sent, log: log)
        responder.arrived(bench.pending.uuid, type: "CONSUMPTION_REQUEST")
        await responder.idle()
        #expect(sent.sent.count == 3)
        #expect(log.kinds(bench.pending.uuid) == [.retrying, .retrying, .answered])
        let writes = try await bench.ledger.writes()
        #expect(writes.count == 1)
        #expect(writes.first?.lines.map(\.event) == [.intent, .outcome, .resend, .outcome, .resend, .outcome])
        #expect(writes.first?.lastOutcome?.outcome == .applied)
        await bench.stop()
    }
}
