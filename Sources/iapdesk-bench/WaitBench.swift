import AppStoreServerAPI
import Foundation
import NIOCore
import NIOPosix

/// What waiting costs: the process's CPU time (getrusage user + system) per wall second while
/// requests wait on a loopback server that accepts their connections and never answers, from the
/// moment all of them reached it until their timeout ended them. (URLSession's, the transport
/// before this one, cost 0.96 CPU seconds per second here: Linux's libcurl-based URLSession polls.)
enum WaitBench {
    /// CPU seconds per wall second a wait may cost.
    static let limit = 0.01

    static func run(requests: Int, seconds: Double) async throws {
        let transport = AsyncHTTPClientTransport()
        let (connections, accepted) = AsyncStream<Void>.makeStream()
        let server = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.backlog, value: 256)
            .childChannelInitializer { channel in
                accepted.yield()
                return channel.eventLoop.makeSucceededVoidFuture()
            }
            .bind(host: "127.0.0.1", port: 0).get()
        let url = URL(string: "http://127.0.0.1:\(server.localAddress?.port ?? 0)/inApps/v1/transactions/1")!
        let started = ContinuousClock.now
        async let outcomes = withTaskGroup(of: (timedOut: Bool, seconds: Double).self) { group in
            for _ in 0..<requests {
                group.addTask {
                    let sent = ContinuousClock.now
                    let timedOut: Bool
                    // As the client sends an attempt: the transport's own deadline, and the race beside it.
                    switch await TimeLimit.run(seconds: seconds, { try await transport.send(HTTPRequest(method: "GET", url: url, timeout: seconds)) }) {
                    case .timedOut: timedOut = true
                    case .finished(.failure(let failure as TransportFailure)): timedOut = failure.kind == .timedOut
                    case .finished: timedOut = false
                    }
                    return (timedOut, (ContinuousClock.now - sent).seconds)
                }
            }
            var all: [(timedOut: Bool, seconds: Double)] = []
            for await outcome in group { all.append(outcome) }
            return all
        }
        var arrivals = connections.makeAsyncIterator()
        for _ in 0..<requests { _ = await arrivals.next() }
        let cpuBefore = cpuSeconds()
        let waitStarted = ContinuousClock.now
        let ended = await outcomes
        let cpu = cpuSeconds() - cpuBefore
        let wall = (ContinuousClock.now - waitStarted).seconds
        let ratio = cpu / max(wall, 1e-9)
        let timedOut = ended.filter(\.timedOut).count
        let took = ended.map(\.seconds)
        print("wait_silent_\(requests)_cpu_per_wall_second: \(String(format: "%.4f", ratio)) cpu_s/s (limit \(limit): \(String(format: "%.2f", ratio / limit)) of it; \(String(format: "%.3f", cpu)) s of CPU over \(String(format: "%.2f", wall)) s, the \(requests) connections made after \(String(format: "%.2f", (waitStarted - started).seconds)) s)")
        print("wait_silent_\(requests)_timed_out: \(timedOut) of \(requests) (each ended after \(String(format: "%.2f", took.min() ?? 0)) to \(String(format: "%.2f", took.max() ?? 0)) s; timeout \(String(format: "%g", seconds)) s)")
        try await server.close()
    }

    /// This process's user and system CPU seconds so far.
    static func cpuSeconds() -> Double {
        var usage = rusage()
        #if os(Linux)
        getrusage(Int32(RUSAGE_SELF.rawValue), &usage)
        #else
        getrusage(RUSAGE_SELF, &usage)
        #endif
        return Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
    }
}
