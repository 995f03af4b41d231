import CNCursesW
import Foundation
import Testing

/// A pseudo-terminal of a given size for tests that run real ncurses: the slave side opened as the
/// terminal's input and output, the master side read for what reached the terminal.
struct PseudoTerminal {
    let master: Int32
    let input: UnsafeMutablePointer<FILE>
    let output: UnsafeMutablePointer<FILE>

    /// Runs `body` with a terminal `width` by `height`, under the curses lock, closing everything after.
    static func with<T>(width: Int, height: Int, _ body: (PseudoTerminal) throws -> T) throws -> T {
        try CursesLock.run {
            let master = posix_openpt(O_RDWR | O_NOCTTY)
            try #require(master >= 0 && grantpt(master) == 0 && unlockpt(master) == 0)
            defer { close(master) }
            var size = winsize(ws_row: UInt16(height), ws_col: UInt16(width), ws_xpixel: 0, ws_ypixel: 0)
            _ = ioctl(master, UInt(TIOCSWINSZ), &size)
            let path = String(cString: try #require(ptsname(master)))
            let output = try #require(fopen(path, "r+"))
            let input = try #require(fopen(path, "r"))
            defer {
                fclose(input)
                fclose(output)
            }
            _ = fcntl(master, F_SETFL, fcntl(master, F_GETFL) | O_NONBLOCK)
            return try body(PseudoTerminal(master: master, input: input, output: output))
        }
    }

    /// Everything written to the terminal since the last drain.
    func drain() -> [UInt8] {
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = read(master, &chunk, chunk.count)
            if count <= 0 { break }
            bytes += chunk[0..<count]
        }
        return bytes
    }
}
