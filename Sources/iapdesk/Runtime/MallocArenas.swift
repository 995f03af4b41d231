import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// glibc's malloc gives a thread that finds the arenas busy an arena of its own, up to eight per
/// core, and memory freed in one arena is not reused by another: the console's tasks, NIO's event
/// loops and SQLite's thread pool spread a customer's answers over many arenas, each keeping its
/// free space (the demo with the 517-transaction customer ran at 76 to 86 MB, 76 with two). The
/// threads that allocate are about one per core (Swift's cooperative pool, NIO's loops), so one
/// arena per core keeps contention where it was. MALLOC_ARENA_MAX set by the user still decides.
enum MallocArenas {
    /// malloc.h's M_ARENA_MAX (Swift's Glibc module does not include malloc.h, hence mallopt by dlsym).
    static let arenaMax: Int32 = -8

    static func limitToOnePerCore() {
        #if canImport(Glibc)
        guard getenv("MALLOC_ARENA_MAX") == nil, let symbol = dlsym(nil, "mallopt") else { return }
        let mallopt = unsafeBitCast(symbol, to: (@convention(c) (Int32, Int32) -> Int32).self)
        _ = mallopt(arenaMax, Int32(max(2, ProcessInfo.processInfo.activeProcessorCount)))
        #endif
    }
}
