@testable import AppStoreServerAPI
import Foundation
import Synchronization
import Testing

/// A command's deadline bounds every attempt, wait and page. Upper bounds on elapsed time are
/// generous (other tests share the machine and its threads) but far below what a broken deadline
/// would take (the 60 s attempt timeout, or for ever): they check the deadline holds, not speed.
@Suite struct DeadlineTests {
    let retryable = #"{"errorCode": 5000001, "errorMessage": "An unknown error occurred. Please try again."}"#

    func realClient(_ transport: MockTransport, retry: RetryPolicy = RetryPolicy(), timeout: TimeInterval = 60, callTimeout: TimeInterval? = nil) throws -> AppStoreServerClient {
        try AppStoreServerClient(
            credentials: TestCredentials.credentials, environment: .production, transport: transport, retryPolicy: retry,
            timeout: timeout, callTimeout: callTimeout)
    }

    @Test func aHangingServerEndsAtTheDeadline() async throws {
        let transport = MockTransport(Array(repeating: .hang, count: 5))
        let client = try realClient(transport)
        let started = Date()
        let error = await Deadline.$current.withValue(Deadline(seconds: 2)) {
            await #expect(throws: APIError.self) { _ = try await client.getTransactionInfo(transactionId: "1") }
        }
        let elapsed = Date().timeIntervalSince(started)
        guard case .deadlineExceeded(let failure)? = error else { Issue.record("expected the deadline, got \(String(describing: error))"); return }
        #expect(failure.seconds == 2)
        #expect(elapsed >= 1.9 && elapsed < 60, "took \(elapsed) s")
        #expect(transport.requests.count == 1)
        // The one attempt was given no more than the deadline left.
        #expect(transport.requests[0].timeout <= 2)
        #expect(error?.isRetryable == false)
        #expect(error?.summary.contains("2 s deadline") == true)
    }

    @Test func theClientsOwnCallTimeoutIsADeadlineToo() async throws {
        let client = try realClient(MockTransport([.hang]), callTimeout: 1)
        let started = Date()
        let error = await #expect(throws: APIError.self) { _ = try await client.getTransactionInfo(transactionId: "1") }
        guard case .deadlineExceeded? = error else { Issue.record("expected the deadline, got \(String(describing: error))"); return }
        // The error's kind shows the cut; the bound leaves room for a 2-core machine's busy test pool.
        #expect(Date().timeIntervalSince(started) < 60)
    }

    @Test func anAnswerThatTakesTooLongIsCutAtTheAttemptTimeoutAndRetried() async throws {
        // The transport ignores cancellation: only the race ends the attempt.
        let transport = MockTransport([.slow(HTTPResponse(status: 200, body: Fixture.model("transactionInfoResponse")), seconds: 30), .hang])
        let client = try realClient(transport, retry: RetryPolicy(maxAttempts: 2, baseDelay: 0.05, maxDelay: 0.05), timeout: 0.5)
        let started = Date()
        let error = await #expect(throws: APIError.self) { _ = try await client.getTransactionInfo(transactionId: "1") }
        guard case .transport(let failure)? = error else { Issue.record("expected a timeout, got \(String(describing: error))"); return }
        #expect(failure.kind == .timedOut)
        #expect(transport.requests.count == 2)
        // The error's kind shows the cut; the bound leaves room for a 2-core machine's busy test pool.
        #expect(Date().timeIntervalSince(started) < 60)
    }

    @Test func aSlowAnswerIsCutAtTheDeadline() async throws {
        let transport = MockTransport([.slow(HTTPResponse(status: 200, body: Fixture.model("transactionInfoResponse")), seconds: 30)])
        let client = try realClient(transport, callTimeout: 1.5)
        let started = Date()
        let error = await #expect(throws: APIError.self) { _ = try await client.getTransactionInfo(transactionId: "1") }
        guard case .deadlineExceeded? = error else { Issue.record("expected the deadline, got \(String(describing: error))"); return }
        // The error's kind shows the cut; the bound leaves room for a 2-core machine's busy test pool.
        #expect(Date().timeIntervalSince(started) < 60)
    }

    @Test func retriesStopAtTheDeadline() async throws {
        let clock = TestClock()
        let transport = MockTransport(Array(repeating: MockTransport.json(500, retryable), count: 10))
        let policy = RetryPolicy(maxAttempts: 10, baseDelay: 1, maxDelay: 8, jitter: 0.5)
        let client = try TestCredentials.client(transport, retry: policy, clock: clock)
        let start = clock.now()
        let error = await Deadline.$current.withValue(Deadline(seconds: 3, from: start)) {
            await #expect(throws: APIError.self) { _ = try await client.getTransactionInfo(transactionId: "1") }
        }
        // Waits of 0.75 and 1.5 s fit in 3 s; the next (3 s) does not, so the last answer is reported.
        #expect(clock.sleeps == [0.75, 1.5])
        #expect(transport.requests.count == 3)
        #expect(clock.now().timeIntervalSince(start) <= 3)
        guard case .server(let failure)? = error else { Issue.record("expected the server's answer"); return }
        #expect(failure.code == .generalInternalRetryable)
    }

    @Test func aDeadlineAlreadyPassedSendsNothing() async throws {
        let clock = TestClock()
        let transport = MockTransport([MockTransport.fixture("transactionInfoResponse")])
        let client = try TestCredentials.client(transport, clock: clock)
        let error = await Deadline.$current.withValue(Deadline(seconds: 5, from: clock.now().addingTimeInterval(-10))) {
            await #expect(throws: APIError.self) { _ = try await client.getTransactionInfo(transactionId: "1") }
        }
        guard case .deadlineExceeded(let failure)? = error else { Issue.record("expected the deadline"); return }
        #expect(failure.attempts == 0)
        #expect(transport.requests.isEmpty)
    }

    @Test func attemptsGetTheUsualTimeoutWhenTheDeadlineIsFarOff() async throws {
        let transport = MockTransport([MockTransport.fixture("transactionInfoResponse")])
        let client = try realClient(transport, timeout: 30, callTimeout: 600)
        _ = try await client.getTransactionInfo(transactionId: "1")
        #expect(transport.requests[0].timeout == 30)
        // A deadline nearer than the usual timeout gives the attempt what is left of it: a little less
        // than its whole (a minute less only on a machine that hangs).
        let near = MockTransport([MockTransport.fixture("transactionInfoResponse")])
        _ = try await realClient(near, timeout: 600, callTimeout: 300).getTransactionInfo(transactionId: "1")
        #expect(near.requests[0].timeout <= 300 && near.requests[0].timeout > 240)
    }

    @Test func theSoonerDeadlineWins() {
        let now = Date()
        let soon = Deadline(seconds: 2, from: now)
        let late = Deadline(seconds: 9, from: now)
        #expect(Deadline.earliest(late, soon) == soon)
        #expect(Deadline.earliest(soon, nil) == soon)
        #expect(Deadline.earliest(nil, late) == late)
        #expect(Deadline.earliest(nil, nil) == nil)
    }
}

/// Walking pages keeps what arrived when the walk ends early.
@Suite struct PagingWalkTests {
    func page(_ revision: String, hasMore: Bool) -> MockTransport.Reply {
        MockTransport.json(200, #"{"revision":"\#(revision)","hasMore":\#(hasMore),"signedTransactions":["\#(revision)-a","\#(revision)-b"]}"#)
    }

    @Test func cancellationKeepsThePagesThatArrived() async throws {
        let transport = MockTransport([page("r1", hasMore: true), page("r2", hasMore: true), .hang])
        let client = try TestCredentials.client(transport)
        let arrived = Mutex<[String]>([])
        let walk = Task {
            await client.transactionHistoryPages(anyTransactionId: "7").walk { page in
                arrived.withLock { $0 += page.signedTransactions ?? [] }
                return true
            }
        }
        // Ctrl-C while the third page hangs.
        while transport.requests.count < 3 { try await Task.sleep(nanoseconds: 10_000_000) }
        walk.cancel()
        #expect(await walk.value == .interrupted)
        #expect(arrived.withLock { $0 } == ["r1-a", "r1-b", "r2-a", "r2-b"])
    }

    @Test func aFailureKeepsThePagesBeforeIt() async throws {
        let transport = MockTransport([page("r1", hasMore: true), .hang])
        let client = try AppStoreServerClient(credentials: TestCredentials.credentials, environment: .production, transport: transport)
        var count = 0
        let started = Date()
        let end = await Deadline.$current.withValue(Deadline(seconds: 1.5)) {
            await client.transactionHistoryPages(anyTransactionId: "7").walk { page in
                count += page.signedTransactions?.count ?? 0
                return true
            }
        }
        guard case .failed(.deadlineExceeded) = end else { Issue.record("expected the deadline, got \(end)"); return }
        #expect(count == 2)
        // The error's kind shows the cut; the bound leaves room for a 2-core machine's busy test pool.
        #expect(Date().timeIntervalSince(started) < 60)
        #expect(!end.isComplete)
    }

    @Test func stoppingAndFinishing() async throws {
        let transport = MockTransport([page("r1", hasMore: true), page("r2", hasMore: false)])
        let client = try TestCredentials.client(transport)
        #expect(await client.transactionHistoryPages(anyTransactionId: "7").walk { _ in false } == .stopped)
        let whole = MockTransport([page("r1", hasMore: true), page("r2", hasMore: false)])
        var pages = 0
        #expect(await (try TestCredentials.client(whole)).transactionHistoryPages(anyTransactionId: "7").walk { _ in pages += 1; return true } == .complete)
        #expect(pages == 2)
    }
}
