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
        try PseudoTerminal.with(width: 70, height: 6) { pty in
            let backend = try CursesBackend(
                terminal: (type: "xterm-256color", input: pty.input, output: pty.output, outputFD: fileno(pty.output)), glyphs: .ascii)
            defer { backend.end() }
            let terminal = Terminal(backend: backend)
            terminal.draw { _, buffer in buffer = Self.frame(width: 70, height: 6) }
            let bytes = pty.drain()
            #expect(bytes.count > 70 * 2, "the frame was written")
            #expect(bytes.allSatisfy { $0 < 0x80 }, "bytes above 0x7F: \(bytes.filter { $0 >= 0x80 }.prefix(10))")
            #expect(String(decoding: bytes, as: UTF8.self).contains("+ verified - x not"))
        }
    }
}
