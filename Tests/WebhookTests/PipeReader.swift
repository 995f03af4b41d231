import Foundation

/// Reads one output pipe of a child process on a thread of its own, until it holds all the child wrote.
///
/// Not `FileHandle.readabilityHandler`: on Linux it can stop being called before the end of a pipe
/// (swift-corelibs-foundation #3275). On a loaded machine the last pipe-full of an output then
/// stayed unread and the end never came: a test waited out its bound and judged `received`'s JSON
/// cut off in the middle, without the notification it looked for. The reader also does not wait
/// for the pipe's end once the child has exited: everything the child wrote is in the pipe by then,
/// and another process (a child spawned at the same moment, one the child left running) may
/// still hold the write end open.
final class PipeReader: Sendable {
    private let pipe: Pipe
    private let buffer = Locked(Data())
    private let finished = Locked(false)
    private let childExited = Locked(false)

    init(_ pipe: Pipe) {
        self.pipe = pipe
    }

    /// Starts reading; the thread keeps this reader (and so the pipe) until it has read everything.
    func start() {
        Thread { self.readAll() }.start()
    }

    /// Said once the child has exited: from then on an empty pipe is the end of its output.
    func childHasExited() { childExited.withLock { $0 = true } }

    /// Everything read so far.
    var data: Data { buffer.withLock { $0 } }
    /// The child's output is all in `data`.
    var isFinished: Bool { finished.withLock { $0 } }

    private func readAll() {
        let descriptor = pipe.fileHandleForReading.fileDescriptor
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while true {
            // Read before polling: an exit said during an empty poll means nothing more can come.
            let exitedBefore = childExited.withLock { $0 }
            var waiting = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            // The timeout only lets the loop notice the child's exit; data and the pipe's end wake it at once.
            let ready = poll(&waiting, 1, 50)
            if ready < 0 {
                if errno == EINTR { continue }
                break
            }
            if ready == 0 {
                if exitedBefore { break }
                continue
            }
            let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR || errno == EAGAIN { continue }
                break
            }
            if count == 0 { break }
            buffer.withLock { $0.append(contentsOf: chunk[0..<count]) }
        }
        finished.withLock { $0 = true }
    }
}
