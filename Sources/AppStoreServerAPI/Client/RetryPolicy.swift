import Foundation

/// When and how long to wait before sending a request again.
public struct RetryPolicy: Sendable, Equatable {
    /// Attempts in all, the first included.
    public var maxAttempts: Int
    public var baseDelay: TimeInterval
    public var maxDelay: TimeInterval
    /// Share of each delay that is random, 0...1, so clients that failed together do not retry together.
    public var jitter: Double
    /// A 429 whose Retry-After lies further ahead than this is reported instead of waited for.
    public var maxRetryAfterWait: TimeInterval

    public init(maxAttempts: Int = 4, baseDelay: TimeInterval = 0.5, maxDelay: TimeInterval = 8,
                jitter: Double = 0.5, maxRetryAfterWait: TimeInterval = 30) {
        self.maxAttempts = max(1, maxAttempts)
        self.baseDelay = baseDelay
        self.maxDelay = maxDelay
        self.jitter = min(max(jitter, 0), 1)
        self.maxRetryAfterWait = maxRetryAfterWait
    }

    public static let none = RetryPolicy(maxAttempts: 1)

    /// Backoff before attempt `attempt + 1` after `attempt` failed (1-based), given a uniform random 0..<1.
    public func backoff(afterAttempt attempt: Int, random: Double) -> TimeInterval {
        let exponential = baseDelay * pow(2, Double(max(0, attempt - 1)))
        let capped = min(exponential, maxDelay)
        return capped * (1 - jitter) + capped * jitter * random
    }
}

/// Time as the retry loop sees it; tests substitute one that does not sleep.
public protocol RetryClock: Sendable {
    func now() -> Date
    /// Sleeps, throwing `CancellationError` if the task is cancelled.
    func sleep(seconds: TimeInterval) async throws
    /// Sleeps until `date` on this clock (a rate limiter's slot); returns at once when it has passed.
    func sleep(until date: Date) async throws
}

extension RetryClock {
    public func sleep(until date: Date) async throws {
        try await sleep(seconds: date.timeIntervalSince(now()))
    }
}

public struct SystemRetryClock: RetryClock {
    public init() {}
    public func now() -> Date { Date() }
    public func sleep(seconds: TimeInterval) async throws {
        guard seconds > 0 else { return try Task.checkCancellation() }
        try await Task.sleep(nanoseconds: UInt64(seconds * 1_000_000_000))
    }
}
