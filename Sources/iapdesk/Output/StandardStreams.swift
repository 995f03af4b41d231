import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Writes to standard output and error that never trap. SwiftNIO ignores SIGPIPE, so a reader that
/// went away (`2>&1 | head -1`) turns a write into EPIPE, which FileHandle's write turns into a
/// crash: here it ends standard output's writer as SIGPIPE would, and is passed over on standard error.
enum StandardStreams {
    static func error(_ text: String) {
        _ = write(STDERR_FILENO, Data(text.utf8))
    }

    static func output(_ data: Data) {
        // Nobody reads any more: stop as a pipe's writer is stopped (128 + SIGPIPE). This stands in
        // for the signal SwiftNIO ignores, from any printer however deep, so it exits rather than throws.
        if !write(STDOUT_FILENO, data) && errno == EPIPE { exit(141) }
    }

    /// The whole of `data` to `descriptor`, again after an interrupted call; false with errno set when it fails.
    static func write(_ descriptor: Int32, _ data: Data) -> Bool {
        data.withUnsafeBytes { buffer -> Bool in
            guard let base = buffer.baseAddress else { return true }
            var offset = 0
            while offset < buffer.count {
                let written = systemWrite(descriptor, base + offset, buffer.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    return false
                }
                offset += written
            }
            return true
        }
    }

    private static func systemWrite(_ descriptor: Int32, _ pointer: UnsafeRawPointer, _ count: Int) -> Int {
        #if canImport(Glibc)
        Glibc.write(descriptor, pointer, count)
        #else
        Darwin.write(descriptor, pointer, count)
        #endif
    }
}
