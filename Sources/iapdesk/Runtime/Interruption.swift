import Foundation
import Synchronization

/// Ctrl-C during long work cancels that work instead of ending the process, so what has arrived
/// can still be printed. A second Ctrl-C ends the process at once.
enum Interruption {
    static func cancelling<T: Sendable>(_ task: Task<T, Never>) async -> T {
        // Routed here for the while, then back to what had it (a long-lived command's own stop).
        let previous = InterruptionSignal.shared.route { task.cancel() }
        let value = await withTaskCancellationHandler { await task.value } onCancel: { task.cancel() }
        InterruptionSignal.shared.route(previous)
        return value
    }
}

/// One SIGINT source for the whole process, made on first use and kept: on Linux, libdispatch
/// installs its signal handler once per signal, so a second source made after `signal()` reset
/// the handler would never fire (a command that fetches and then sends, as `recover` does, needs
/// Ctrl-C twice over). Outside a routed piece of work Ctrl-C ends the process, as by default.
final class InterruptionSignal: Sendable {
    static let shared = InterruptionSignal()

    private struct State {
        var cancel: (@Sendable () -> Void)?
        var presses = 0
        var installed = false
    }
    private let state = Mutex(State())
    nonisolated(unsafe) private static var source: (any DispatchSourceSignal)?

    /// Sends the next Ctrl-C to `cancel` (nil: the next one ends the process); gives what had it before.
    @discardableResult
    func route(_ cancel: (@Sendable () -> Void)?) -> (@Sendable () -> Void)? {
        state.withLock { state in
            let previous = state.cancel
            state.cancel = cancel
            state.presses = 0
            guard !state.installed else { return previous }
            state.installed = true
            signal(SIGINT, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: SIGINT, queue: .global())
            source.setEventHandler { InterruptionSignal.shared.pressed() }
            source.resume()
            Self.source = source
            return previous
        }
    }

    private func pressed() {
        let cancel = state.withLock { state -> (@Sendable () -> Void)? in
            state.presses += 1
            return state.presses > 1 ? nil : state.cancel
        }
        // The second Ctrl-C arrives on the signal source's queue, outside any command's task: there
        // is nothing to throw to, and ending at once is the point, so this is the one `exit`.
        guard let cancel else { exit(ExitStatus.interrupted.rawValue) }
        cancel()
    }
}
