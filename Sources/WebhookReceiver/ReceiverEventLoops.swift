import NIOCore
import NIOPosix

/// The event loops the receiver's connections are served on: a quarter of the cores, at least one,
/// rather than NIO's shared group of one loop a core. A notification's HTTP work on its loop is about
/// a quarter of its CPU time (the signatures and the store's write run elsewhere), and with fewer
/// loops each one wakes for several requests at a time instead of one: on 2 cores, one loop took
/// 15 to 20 µs of CPU off each notification (docs/benchmarks.md, "Eleventh session").
enum ReceiverEventLoops {
    /// Made once a process starts a receiver, and kept for the process's life as NIO's own is.
    static let group = MultiThreadedEventLoopGroup(numberOfThreads: max(1, System.coreCount / 4))
}
