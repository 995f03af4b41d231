import Foundation

/// The moment by which a piece of work (every attempt, wait and page of it) must be done.
///
/// A command sets one around all it does with `Deadline.$current.withValue`; every call the client
/// makes inside stops there. A client can also bound each call on its own (`callTimeout`), which
/// is what a long-lived console wants.
public struct Deadline: Sendable, Equatable {
    /// On the client's clock (`RetryClock.now()`).
    public let date: Date
    /// The whole allowance it was made with, for messages.
    public let seconds: TimeInterval

    public init(seconds: TimeInterval, from start: Date = Date()) {
        self.seconds = seconds
        self.date = start.addingTimeInterval(seconds)
    }

    public func remaining(at now: Date) -> TimeInterval { date.timeIntervalSince(now) }

    /// The deadline in force for the current task, if any.
    @TaskLocal public static var current: Deadline?

    /// The sooner of two deadlines.
    static func earliest(_ first: Deadline?, _ second: Deadline?) -> Deadline? {
        guard let first else { return second }
        guard let second else { return first }
        return second.date < first.date ? second : first
    }
}

/// A deadline that passed before a complete answer arrived.
public struct DeadlineFailure: Sendable, Equatable {
    public let seconds: TimeInterval
    /// Attempts started, the one cut short included.
    public let attempts: Int
    /// What went wrong before, when an earlier attempt failed.
    public let lastProblem: String?

    public init(seconds: TimeInterval, attempts: Int, lastProblem: String? = nil) {
        self.seconds = seconds
        self.attempts = attempts
        self.lastProblem = lastProblem
    }

    public var summary: String {
        var text = "No complete answer within the \(Self.format(seconds)) deadline"
        if attempts > 1 { text += " (\(attempts) attempts)" }
        text += "."
        if let lastProblem { text += " Before that: \(lastProblem)" }
        return text
    }

    static func format(_ seconds: TimeInterval) -> String {
        seconds == seconds.rounded() ? "\(Int(seconds)) s" : String(format: "%.1f s", seconds)
    }
}
