import Foundation

/// Runs blocking work (a child process's whole run, a pipe read to its end) on a thread of its own.
/// Waiting for a child on the concurrency pool holds one of its threads (two on a 2-core machine)
/// for the child's whole life; two such waits at once stop every other test's tasks in the process,
/// the embedded servers' answers among them.
func offThePool<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        Thread { continuation.resume(with: Result { try body() }) }.start()
    }
}
