import CNCursesW
import Foundation
import Testing
import TerminalUI

/// The ASCII glyph set: one ASCII cell for each cell, on the buffer and in the bytes ncurses writes.
struct GlyphSetTests {
    static func frame(width: Int, height: Int) -> Buffer {
        var buffer = Buffer(width: width, height: height)
        Block(title: "Customer").render(in: Rect(x: 0, y: 0, width: width, height: height), buffer: &buffer)
        _ = buffer.write("✓ verified · ✗ not · ⚠ late → next… ▸ ▾ ↑↓ ⠙ 日本 Café", x: 1, y: 1)
        return buffer
    }

    @Test func asciiReplacesEveryCellAndKeepsTheLayout() {
        var buffer = Self.frame(width: 60, height: 4)
        let unicode = buffer
        buffer.draw(with: .ascii)
        #expect(buffer.text.utf8.allSatisfy { $0 < 0x80 })
        let lines = buffer.text.split(separator: "\n")
        #expect(lines[0].hasPrefix("+- Customer ---") && lines[0].hasSuffix("-+"))
        #expect(lines[1] == "|+ verified - x not - ! late > next~ > v ^v / ???? Caf?    |")
        #expect(lines[3].hasPrefix("+---") && lines[3].hasSuffix("-+"))
        #expect(lines.allSatisfy { $0.count == 60 })
        var same = unicode
        same.draw(with: .unicode)
        #expect(same == unicode, "UTF-8 draws as before")
    }

    /// Through real ncurses on a pseudo-terminal: not one byte above 0x7F reaches the terminal.
    @Test func ncursesWritesOnlyASCIIUnderTheASCIISet() throws {
        try CursesLock.run {
            let master = posix_openpt(O_RDWR | O_NOCTTY)
            try #require(master >= 0 && grantpt(master) == 0 && unlockpt(master) == 0)
            defer { close(master) }
            var size = winsize(ws_row: 6, ws_col: 70, ws_xpixel: 0, ws_ypixel: 0)
            _ = ioctl(master, UInt(TIOCSWINSZ), &size)
            let path = String(cString: try #require(ptsname(master)))
            let output = try #require(fopen(path, "r+"))
            let input = try #require(fopen(path, "r"))
            defer {
                fclose(input)
                fclose(output)
            }
            _ = fcntl(master, F_SETFL, fcntl(master, F_GETFL) | O_NONBLOCK)
            let backend = try CursesBackend(terminal: (type: "xterm-256color", input: input, output: output, outputFD: fileno(output)), glyphs: .ascii)
            defer { backend.end() }
            let terminal = Terminal(backend: backend)
            terminal.draw { _, buffer in buffer = Self.frame(width: 70, height: 6) }
            var bytes: [UInt8] = []
            var chunk = [UInt8](repeating: 0, count: 65_536)
            while true {
                let count = read(master, &chunk, chunk.count)
                if count <= 0 { break }
                bytes += chunk[0..<count]
            }
            #expect(bytes.count > 70 * 2, "the frame was written")
            #expect(bytes.allSatisfy { $0 < 0x80 }, "bytes above 0x7F: \(bytes.filter { $0 >= 0x80 }.prefix(10))")
            #expect(String(decoding: bytes, as: UTF8.self).contains("+ verified - x not"))
        }
    }
}
