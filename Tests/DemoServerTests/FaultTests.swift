import AppStoreServerAPI
@testable import DemoServer
import Foundation
import Testing

@Suite struct FaultTests {
    @Test func rateLimitIsRetriedByTheClientUsingRetryAfter() async throws {
        var configuration = DemoServer.Configuration()
        configuration.faults.rateLimits = true
        configuration.webhookURL = URL(string: "http://127.0.0.1:9/none")
        let server = try await DemoServer.start(configuration)
        // Request a Test Notification allows 1 per second; Get Test Notification Status too.
        let retrying = try server.makeClient(retryPolicy: RetryPolicy(maxAttempts: 3, maxRetryAfterWait: 5))
        let plain = try server.plainClient()
        let token = try await retrying.requestTestNotification().testNotificationToken ?? ""
        // One request per second is allowed: two in one second are refused, however slow the
        // machine (a loaded one may take most of a second per request, so the burst is long).
        var limited: APIError?
        for _ in 0..<200 where limited?.code != 4_290_000 {
            limited = await apiError { try await plain.getTestNotificationStatus(testNotificationToken: token) }
        }
        guard case .server(let failure)? = limited else { Issue.record("expected 429, got \(String(describing: limited))"); return }
        #expect(failure.status == 429)
        #expect(failure.code == .rateLimitExceeded)
        #expect(failure.retryAfter != nil)
        // The retrying client waits until Retry-After and gets through.
        let started = Date()
        _ = try? await retrying.getTestNotificationStatus(testNotificationToken: token)
        let outcome = await apiError { try await retrying.getTestNotificationStatus(testNotificationToken: token) }
        #expect(outcome == nil || outcome?.code == 4_040_008)
        // A bound only a hang reaches: without Retry-After it would fail instead, which the outcome shows.
        #expect(Date().timeIntervalSince(started) < 120)
        await server.stop()
    }

    @Test func tokensAreRejectedInOneEnvironmentAndUnknownAppsAnswered() async throws {
        var configuration = DemoServer.Configuration()
        configuration.faults.rejectTokens = [.production]
        let server = try await DemoServer.start(configuration)
        let id = try server.customer("Active monthly subscription").originalTransactionId
        #expect(await apiError { try await server.plainClient(.production).getTransactionInfo(transactionId: id) } == .unauthorized(statusBody: nil))
        // Sandbox takes the same token: it looks the ID up (and does not know it).
        #expect(await apiError { try await server.plainClient(.sandbox).getTransactionInfo(transactionId: id) }?.code == 4_040_010)
        await server.stop()

        var unknown = DemoServer.Configuration()
        unknown.faults.appNotFound = true
        let other = try await DemoServer.start(unknown)
        let answer = await apiError { try await other.plainClient().getTransactionInfo(transactionId: id) }
        #expect(answer?.code == 4_040_003)
        await other.stop()
    }

    @Test func serverErrorsAreRetried() async throws {
        var configuration = DemoServer.Configuration()
        configuration.faults.failEvery = 2
        let server = try await DemoServer.start(configuration)
        let client = try server.makeClient(retryPolicy: RetryPolicy(maxAttempts: 3, baseDelay: 0.01, maxDelay: 0.05))
        let id = try server.customer("Active monthly subscription").originalTransactionId
        for _ in 0..<4 { _ = try await client.getTransactionInfo(transactionId: id) }
        let plain = try server.plainClient()
        var errors: [Int64?] = []
        for _ in 0..<2 { errors.append(await apiError { try await plain.getTransactionInfo(transactionId: id) }?.code) }
        #expect(errors.contains(5_000_001))
        await server.stop()
    }

    @Test func malformedAndTruncatedBodiesAreDecodingErrors() async throws {
        var configuration = DemoServer.Configuration()
        configuration.faults.malformedEvery = 1
        let server = try await DemoServer.start(configuration)
        let id = try server.customer("Active monthly subscription").originalTransactionId
        guard case .decoding? = await apiError({ try await server.plainClient().getTransactionInfo(transactionId: id) }) else {
            Issue.record("malformed body must be a decoding error"); return
        }
        await server.stop()
        var truncated = DemoServer.Configuration()
        truncated.faults.truncatedEvery = 1
        let second = try await DemoServer.start(truncated)
        guard case .decoding? = await apiError({ try await second.plainClient().getAllSubscriptionStatuses(anyTransactionId: id) }) else {
            Issue.record("truncated body must be a decoding error"); return
        }
        await second.stop()
    }

    @Test(.timeLimit(.minutes(3)))
    func aHangingServerIsCutAtTheDeadlineAndStopsAtOnce() async throws {
        var configuration = DemoServer.Configuration()
        configuration.faults.hang = true
        let server = try await DemoServer.start(configuration)
        let id = try server.customer("Active monthly subscription").originalTransactionId
        let client = try server.makeClient(timeout: 60, callTimeout: 2)
        let started = Date()
        let error = await apiError { try await client.getTransactionInfo(transactionId: id) }
        let elapsed = Date().timeIntervalSince(started)
        guard case .deadlineExceeded? = error else { Issue.record("expected the deadline, got \(String(describing: error))"); return }
        #expect(elapsed >= 1.9 && elapsed < 60, "took \(elapsed) s")
        // A request held by the fault does not hold the stop: the stop begins once the server has it.
        var arrivals = server.activity().makeAsyncIterator()
        let held = Task { await apiError { try await server.makeClient(retryPolicy: .none, timeout: 300).getTransactionInfo(transactionId: id) } }
        while let event = await arrivals.next(), event != .received(method: "GET", path: "/inApps/v1/transactions/\(id)") {}
        let stopping = Date()
        await server.stop()
        // Held, the stop would wait for the client's 300 s timeout; a loaded machine may take tens of seconds.
        #expect(Date().timeIntervalSince(stopping) < 120)
        #expect(await held.value != nil)
    }

    @Test(.timeLimit(.minutes(3)))
    func latencyHitsOnlyEveryNthRequest() async throws {
        // Held or not, told apart without a clock: a delay far longer than the test ends only when
        // the injector stops, and then says it was cut short; the others return at once, true.
        var faults = DemoFaults()
        faults.latency = 3_600
        faults.latencyEvery = 3
        let injector = FaultInjector(faults)
        let numbers = (0..<6).map { _ in injector.arrive() }
        #expect(numbers == [1, 2, 3, 4, 5, 6])
        let results = await withTaskGroup(of: (Int, Bool).self) { group in
            for number in numbers { group.addTask { (number, await injector.delay(number)) } }
            var ended: [Int: Bool] = [:]
            // The four that are not held end by themselves; only then is the injector stopped.
            for _ in 0..<4 {
                if case let (number, passed)? = await group.next() { ended[number] = passed }
            }
            #expect(Set(ended.keys) == [1, 2, 4, 5], "the requests that did not wait")
            injector.stop()
            for await (number, passed) in group { ended[number] = passed }
            return (1...6).map { ended[$0] }
        }
        // The others do not wait at all; the held ones are cut short by the stop.
        #expect(results == [true, true, false, true, true, false])
        // Stopping ends a delay under way at once, and every later one.
        var long = DemoFaults()
        long.latency = 3_600
        let stopping = FaultInjector(long)
        let held = Task { await stopping.delay(stopping.arrive()) }
        while stopping.holding < 1 { try await Task.sleep(for: .milliseconds(5)) }
        stopping.stop()
        #expect(await held.value == false)
        #expect(await stopping.delay(stopping.arrive()) == false)
    }

    @Test(.timeLimit(.minutes(3)))
    func aHeldRequestIsAnsweredOnceReleasedAndLaterOnesAtOnce() async throws {
        var configuration = DemoServer.Configuration()
        configuration.faults.holdUntilReleased = true
        let server = try await DemoServer.start(configuration)
        let id = try server.customer("Active monthly subscription").originalTransactionId
        let path = "/inApps/v1/transactions/\(id)"
        var activity = server.activity().makeAsyncIterator()
        let held = Task { try await server.plainClient().getTransactionInfo(transactionId: id).signedTransactionInfo }
        #expect(await activity.next() == .received(method: "GET", path: path))
        server.releaseHeldRequests()
        #expect(await activity.next() == .answered(method: "GET", path: path, status: 200))
        #expect(try await held.value != nil)
        // Released: the next is answered without a release of its own.
        #expect(try await server.plainClient().getTransactionInfo(transactionId: id).signedTransactionInfo != nil)
        await server.stop()
        // The stream ends with the server.
        var after: [DemoActivity] = []
        while let event = await activity.next() { after.append(event) }
        #expect(after == [.received(method: "GET", path: path), .answered(method: "GET", path: path, status: 200)])
    }

    @Test func aTrickledAnswerArrivesWholeButSlowlyAndIsCutAtTheDeadline() async throws {
        var configuration = DemoServer.Configuration()
        configuration.faults.trickle = 0.001
        let server = try await DemoServer.start(configuration)
        let id = try server.customer("Active monthly subscription").originalTransactionId
        // A small answer at a millisecond a byte still arrives, intact.
        // Its deadline is a bound for a loaded machine, where each millisecond's pause may take ten.
        #expect(await apiError {
            try await server.makeClient(retryPolicy: .none, timeout: 180).getTransactionInfo(transactionId: "2000000499999999")
        }?.code == 4_040_010)
        await server.stop()

        configuration.faults.trickle = 0.05
        let slow = try await DemoServer.start(configuration)
        let started = Date()
        let error = await apiError { try await slow.makeClient(timeout: 60, callTimeout: 2).getTransactionInfo(transactionId: id) }
        guard case .deadlineExceeded? = error else { Issue.record("expected the deadline, got \(String(describing: error))"); return }
        // The error says the deadline cut it; this bound is only what a hang would pass.
        #expect(Date().timeIntervalSince(started) < 120)
        let stopping = Date()
        await slow.stop()
        // Held, the stop would wait out every trickled byte (minutes); a loaded machine may take tens of seconds.
        #expect(Date().timeIntervalSince(stopping) < 120)
    }

    @Test func badSignaturesSpoilNestedPayloadsToo() async throws {
        var configuration = DemoServer.Configuration()
        configuration.faults.badSignatures = true
        let server = try await DemoServer.start(configuration)
        let history = try await server.plainClient().getNotificationHistory(
            request: .init(startDate: Date().addingTimeInterval(-30 * 86_400 + 60), endDate: Date(), notificationType: .didRenew))
        let items = history.notificationHistory ?? []
        #expect(!items.isEmpty)
        let verifier = try server.makeVerifier()
        for item in items {
            let decoded = await verifier.verifyNotification(item.signedPayload ?? "")
            #expect(decoded.notification.status == .failed(.invalidSignature))
            // The nested payloads decode, and fail on their own signatures.
            #expect(decoded.transaction?.status == .failed(.invalidSignature))
            if let renewal = decoded.renewalInfo { #expect(renewal.status == .failed(.invalidSignature)) }
            #expect(decoded.transaction?.payload?.transactionId != nil)
        }
        await server.stop()
    }

    @Test func badSignaturesFailVerification() async throws {
        var configuration = DemoServer.Configuration()
        configuration.faults.badSignatures = true
        let server = try await DemoServer.start(configuration)
        let id = try server.customer("Active monthly subscription").originalTransactionId
        let info = try await server.plainClient().getTransactionInfo(transactionId: id)
        let result = try await server.makeVerifier().verifyTransaction(info.signedTransactionInfo ?? "")
        #expect(result.status == .failed(.invalidSignature))
        #expect(result.payload?.transactionId == id)
        await server.stop()
    }
}
