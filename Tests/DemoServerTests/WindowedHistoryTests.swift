import AppStoreServerAPI
@testable import DemoServer
import Foundation
import Synchronization
import Testing

/// The windowed history fetch against the demo server: the same transactions in the same order as
/// paging one page after another, with every filter, through 429s, within the rate limit.
@Suite struct WindowedHistoryTests {
    static let busiest = "Power user with 500+ transactions"
    static let typical = "Active monthly subscription"

    /// What plain paging gives: the reference.
    func sequential(_ client: AppStoreServerClient, _ id: String, _ query: TransactionHistoryQuery) async throws -> [String] {
        var signed: [String] = []
        for try await page in client.transactionHistoryPages(anyTransactionId: id, query: query) {
            signed += page.signedTransactions ?? []
        }
        return signed.map { HistoryEntry(signedTransaction: $0).transactionId }
    }

    func compare(_ scenario: String, _ query: TransactionHistoryQuery, minimum: Int = 1) async throws {
        let server = try await SharedDemo.get()
        let client = try server.plainClient()
        let id = try server.customer(scenario).originalTransactionId
        let expected = try await sequential(client, id, query)
        let progress = Mutex<(count: Int, ids: Set<String>)>((0, []))
        let result = await client.transactionHistoryConcurrently(anyTransactionId: id, query: query) { update in
            progress.withLock { state in
                state.count = update.received
                state.ids.formUnion(update.arrived.map(\.transactionId))
            }
        }
        #expect(result.end == .complete)
        #expect(expected.count >= minimum)
        #expect(result.entries.map(\.transactionId) == expected, "\(scenario) \(query)")
        #expect(Set(result.entries.map(\.transactionId)).count == result.entries.count)
        // Progress told of every transaction, each once.
        #expect(progress.withLock { $0.ids } == Set(expected))
        #expect(progress.withLock { $0.count } == expected.count)
    }

    @Test func theBusiestCustomerMatchesPagingInBothOrders() async throws {
        try await compare(Self.busiest, TransactionHistoryQuery(), minimum: 500)
        try await compare(Self.busiest, TransactionHistoryQuery(sort: .descending), minimum: 500)
    }

    @Test func typicalCustomersMatchPaging() async throws {
        for scenario in [Self.typical, "Consumables and refunds", "Upgraded mid-period", "Win-back offer", "Subscription refunded (prorated)"] {
            try await compare(scenario, TransactionHistoryQuery())
            try await compare(scenario, TransactionHistoryQuery(sort: .descending))
        }
    }

    @Test func filtersAndTheQuerysOwnDatesApplyToEveryWindow() async throws {
        let server = try await SharedDemo.get()
        let now = Date()
        try await compare(Self.busiest, TransactionHistoryQuery(productIds: ["com.iapdesk.demo.coins.100"]), minimum: 100)
        try await compare(Self.busiest, TransactionHistoryQuery(productTypes: [.autoRenewable], sort: .descending), minimum: 100)
        try await compare(Self.busiest, TransactionHistoryQuery(startDate: now.addingTimeInterval(-400 * 86_400)), minimum: 100)
        try await compare(Self.busiest, TransactionHistoryQuery(
            startDate: now.addingTimeInterval(-900 * 86_400), endDate: now.addingTimeInterval(-100 * 86_400)), minimum: 100)
        try await compare(Self.busiest, TransactionHistoryQuery(endDate: now.addingTimeInterval(-1000 * 86_400)))
        try await compare("Consumables and refunds", TransactionHistoryQuery(revoked: true))
        // Every window kept the query's dates: nothing outside them came back.
        let client = try server.plainClient()
        let start = now.addingTimeInterval(-300 * 86_400)
        let end = now.addingTimeInterval(-200 * 86_400)
        let result = await client.transactionHistoryConcurrently(
            anyTransactionId: try server.customer(Self.busiest).originalTransactionId, query: TransactionHistoryQuery(startDate: start, endDate: end))
        #expect(!result.entries.isEmpty)
        #expect(result.entries.allSatisfy { ($0.purchaseDate ?? .distantPast) >= start && ($0.purchaseDate ?? .distantFuture) < end })
    }

    @Test func aRateLimitedRequestIsRetriedAndTheHistoryIsComplete() async throws {
        let server = try await SharedDemo.get()
        let transport = Refusing(every: 7)
        let client = try server.makeClient(
            transport: transport, retryPolicy: RetryPolicy(maxAttempts: 3, baseDelay: 0.01, maxDelay: 0.05, maxRetryAfterWait: 2))
        let id = try server.customer(Self.busiest).originalTransactionId
        let expected = try await sequential(try server.plainClient(), id, TransactionHistoryQuery())
        let result = await client.transactionHistoryConcurrently(anyTransactionId: id)
        #expect(transport.refused > 0)
        #expect(result.end == .complete)
        #expect(result.entries.map(\.transactionId) == expected)
    }

    @Test func theRateLimitIsKeptInEverySecond() async throws {
        let server = try await SharedDemo.get()
        let clock = VirtualClock()
        // Five a second, as Sandbox allows: the busiest customer needs far more requests than that.
        let limiter = RequestRateLimiter(productionLimits: ["Get Transaction History": 5], recordsGrants: true)
        let counting = Counting(clock: clock)
        let client = try AppStoreServerClient(
            credentials: server.credentials, environment: server.serverEnvironment(.production), transport: counting,
            retryPolicy: .none, clock: clock, rateLimiter: limiter)
        let id = try server.customer(Self.busiest).originalTransactionId
        let result = await client.transactionHistoryConcurrently(anyTransactionId: id)
        #expect(result.end == .complete)
        #expect(result.entries.count >= 500)
        let starts = limiter.grantedStarts("Get Transaction History", in: .production)
        #expect(starts.count == counting.count)
        #expect(starts.count == result.pages)
        #expect(limiter.busiestSecond("Get Transaction History", in: .production) <= 5)
        // Each request went out no earlier than the start the limiter gave it.
        for (sent, granted) in zip(counting.times.sorted(), starts.sorted()) { #expect(sent >= granted) }
        #expect(clock.now() >= starts.max()!)
        #expect(starts.max()!.timeIntervalSince(starts.min()!) >= Double(starts.count - 5) / 5 - 0.001)
    }

    @Test func cancellationKeepsWhatArrived() async throws {
        let server = try await SharedDemo.get()
        let client = try server.plainClient()
        let id = try server.customer(Self.busiest).originalTransactionId
        let task = Task { await client.transactionHistoryConcurrently(anyTransactionId: id) }
        task.cancel()
        let result = await task.value
        #expect(result.end == .interrupted)
    }
}

/// Answers every Nth request with Apple's 429 instead of sending it on.
final class Refusing: HTTPTransport {
    let every: Int
    private let inner = AsyncHTTPClientTransport()
    private let state = Mutex<(count: Int, refused: Int)>((0, 0))

    init(every: Int) { self.every = every }

    var refused: Int { state.withLock { $0.refused } }

    func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        let refuse = state.withLock { state -> Bool in
            state.count += 1
            if state.count % every == 0 { state.refused += 1; return true }
            return false
        }
        if refuse {
            let retryAt = Date().addingTimeInterval(0.05).epochMilliseconds
            return HTTPResponse(
                status: 429, headers: ["Retry-After": String(retryAt)],
                body: Data(#"{"errorCode": 4290000, "errorMessage": "Rate limit exceeded."}"#.utf8))
        }
        return try await inner.send(request)
    }
}

/// Counts the requests that went out, and when (on the client's clock).
final class Counting: HTTPTransport {
    private let inner = AsyncHTTPClientTransport()
    private let clock: VirtualClock
    private let sent = Mutex<[Date]>([])
    var count: Int { sent.withLock { $0.count } }
    var times: [Date] { sent.withLock { $0 } }

    init(clock: VirtualClock) { self.clock = clock }

    func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        let now = clock.now()
        sent.withLock { $0.append(now) }
        return try await inner.send(request)
    }
}

/// Time that moves only when someone waits, and never for real: a wait ends at once, moving the
/// time to its end (a wait until a moment another wait already passed moves nothing).
final class VirtualClock: RetryClock {
    private let state = Mutex(Date())

    func now() -> Date { state.withLock { $0 } }

    func sleep(seconds: TimeInterval) async throws {
        try Task.checkCancellation()
        state.withLock { $0 = $0.addingTimeInterval(max(0, seconds)) }
    }

    func sleep(until date: Date) async throws {
        try Task.checkCancellation()
        state.withLock { now in
            if date > now { now = date }
        }
    }
}
