@testable import AppStoreServerAPI
import Foundation
import Testing

@Suite struct RetryTests {
    let rateLimited = #"{"errorCode": 4290000, "errorMessage": "Rate limit exceeded."}"#
    let retryable = #"{"errorCode": 5000001, "errorMessage": "An unknown error occurred. Please try again."}"#

    @Test func rateLimitWaitsUntilRetryAfter() async throws {
        let clock = TestClock()
        let retryAt = clock.now().addingTimeInterval(2.5).epochMilliseconds
        let transport = MockTransport([
            MockTransport.json(429, rateLimited, headers: ["Retry-After": String(retryAt)]),
            MockTransport.fixture("transactionInfoResponse"),
        ])
        let client = try TestCredentials.client(transport, clock: clock)
        let value = try await client.getTransactionInfo(transactionId: "1")
        #expect(value.signedTransactionInfo == "signed_transaction_info_value")
        #expect(transport.requests.count == 2)
        #expect(clock.sleeps.count == 1)
        #expect(abs(clock.sleeps[0] - 2.5) < 0.01)
    }

    @Test func rateLimitTooFarAheadIsReportedNotWaited() async throws {
        let clock = TestClock()
        let retryAt = clock.now().addingTimeInterval(3600).epochMilliseconds
        let transport = MockTransport([MockTransport.json(429, rateLimited, headers: ["Retry-After": String(retryAt)])])
        let client = try TestCredentials.client(transport, clock: clock)
        do {
            _ = try await client.getTransactionInfo(transactionId: "1")
            Issue.record("must fail")
        } catch {
            guard case .server(let failure) = error else { Issue.record("expected a server error"); return }
            #expect(failure.code == .rateLimitExceeded)
            #expect(failure.retryAfter?.epochMilliseconds == retryAt)
            #expect(error.summary.contains("Next request allowed at"))
        }
        #expect(clock.sleeps.isEmpty)
        #expect(transport.requests.count == 1)
    }

    @Test func retryableServerErrorsBackOffExponentially() async throws {
        let clock = TestClock()
        let transport = MockTransport([
            MockTransport.json(500, retryable), MockTransport.json(500, retryable), MockTransport.json(500, retryable),
            MockTransport.fixture("transactionInfoResponse"),
        ])
        let policy = RetryPolicy(maxAttempts: 4, baseDelay: 1, maxDelay: 3, jitter: 0.5)
        let client = try TestCredentials.client(transport, retry: policy, clock: clock)
        _ = try await client.getTransactionInfo(transactionId: "1")
        #expect(transport.requests.count == 4)
        // random() is 0.5 in tests: delay = capped * (1 - 0.5) + capped * 0.5 * 0.5 = 0.75 * capped.
        #expect(clock.sleeps == [0.75, 1.5, 2.25])
    }

    @Test func attemptsAreBounded() async throws {
        let clock = TestClock()
        let transport = MockTransport(Array(repeating: MockTransport.json(500, retryable), count: 10))
        let client = try TestCredentials.client(transport, retry: RetryPolicy(maxAttempts: 3), clock: clock)
        await #expect(throws: APIError.self) { _ = try await client.getTransactionInfo(transactionId: "1") }
        #expect(transport.requests.count == 3)
        #expect(clock.sleeps.count == 2)
    }

    @Test func nonRetryableErrorsAreNotRetried() async throws {
        let transport = MockTransport([MockTransport.fixture("apiException", status: 500), MockTransport.fixture("transactionInfoResponse")])
        let client = try TestCredentials.client(transport)
        await #expect(throws: APIError.self) { _ = try await client.getTransactionInfo(transactionId: "1") }
        #expect(transport.requests.count == 1)
    }

    @Test func timeoutsOfReadsAreRetried() async throws {
        let transport = MockTransport([.failure(TransportFailure(kind: .timedOut, detail: "x")), MockTransport.fixture("transactionInfoResponse")])
        let client = try TestCredentials.client(transport)
        _ = try await client.getTransactionInfo(transactionId: "1")
        #expect(transport.requests.count == 2)
    }

    @Test func writesAreRetriedOnlyWhenIdempotent() async throws {
        let timeout = MockTransport.Reply.failure(TransportFailure(kind: .timedOut, detail: "x"))
        let test = MockTransport([timeout, MockTransport.fixture("requestTestNotificationResponse")])
        await #expect(throws: APIError.self) { _ = try await TestCredentials.client(test).requestTestNotification() }
        #expect(test.requests.count == 1)

        let consumption = MockTransport([MockTransport.json(500, retryable), .response(HTTPResponse(status: 202))])
        await #expect(throws: APIError.self) {
            try await TestCredentials.client(consumption).sendConsumptionInformation(
                transactionId: "1", request: .init(customerConsented: true, deliveryStatus: .delivered, sampleContentProvided: false))
        }
        #expect(consumption.requests.count == 1)

        let extend = MockTransport([timeout, MockTransport.fixture("extendSubscriptionRenewalDateResponse")])
        let request = ExtendRenewalDateRequest(extendByDays: 3, extendReasonCode: .serviceIssueOrOutage, requestIdentifier: "req-1")
        _ = try await TestCredentials.client(extend).extendSubscriptionRenewalDate(originalTransactionId: "1", request: request)
        #expect(extend.requests.count == 2)
        #expect(extend.requests[0].body == extend.requests[1].body)
    }

    @Test func cancellationStopsTheWait() async throws {
        let transport = MockTransport(Array(repeating: MockTransport.json(500, retryable), count: 10))
        let realClockClient = try AppStoreServerClient(
            credentials: TestCredentials.credentials, environment: .production, transport: transport,
            retryPolicy: RetryPolicy(maxAttempts: 10, baseDelay: 30, maxDelay: 30))
        let task = Task { try await realClockClient.getTransactionInfo(transactionId: "1") }
        // Cancel during the 30 s wait, once the first attempt has gone (however busy the machine).
        while transport.requests.isEmpty { try await Task.sleep(nanoseconds: 10_000_000) }
        try await Task.sleep(nanoseconds: 50_000_000)
        task.cancel()
        let result = await task.result
        guard case .failure(let error as APIError) = result else { Issue.record("expected cancellation"); return }
        #expect(error == .cancelled)
        #expect(transport.requests.count == 1)
    }

    @Test func backoffIsCappedAndJittered() {
        let policy = RetryPolicy(baseDelay: 0.5, maxDelay: 4, jitter: 1)
        #expect(policy.backoff(afterAttempt: 1, random: 0) == 0)
        #expect(policy.backoff(afterAttempt: 1, random: 0.999) < 0.5)
        #expect(policy.backoff(afterAttempt: 10, random: 0.5) == 2)
        let noJitter = RetryPolicy(baseDelay: 0.5, maxDelay: 4, jitter: 0)
        #expect((1...6).map { noJitter.backoff(afterAttempt: $0, random: 0.3) } == [0.5, 1, 2, 4, 4, 4])
    }

    @Test func retryAfterAcceptsMillisecondsAndSeconds() {
        #expect(AppStoreServerClient.parseRetryAfter("1700000000000")?.epochMilliseconds == 1_700_000_000_000)
        let seconds = AppStoreServerClient.parseRetryAfter("5")!
        #expect(abs(seconds.timeIntervalSinceNow - 5) < 1)
        #expect(AppStoreServerClient.parseRetryAfter("soon") == nil)
    }
}

@Suite struct PaginationTests {
    func historyPage(_ revision: String, hasMore: Bool, transactions: [String]) -> MockTransport.Reply {
        let list = transactions.map { "\"\($0)\"" }.joined(separator: ",")
        return MockTransport.json(200, #"{"revision":"\#(revision)","hasMore":\#(hasMore),"bundleId":"com.example","environment":"Production","signedTransactions":[\#(list)]}"#)
    }

    @Test func historyPagesFollowRevisionWithTheSameFilters() async throws {
        let transport = MockTransport([
            historyPage("r1", hasMore: true, transactions: ["a", "b"]),
            historyPage("r2", hasMore: true, transactions: ["c"]),
            historyPage("r3", hasMore: false, transactions: ["d"]),
        ])
        let client = try TestCredentials.client(transport)
        let pages = try await client.transactionHistoryPages(anyTransactionId: "77", query: .init(productTypes: [.consumable], sort: .descending)).collect()
        #expect(pages.flatMap { $0.signedTransactions ?? [] } == ["a", "b", "c", "d"])
        let urls = transport.requests.map(\.url.absoluteString)
        #expect(urls == [
            "https://api.storekit.apple.com/inApps/v2/history/77?productType=CONSUMABLE&sort=DESCENDING",
            "https://api.storekit.apple.com/inApps/v2/history/77?revision=r1&productType=CONSUMABLE&sort=DESCENDING",
            "https://api.storekit.apple.com/inApps/v2/history/77?revision=r2&productType=CONSUMABLE&sort=DESCENDING",
        ])
    }

    @Test func stoppingEarlyFetchesNoMore() async throws {
        let transport = MockTransport([
            historyPage("r1", hasMore: true, transactions: ["a"]), historyPage("r2", hasMore: true, transactions: ["b"]),
        ])
        let client = try TestCredentials.client(transport)
        for try await page in client.transactionHistoryPages(anyTransactionId: "77") {
            #expect(page.signedTransactions == ["a"])
            break
        }
        #expect(transport.requests.count == 1)
    }

    @Test func refundPages() async throws {
        let transport = MockTransport([
            MockTransport.json(200, #"{"revision":"x1","hasMore":true,"signedTransactions":["r1"]}"#),
            MockTransport.json(200, #"{"revision":"x2","hasMore":false,"signedTransactions":[]}"#),
        ])
        let pages = try await TestCredentials.client(transport).refundHistoryPages(anyTransactionId: "5").collect()
        #expect(pages.count == 2)
        #expect(transport.requests[1].url.query == "revision=x1")
    }

    @Test func notificationPagesReuseTheBody() async throws {
        let transport = MockTransport([
            MockTransport.json(200, #"{"paginationToken":"t1","hasMore":true,"notificationHistory":[{"signedPayload":"p1","sendAttempts":[]}]}"#),
            MockTransport.json(200, #"{"hasMore":false,"notificationHistory":[{"signedPayload":"p2"}]}"#),
        ])
        let request = NotificationHistoryRequest(startDate: Date(epochMilliseconds: Int64(1)), endDate: Date(epochMilliseconds: Int64(2)), onlyFailures: true)
        let pages = try await TestCredentials.client(transport).notificationHistoryPages(request: request).collect()
        #expect(pages.flatMap { $0.notificationHistory ?? [] }.map(\.signedPayload) == ["p1", "p2"])
        #expect(transport.requests[0].url.query == nil)
        #expect(transport.requests[1].url.query == "paginationToken=t1")
        #expect(transport.requests[0].body == transport.requests[1].body)
    }

    @Test func brokenPagingIsReportedNotLooped() async throws {
        let missing = MockTransport([MockTransport.json(200, #"{"hasMore":true,"signedTransactions":[]}"#)])
        await #expect(throws: APIError.self) { _ = try await TestCredentials.client(missing).transactionHistoryPages(anyTransactionId: "1").collect() }
        let repeating = MockTransport([historyPage("same", hasMore: true, transactions: []), historyPage("same", hasMore: true, transactions: [])])
        await #expect(throws: APIError.self) { _ = try await TestCredentials.client(repeating).transactionHistoryPages(anyTransactionId: "1").collect() }
        #expect(repeating.requests.count == 2)
    }
}

@Suite struct EnvironmentFallbackTests {
    @Test func sandboxIsTriedWhenProductionDoesNotKnowTheID() async throws {
        let transport = MockTransport([MockTransport.fixture("transactionIdNotFoundError", status: 404), MockTransport.fixture("transactionInfoResponse")])
        let client = try TestCredentials.client(transport, fallback: .sandbox)
        let found = try await client.withEnvironmentFallback { client throws(APIError) in try await client.getTransactionInfo(transactionId: "9") }
        #expect(found.environment == .sandbox)
        #expect(found.usedFallback)
        #expect(transport.requests.map { $0.url.host } == ["api.storekit.apple.com", "api.storekit-sandbox.apple.com"])
    }

    @Test func productionHitNeedsNoFallback() async throws {
        let transport = MockTransport([MockTransport.fixture("transactionInfoResponse")])
        let found = try await TestCredentials.client(transport, fallback: .sandbox).withEnvironmentFallback { client throws(APIError) in
            try await client.getTransactionInfo(transactionId: "9")
        }
        #expect(found.environment == .production)
        #expect(!found.usedFallback)
        #expect(transport.requests.count == 1)
    }

    @Test func missingInBothSaysSo() async throws {
        let transport = MockTransport([
            MockTransport.fixture("transactionIdNotFoundError", status: 404), MockTransport.fixture("transactionIdNotFoundError", status: 404),
        ])
        let client = try TestCredentials.client(transport, fallback: .sandbox)
        do {
            _ = try await client.withEnvironmentFallback { client throws(APIError) in
                try await client.getTransactionInfo(transactionId: "9")
            }
            Issue.record("must fail")
        } catch {
            #expect(error.isTransactionNotFound)
            #expect(error.summary.contains("Looked in Production and Sandbox"))
        }
    }

    @Test func otherErrorsDoNotFallBack() async throws {
        let transport = MockTransport([MockTransport.fixture("invalidTransactionIdError", status: 400)])
        await #expect(throws: APIError.self) {
            _ = try await TestCredentials.client(transport, fallback: .sandbox).withEnvironmentFallback { client throws(APIError) in
                try await client.getTransactionInfo(transactionId: "x")
            }
        }
        #expect(transport.requests.count == 1)
    }
}
