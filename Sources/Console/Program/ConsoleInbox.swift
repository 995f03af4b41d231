import Foundation
import Synchronization

/// Where the effect runner's tasks post their answers for the console's one thread: they wait here
/// until the program takes them, and whoever waits for them is woken (the terminal's poll(2)
/// through `wake`, a test through `arrival()`).
public final class ConsoleInbox: Sendable {
    private struct Queue {
        var actions: [ConsoleAction] = []
        var waiters: [UInt64: CheckedContinuation<Void, Never>] = [:]
        var nextWaiter: UInt64 = 0
    }

    private let queue = Mutex(Queue())
    private let wake: @Sendable () -> Void

    public init(wake: @escaping @Sendable () -> Void = {}) {
        self.wake = wake
    }

    public func post(_ action: ConsoleAction) {
        let waiters = queue.withLock { queue -> [CheckedContinuation<Void, Never>] in
            queue.actions.append(action)
            defer { queue.waiters.removeAll() }
            return Array(queue.waiters.values)
        }
        for waiter in waiters { waiter.resume() }
        wake()
    }

    /// Every action waiting, oldest first; the inbox is empty after.
    public func take() -> [ConsoleAction] {
        queue.withLock { queue in
            defer { queue.actions.removeAll() }
            return queue.actions
        }
    }

    public var isEmpty: Bool { queue.withLock { $0.actions.isEmpty } }

    /// Returns once an action is waiting (at once when one is), or when the task is cancelled.
    public func arrival() async {
        let id = queue.withLock { queue -> UInt64 in
            defer { queue.nextWaiter += 1 }
            return queue.nextWaiter
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let now = queue.withLock { queue -> Bool in
                    guard queue.actions.isEmpty, !Task.isCancelled else { return true }
                    queue.waiters[id] = continuation
                    return false
                }
                if now { continuation.resume() }
            }
        } onCancel: {
            queue.withLock { $0.waiters.removeValue(forKey: id) }?.resume()
        }
    }
}
