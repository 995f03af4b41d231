import Foundation
import Synchronization

/// Runs an operation for at most a given time: the operation is abandoned at the limit (and
/// cancelled, without waiting for it to notice). `AsyncHTTPClientTransport` ends its requests at
/// their timeout itself; this keeps any transport (an injected one, a test's) from holding a call
/// for ever, and bounds the doctor's checks.
public enum TimeLimit {
    public enum Outcome<Value: Sendable>: Sendable {
        case finished(Result<Value, any Error>)
        case timedOut
    }

    public static func run<Value: Sendable>(
        seconds: TimeInterval, _ operation: @escaping @Sendable () async throws -> Value
    ) async -> Outcome<Value> {
        let race = Race<Outcome<Value>>()
        return await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                race.install(continuation)
                let work = Task {
                    do {
                        race.finish(.finished(.success(try await operation())))
                    } catch {
                        race.finish(.finished(.failure(error)))
                    }
                }
                let timer = Task {
                    do {
                        try await Task.sleep(nanoseconds: UInt64(max(0, seconds) * 1_000_000_000))
                        race.finish(.timedOut)
                    } catch {}
                }
                race.adopt([work, timer])
            }
        } onCancel: {
            race.finish(.finished(.failure(CancellationError())))
        }
    }
}

/// The first of several finishers wins; the others' tasks are cancelled.
private final class Race<Value: Sendable>: Sendable {
    private struct State {
        var continuation: CheckedContinuation<Value, Never>?
        var result: Value?
        var finished = false
        var tasks: [Task<Void, Never>] = []
    }

    private let state = Mutex(State())

    func install(_ continuation: CheckedContinuation<Value, Never>) {
        let ready: Value? = state.withLock { state in
            guard let result = state.result else {
                state.continuation = continuation
                return nil
            }
            return result
        }
        if let ready { continuation.resume(returning: ready) }
    }

    func adopt(_ tasks: [Task<Void, Never>]) {
        let late = state.withLock { state -> Bool in
            state.tasks = tasks
            return state.finished
        }
        if late { tasks.forEach { $0.cancel() } }
    }

    func finish(_ value: Value) {
        let (continuation, tasks) = state.withLock { state -> (CheckedContinuation<Value, Never>?, [Task<Void, Never>]) in
            guard !state.finished else { return (nil, []) }
            state.finished = true
            guard let continuation = state.continuation else {
                state.result = value
                return (nil, state.tasks)
            }
            state.continuation = nil
            return (continuation, state.tasks)
        }
        tasks.forEach { $0.cancel() }
        continuation?.resume(returning: value)
    }
}
