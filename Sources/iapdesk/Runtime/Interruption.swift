import Foundation
import Synchronization

/// Ctrl-C during long work cancels that work instead of ending the process, so what has arrived
/// can still be printed. A second Ctrl-C ends the process at once.
enum Interruption {
    static func cancelling<T: Sendable>(_ task: Task<T, Never>) async -> T {
        let presses = Presses()
        signal(SIGINT, SIG_IGN)
        let source = DispatchSource.makeSignalSource(signal: SIGINT, queue: .global())
        source.setEventHandler {
            if presses.press() > 1 { exit(ExitStatus.interrupted.rawValue) }
            task.cancel()
        }
        source.resume()
        let value = await withTaskCancellationHandler { await task.value } onCancel: { task.cancel() }
        source.cancel()
        signal(SIGINT, SIG_DFL)
        return value
    }

    private final class Presses: Sendable {
        private let count = Mutex(0)

        /// Counts a press and returns how many there were.
        func press() -> Int {
            count.withLock { count in
                count += 1
                return count
            }
        }
    }
}
