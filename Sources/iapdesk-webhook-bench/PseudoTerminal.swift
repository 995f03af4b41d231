import CNCursesW
import Foundation
import Synchronization
import TerminalUI

#if canImport(Glibc)
import Glibc
#endif

/// A program run on a pseudo-terminal of a given size, as a user's terminal would run it: a thread of
/// its own reads everything the program writes (a full pty buffer would block the program in write),
/// keys are written to it, and `waitFor` returns once a text is on the screen the writes make
/// (`VTScreen`: ncurses redraws only what changed, so the raw bytes rarely hold a whole line).
final class PseudoTerminal {
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    let process: Process
    private let master: Int32
    /// Everything the program has written so far, and whether its side is closed.
    final class Output: Sendable {
        let state = Mutex<(bytes: [UInt8], closed: Bool)>(([], false))
        let arrived = NSCondition()
    }

    private let output = Output()
    /// The screen as far as its bytes have been applied.
    private(set) var screen: VTScreen
    private var applied = 0

    /// Starts `binary` with `arguments` on a new pseudo-terminal of `columns` x `rows`.
    init(_ binary: String, _ arguments: [String], columns: UInt16, rows: UInt16, environment: [String: String], log: String) throws {
        let master = posix_openpt(O_RDWR | O_NOCTTY)
        guard master >= 0, grantpt(master) == 0, unlockpt(master) == 0, let name = ptsname(master) else {
            throw Failure(description: "no pseudo-terminal: \(String(cString: strerror(errno)))")
        }
        // Set before the program starts: it reads the size once at start (TIOCGWINSZ), as on a terminal.
        var size = winsize(ws_row: rows, ws_col: columns, ws_xpixel: 0, ws_ypixel: 0)
        _ = ioctl(master, UInt(TIOCSWINSZ), &size)
        guard let slave = FileHandle(forUpdatingAtPath: String(cString: name)) else {
            close(master)
            throw Failure(description: "cannot open \(String(cString: name))")
        }
        _ = FileManager.default.createFile(atPath: log, contents: nil)
        self.master = master
        screen = VTScreen(width: Int(columns), height: Int(rows))
        process = Process()
        process.executableURL = URL(fileURLWithPath: binary)
        process.arguments = arguments
        process.environment = environment
        process.standardInput = slave
        process.standardOutput = slave
        process.standardError = FileHandle(forWritingAtPath: log)
        let output = self.output
        let arrived = output.arrived
        // Reads until the program's side is closed (read fails with EIO once no process holds it).
        let reader = Thread {
            var chunk = [UInt8](repeating: 0, count: 65_536)
            while true {
                let count = read(master, &chunk, chunk.count)
                if count < 0 && errno == EINTR { continue }
                arrived.lock()
                output.state.withLock { state in
                    if count > 0 { state.bytes += chunk[0..<count] } else { state.closed = true }
                }
                arrived.broadcast()
                arrived.unlock()
                if count <= 0 { return }
            }
        }
        reader.name = "pty reader"
        try process.run()
        // Only the program holds the terminal now: its exit ends the reader.
        try? slave.close()
        reader.start()
    }

    var pid: Int32 { process.processIdentifier }

    /// Writes `text` as typed keys.
    func type(_ text: String) {
        let bytes = Array(text.utf8)
        var written = 0
        while written < bytes.count {
            let count = bytes.withUnsafeBytes { buffer in write(master, buffer.baseAddress! + written, buffer.count - written) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { return }
            written += count
        }
    }

    /// Waits until `text` is on the screen, for at most `seconds`; throws with the text's name when
    /// it did not come, or the program ended first.
    func waitFor(_ text: String, seconds: Double = 60) throws {
        let deadline = Date().addingTimeInterval(seconds)
        let arrived = output.arrived
        arrived.lock()
        defer { arrived.unlock() }
        while true {
            let (fresh, closed) = output.state.withLock { state in
                let end = Self.wholeSequencesEnd(state.bytes, from: applied)
                return (Array(state.bytes[applied..<end]), state.closed)
            }
            applied += fresh.count
            screen.apply(fresh)
            if screen.text.contains(text) { return }
            if closed { throw Failure(description: "the program ended before it drew \"\(text)\"") }
            if !arrived.wait(until: deadline) { throw Failure(description: "\"\(text)\" was not drawn within \(Int(seconds)) s") }
        }
    }

    /// Where the bytes written so far end, short of an escape sequence or a UTF-8 character a read
    /// cut in two (their rest comes with the next read).
    static func wholeSequencesEnd(_ bytes: [UInt8], from start: Int) -> Int {
        var end = bytes.count
        // The last escape within reach of the end: complete once its final byte is there.
        if let escape = bytes[max(start, end - 64)..<end].lastIndex(of: 0x1B) {
            let rest = bytes[(escape + 1)..<end]
            let complete: Bool
            switch rest.first {
            case nil: complete = false
            case UInt8(ascii: "["): complete = rest.dropFirst().contains { (0x40...0x7E).contains($0) }
            case UInt8(ascii: "]"): complete = rest.contains(0x07) || rest.contains(UInt8(ascii: "\\"))
            case UInt8(ascii: "("), UInt8(ascii: ")"), UInt8(ascii: "*"), UInt8(ascii: "+"): complete = rest.count >= 2
            default: complete = true
            }
            if !complete { end = escape }
        }
        // A UTF-8 lead byte whose continuation bytes have not all come.
        for index in stride(from: end - 1, through: max(start, end - 3), by: -1) where bytes[index] >= 0xC0 {
            let length = bytes[index] >= 0xF0 ? 4 : bytes[index] >= 0xE0 ? 3 : 2
            if end - index < length { end = index }
            break
        }
        return max(start, end)
    }

    /// Ends the program (SIGTERM, then SIGKILL after 5 s) and waits for it.
    func stop() {
        if process.isRunning {
            process.terminate()
            let deadline = Date().addingTimeInterval(5)
            while process.isRunning && Date() < deadline { usleep(20_000) }
            if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        }
        process.waitUntilExit()
        close(master)
    }
}
