import Foundation

/// Waits for SIGINT or SIGTERM.
enum ShutdownSignal {
    /// Catches SIGINT and SIGTERM from now on (the default would end the process), and says when
    /// the first comes: for work that starts before it waits. Ctrl-C goes through the one SIGINT
    /// source the process has, so that a listing read meanwhile takes it for the while and gives it back.
    static func armed() -> AsyncStream<Void> {
        let (stream, continuation) = AsyncStream<Void>.makeStream()
        let once = OnceFlag()
        let stop: @Sendable () -> Void = {
            if once.claim() {
                continuation.yield()
                continuation.finish()
            }
        }
        InterruptionSignal.shared.route(stop)
        signal(SIGTERM, SIG_IGN)
        let source = DispatchSource.makeSignalSource(signal: SIGTERM, queue: .global())
        source.setEventHandler { @Sendable in stop() }
        source.resume()
        Retained.sources.append(source)
        return stream
    }

    static func wait() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let once = OnceFlag()
            for signalNumber in [SIGINT, SIGTERM] {
                signal(signalNumber, SIG_IGN)
                let source = DispatchSource.makeSignalSource(signal: signalNumber, queue: .global())
                source.setEventHandler { @Sendable in
                    if once.claim() { continuation.resume() }
                }
                source.resume()
                Retained.sources.append(source)
            }
        }
    }
}

/// Keeps signal sources alive for the life of the process.
enum Retained {
    nonisolated(unsafe) static var sources: [any DispatchSourceSignal] = []
}

final class OnceFlag: @unchecked Sendable {
    private let lock = NSLock()
    private var claimed = false

    func claim() -> Bool {
        lock.lock()
        defer { lock.unlock() }
        if claimed { return false }
        claimed = true
        return true
    }
}
