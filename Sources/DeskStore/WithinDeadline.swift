import Synchronization

/// How long a write to a store may take before its caller is told it failed.
public enum WriteDeadline {
    /// The receiver's: it answers 503 then, well before Apple gives up on the request
    /// (docs/webhooks.md, "When the store is down").
    public static let standard: Duration = .seconds(3)
    /// A store's own, for callers that answer nobody (the console, `recover`, tests): enough for a
    /// loaded machine, and a server gone silent is still said as such.
    public static let store: Duration = .seconds(10)
}

/// The store did not answer within the deadline.
public struct DeadlinePassed: Error, CustomStringConvertible, Equatable {
    public let deadline: Duration

    public init(_ deadline: Duration) { self.deadline = deadline }

    public var description: String { "no answer within \(WriteDeadline.words(deadline))" }
}

extension WriteDeadline {
    /// "3 s", "1.5 s", "250 ms".
    public static func words(_ duration: Duration) -> String {
        let milliseconds = Double(duration.components.seconds) * 1000 + Double(duration.components.attoseconds) / 1e15
        if milliseconds < 1000 { return "\(Int(milliseconds.rounded())) ms" }
        let seconds = milliseconds / 1000
        return seconds == seconds.rounded() ? "\(Int(seconds)) s" : String(format: "%.1f s", seconds)
    }
}

/// Calls still running after their caller was told they failed: counted, so that whoever starts
/// them can stop starting more (or discard what holds them) instead of piling them up.
public final class AbandonedCalls: Sendable {
    private let count = Mutex(0)

    public init() {}

    /// Abandoned calls that have not ended yet.
    public var running: Int { count.withLock { $0 } }

    func abandoned() { count.withLock { $0 += 1 } }
    func ended() { count.withLock { $0 -= 1 } }
}

/// `body`'s result, or `timedOut()` thrown once `deadline` has passed, whichever comes first; a
/// cancelled caller gets CancellationError at once. Unlike a task group, this never waits for a body
/// that ignores cancellation (a database call blocked on a silent server): the body runs in a task
/// of its own, which is cancelled and left to end by itself, its result dropped and counted in
/// `abandoned` until it does. The deadline is measured on `clock`.
public func withinDeadline<T: Sendable>(
    _ deadline: Duration, abandoned: AbandonedCalls? = nil, onTimeout timedOut: (@Sendable () -> any Error)? = nil,
    clock: any Clock<Duration> = ContinuousClock(), _ body: @escaping @Sendable () async throws -> T
) async throws -> T {
    let race = DeadlineRace<T>(abandoned: abandoned)
    let work = Task {
        let result: Result<T, any Error>
        do { result = .success(try await body()) } catch { result = .failure(error) }
        race.workEnded(result)
    }
    let timer = Task {
        // Cancelled once the work ends: then nothing is left to time out.
        guard (try? await clock.sleep(for: deadline)) != nil else { return }
        race.gaveUp(timedOut?() ?? DeadlinePassed(deadline))
    }
    defer { timer.cancel() }
    return try await withTaskCancellationHandler {
        try await race.value(cancellingOnLoss: work)
    } onCancel: {
        race.gaveUp(CancellationError())
    }
}

/// The first of the work's end and the caller giving up decides the caller's result.
private final class DeadlineRace<T: Sendable>: Sendable {
    private struct State {
        var result: Result<T, any Error>?
        var continuation: CheckedContinuation<T, any Error>?
        /// The caller gave up while the work still ran.
        var workAbandoned = false
        var workDone = false
    }
    private let state = Mutex(State())
    private let abandoned: AbandonedCalls?

    init(abandoned: AbandonedCalls?) { self.abandoned = abandoned }

    func workEnded(_ result: Result<T, any Error>) {
        let waiting = state.withLock { state -> CheckedContinuation<T, any Error>? in
            state.workDone = true
            if state.workAbandoned { abandoned?.ended() }
            guard state.result == nil else { return nil }
            state.result = result
            defer { state.continuation = nil }
            return state.continuation
        }
        waiting?.resume(with: result)
    }

    func gaveUp(_ error: any Error) {
        let waiting = state.withLock { state -> CheckedContinuation<T, any Error>? in
            guard state.result == nil else { return nil }
            state.result = .failure(error)
            if !state.workDone {
                state.workAbandoned = true
                abandoned?.abandoned()
            }
            defer { state.continuation = nil }
            return state.continuation
        }
        waiting?.resume(throwing: error)
    }

    /// Waits for the decision; when the caller gave up, the work is told to stop, whether or not it listens.
    func value(cancellingOnLoss work: Task<Void, Never>) async throws -> T {
        defer { work.cancel() }
        return try await withCheckedThrowingContinuation { continuation in
            let ready = state.withLock { state -> Result<T, any Error>? in
                if let result = state.result { return result }
                state.continuation = continuation
                return nil
            }
            if let ready { continuation.resume(with: ready) }
        }
    }
}
