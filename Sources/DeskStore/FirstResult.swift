import Synchronization

/// The first result given, to a caller that waits for it: whoever comes first (the work, its
/// deadline, the caller's cancellation) settles it, and later results are dropped.
final class FirstResult<T: Sendable>: Sendable {
    private let state = Mutex<(result: Result<T, any Error>?, continuation: CheckedContinuation<T, any Error>?)>((nil, nil))

    init() {}

    var isSettled: Bool { state.withLock { $0.result != nil } }

    func settle(_ result: Result<T, any Error>) {
        let waiting = state.withLock { state -> CheckedContinuation<T, any Error>? in
            guard state.result == nil else { return nil }
            state.result = result
            defer { state.continuation = nil }
            return state.continuation
        }
        waiting?.resume(with: result)
    }

    /// The result, once settled; at once when it already is.
    func value() async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            let ready = state.withLock { state -> Result<T, any Error>? in
                if let result = state.result { return result }
                state.continuation = continuation
                return nil
            }
            if let ready { continuation.resume(with: ready) }
        }
    }
}
