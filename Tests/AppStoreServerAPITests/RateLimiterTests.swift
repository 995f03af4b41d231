@testable import AppStoreServerAPI
import Foundation
import Testing

@Suite struct RateLimiterTests {
    let start = Date(timeIntervalSince1970: 1_700_000_000)

    @Test func aSecondsWorthGoesAtOnceAndTheRestWaitsForTokensToComeBack() {
        let limiter = RequestRateLimiter(recordsGrants: true)
        let starts = (0..<120).map { _ in limiter.reserve("Get Transaction History", in: .production, now: start) }
        #expect(starts.prefix(50).allSatisfy { $0 == start })
        #expect(starts[50] == start.addingTimeInterval(1))
        #expect(starts[100] == start.addingTimeInterval(2))
        #expect(limiter.busiestSecond("Get Transaction History", in: .production) == 50)
    }

    @Test func sandboxGetsATenthAndListedEndpointsTheirOwnRate() {
        let limiter = RequestRateLimiter()
        #expect(limiter.limit(for: "Get Transaction History", in: .production) == 50)
        #expect(limiter.limit(for: "Get Transaction History", in: .sandbox) == 5)
        #expect(limiter.limit(for: "Look Up Order ID", in: .production) == 10)
        #expect(limiter.limit(for: "Request a Test Notification", in: .sandbox) == 1)
        let starts = (0..<11).map { _ in limiter.reserve("Get Transaction History", in: .sandbox, now: start) }
        #expect(starts[4] == start)
        #expect(starts[5] == start.addingTimeInterval(1))
        #expect(starts[10] == start.addingTimeInterval(2))
        // Production's bucket is another one.
        #expect(limiter.reserve("Get Transaction History", in: .production, now: start) == start)
    }

    @Test func aPacedShareSpacesStartsEvenlyBelowTheLimit() {
        let limiter = RequestRateLimiter(pacedShare: 0.8, recordsGrants: true)
        #expect(limiter.pace(for: "Get All Subscription Statuses", in: .production) == 40)
        let starts = (0..<100).map { _ in limiter.reserve("Get All Subscription Statuses", in: .production, now: start) }
        let gaps = zip(starts.dropFirst(), starts).map { $0.timeIntervalSince($1) }
        // Dates this far from 1970 hold microseconds, not nanoseconds.
        #expect(gaps.allSatisfy { abs($0 - 0.025) < 1e-6 }, "\(gaps.prefix(5))")
        #expect(abs(starts[99].timeIntervalSince(starts[0]) - 99 * 0.025) < 1e-5)
        // A 429 is counted, and holds the next start until its Retry-After.
        limiter.pause("Get All Subscription Statuses", in: .production, until: start.addingTimeInterval(10))
        #expect(limiter.rateLimitedAnswers == 1)
        #expect(limiter.reserve("Get All Subscription Statuses", in: .production, now: start) == start.addingTimeInterval(10))
    }

    @Test func aPauseHoldsEveryRequestUntilItEnds() {
        let limiter = RequestRateLimiter()
        limiter.pause("Get Transaction Info", in: .production, until: start.addingTimeInterval(3))
        #expect(limiter.reserve("Get Transaction Info", in: .production, now: start) == start.addingTimeInterval(3))
        #expect(limiter.reserve("Get Transaction Info", in: .production, now: start.addingTimeInterval(1)) == start.addingTimeInterval(3))
        // An earlier pause does not shorten a later one.
        limiter.pause("Get Transaction Info", in: .production, until: start.addingTimeInterval(2))
        #expect(limiter.reserve("Get Transaction Info", in: .production, now: start) == start.addingTimeInterval(3))
        #expect(limiter.reserve("Get All Subscription Statuses", in: .production, now: start) == start)
    }

    @Test func theClientWaitsForItsLimiterAndA429PausesIt() async throws {
        let clock = TestClock()
        let rateLimited = #"{"errorCode": 4290000, "errorMessage": "Rate limit exceeded."}"#
        let retryAt = clock.now().addingTimeInterval(2).epochMilliseconds
        var replies = [MockTransport.json(429, rateLimited, headers: ["Retry-After": String(retryAt)])]
        replies += Array(repeating: MockTransport.fixture("transactionInfoResponse"), count: 7)
        let transport = MockTransport(replies)
        let limiter = RequestRateLimiter(productionLimits: ["Get Transaction Info": 3], recordsGrants: true)
        let client = try TestCredentials.client(transport, clock: clock).limited(by: limiter)
        for _ in 0..<6 { _ = try await client.getTransactionInfo(transactionId: "1") }
        #expect(transport.requests.count == 7)
        #expect(limiter.grantedStarts("Get Transaction Info", in: .production).count == 7)
        #expect(limiter.busiestSecond("Get Transaction Info", in: .production) <= 3)
        // The retry waited for Retry-After; nothing was sent before it.
        let starts = limiter.grantedStarts("Get Transaction Info", in: .production)
        #expect(starts.dropFirst().allSatisfy { $0.epochMilliseconds >= retryAt })
    }
}
