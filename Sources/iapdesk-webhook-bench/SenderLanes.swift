import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Senders that cost the receiver's cores as little as they can: each a thread of its own with one
/// keep-alive connection (`RawClient`), walking its share of the bodies in order. What they cost is
/// measured, not guessed: each thread's own CPU time, so that the process's CPU time minus the
/// senders' is the receiver's.
struct SenderLanes {
    struct Run {
        /// Wall seconds from the first request sent to the last answer.
        var seconds: Double
        /// Each request's milliseconds, from its first byte sent to its answer's last byte.
        var latencies: [Double]
        /// Requests not answered with the expected status.
        var failures: Int
        /// CPU seconds of the sender threads, and of the whole process, over the run.
        var sendersCPU: Double
        var processCPU: Double

        /// The receiver's share: the process's CPU time minus the senders'.
        var receiverCPU: Double { max(0, processCPU - sendersCPU) }
    }

    let port: Int
    let path: String
    let connections: Int

    /// Sends every body once with `connections` in flight.
    func send(_ bodies: [Data], expecting: Int = 200) async -> Run {
        let lanes = (0..<connections).map { lane in Array(stride(from: lane, to: bodies.count, by: connections).map { bodies[$0] }) }
        let clock = ContinuousClock()
        let processBefore = Self.processCPUSeconds()
        let started = clock.now
        let results = await withTaskGroup(of: (latencies: [Double], failures: Int, cpu: Double).self) { group in
            for lane in lanes {
                group.addTask { [port, path] in
                    await withCheckedContinuation { continuation in
                        Thread {
                            let client = RawClient(port: port, path: path)
                            let cpuBefore = Self.threadCPUSeconds()
                            var latencies: [Double] = []
                            latencies.reserveCapacity(lane.count)
                            var failures = 0
                            for body in lane {
                                let sent = clock.now
                                let status = client.post(body)
                                latencies.append(WebhookBench.seconds(clock.now - sent) * 1000)
                                if status != expecting { failures += 1 }
                            }
                            continuation.resume(returning: (latencies, failures, Self.threadCPUSeconds() - cpuBefore))
                        }.start()
                    }
                }
            }
            var all = (latencies: [Double](), failures: 0, cpu: 0.0)
            for await result in group {
                all.latencies += result.latencies
                all.failures += result.failures
                all.cpu += result.cpu
            }
            return all
        }
        let seconds = WebhookBench.seconds(clock.now - started)
        return Run(
            seconds: seconds, latencies: results.latencies, failures: results.failures, sendersCPU: results.cpu,
            processCPU: Self.processCPUSeconds() - processBefore)
    }

    /// CPU seconds (user and system) of the calling thread since it started.
    static func threadCPUSeconds() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }

    /// CPU seconds (user and system) of the whole process since it started.
    static func processCPUSeconds() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }
}
