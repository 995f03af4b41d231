import Logging
import NIOCore
import ServiceLifecycle

/// Hummingbird applications run as one service group, started and waited for until each has bound
/// its address or failed to: the start-up of the demo server and of the notification receiver.
public struct BoundServices: Sendable {
    /// What an application is made with: the callback it passes as its `onServerRunning`.
    public typealias OnServerRunning = @Sendable (any Channel) async -> Void

    public let group: ServiceGroup
    public let task: Task<Void, any Error>
    /// Each application's port, in the order they were made; 0 for one that did not bind.
    public let ports: [Int]

    /// Makes each application with the callback that reports its port, runs them in one group (no
    /// shutdown signals: the owner stops it) and returns once every one has bound or the group ended.
    public static func start(logger: Logger, _ applications: [(@escaping OnServerRunning) -> any Service]) async -> BoundServices {
        var services: [any Service] = []
        var streams: [AsyncStream<Int>] = []
        var continuations: [AsyncStream<Int>.Continuation] = []
        for make in applications {
            let (stream, continuation) = AsyncStream<Int>.makeStream()
            streams.append(stream)
            continuations.append(continuation)
            services.append(make { channel in
                continuation.yield(channel.localAddress?.port ?? 0)
                continuation.finish()
            })
        }
        let group = ServiceGroup(configuration: .init(services: services, gracefulShutdownSignals: [], logger: logger))
        // A bind that fails ends the group without calling onServerRunning: the wait ends with it.
        let task = Task { [continuations] in
            defer { for continuation in continuations { continuation.finish() } }
            try await group.run()
        }
        var ports: [Int] = []
        for stream in streams {
            var port = 0
            for await bound in stream { port = bound }
            ports.append(port)
        }
        return BoundServices(group: group, task: task, ports: ports)
    }

    /// Ends the group at once (after a bind failed) and waits for it to wind down.
    public func cancel() async {
        task.cancel()
        _ = try? await task.value
    }
}
