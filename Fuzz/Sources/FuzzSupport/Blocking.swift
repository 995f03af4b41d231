import Foundation

/// Runs async code to completion from libFuzzer's synchronous callback.
public func runBlocking<Result: Sendable>(_ operation: @escaping @Sendable () async -> Result) -> Result {
    let box = Box<Result>()
    let done = DispatchSemaphore(value: 0)
    Task.detached {
        box.value = await operation()
        done.signal()
    }
    done.wait()
    return box.value!
}

/// Written by one task, read after the semaphore: no concurrent access.
private final class Box<Value>: @unchecked Sendable {
    var value: Value?
}
