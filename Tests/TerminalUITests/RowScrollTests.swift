import CNCursesW
import Foundation
@testable import TerminalUI
import Testing

/// Frames whose rows moved are drawn by moving the rows with the terminal's scroll region; what the
/// terminal shows afterwards must be exactly the frame, whatever moved.
@Suite(.serialized) struct RowScrollTests {
    static let width = 60
    static let height = 16

    /// A bordered table showing rows `first...` with `first + selected` highlighted, and optionally a
    /// side panel in the right 20 columns whose text never moves.
    static func frame(first: Int, selected: Int? = nil, sidePanel: Bool = false, seed: Int = 0) -> Buffer {
        var buffer = Buffer(width: width, height: height)
        buffer.write("Notifications · 10,000 rows", x: 0, y: 0)
        let tableWidth = sidePanel ? width - 20 : width
        for line in 0..<(height - 3) {
            let index = first + line
            let style = index == selected.map({ first + $0 }) ? Style(modifiers: .reverse) : .plain
            if style != .plain { buffer.fill(Rect(x: 0, y: line + 2, width: tableWidth, height: 1), with: style) }
            buffer.write("│ 2026-10-\(String(format: "%02d", index % 28 + 1)) \(String(format: "%05d", index)) DID_RENEW \(seed)", x: 0, y: line + 2, style: style,
                         maxWidth: tableWidth)
            if sidePanel { buffer.write("│ detail line \(line)", x: tableWidth, y: line + 2) }
        }
        buffer.write("↑↓ move  Enter open  q quit", x: 0, y: height - 1)
        return buffer
    }

    // MARK: Finding the move

    @Test func findsATableScrolledUpOrDown() throws {
        let before = Self.frame(first: 100)
        for distance in 1...5 {
            for shift in [distance, -distance] {
                let after = Self.frame(first: 100 + shift)
                let move = try #require(RowScroll.find(from: before, to: after))
                #expect(move.distance == shift)
                #expect(move.top <= 2 && move.bottom == Self.height - 1, "the table's rows, not the footer: \(move)")
                // Left to draw: only the rows that came in.
                #expect(after.diff(from: before.scrolled(move)).count <= distance * Self.width)
            }
        }
    }

    @Test func leavesASelectionMoveAndUnrelatedFramesAlone() {
        #expect(RowScroll.find(from: Self.frame(first: 100, selected: 3), to: Self.frame(first: 100, selected: 4)) == nil)
        #expect(RowScroll.find(from: Self.frame(first: 100), to: Self.frame(first: 5_000)) == nil)
        #expect(RowScroll.find(from: Self.frame(first: 100), to: Self.frame(first: 100, seed: 1)) == nil)
        #expect(RowScroll.find(from: Self.frame(first: 100), to: Buffer(width: Self.width, height: Self.height)) == nil)
    }

    @Test func aTableBesideASidePanelIsNotScrolledFullWidth() {
        // The panel's lines stay put, so no whole line moved: moving full-width rows would move the panel too.
        #expect(RowScroll.find(from: Self.frame(first: 100, sidePanel: true), to: Self.frame(first: 101, sidePanel: true)) == nil)
    }

    @Test func scrolledBufferIsWhatATerminalShows() {
        let before = Self.frame(first: 100)
        let moved = before.scrolled(RowScroll(top: 2, bottom: 15, distance: 2))
        #expect(moved[0, 2] == before[0, 4])
        #expect(moved[5, 12] == before[5, 14])
        #expect(moved[3, 13] == .blank && moved[3, 14] == .blank)
        #expect(moved[0, 15] == before[0, 15], "rows outside the region stay")
    }

    // MARK: Through a backend

    /// Frames drawn one after another through the headless backend with scrolling on: its screen is
    /// each frame, and the scroll was used when rows moved.
    @Test func headlessScreenIsEveryFrame() {
        let backend = HeadlessBackend(width: Self.width, height: Self.height, scrollsRows: true)
        let terminal = Terminal(backend: backend)
        var scrolls = 0
        for frame in Self.sequence() {
            terminal.draw { _, buffer in buffer = frame }
            #expect(backend.screen == frame)
            if terminal.lastScroll != nil { scrolls += 1 }
        }
        #expect(scrolls >= 10)
    }

    /// Scrolls up and down by 1 to 5 rows, selection moves, a view scrolling under a highlighted row,
    /// a side panel, and frames where nothing matches.
    static func sequence() -> [Buffer] {
        var frames: [Buffer] = [frame(first: 100)]
        for distance in 1...5 { frames.append(frame(first: 100 + distance * (distance + 1) / 2)) }
        for distance in 1...5 { frames.append(frame(first: 115 - distance * (distance + 1) / 2)) }
        frames += [frame(first: 100, selected: 4), frame(first: 100, selected: 5), frame(first: 101, selected: 5)]
        // The view scrolling under a highlighted row that stays in the middle, then back.
        frames += (0..<6).map { frame(first: 200 + $0, selected: 6) } + (0..<3).map { frame(first: 204 - $0, selected: 6) }
        frames += [frame(first: 101, sidePanel: true), frame(first: 102, sidePanel: true), frame(first: 90, sidePanel: true)]
        frames += [frame(first: 7_000), frame(first: 7_000, seed: 3), Buffer(width: width, height: height), frame(first: 7_001), frame(first: 6_999)]
        return frames
    }

    /// The same frames through real ncurses on a pseudo-terminal: the bytes it writes, applied to a
    /// model of an xterm, leave exactly each frame on the screen, with fewer bytes for a scroll. On a
    /// vt100, whose capabilities carry padding ($<5>), the padding is never written as text.
    @Test(arguments: ["xterm-256color", "vt100"])
    func ncursesOutputLeavesEveryFrameOnAModelTerminal(_ type: String) throws {
        try PseudoTerminal.with(width: Self.width, height: Self.height) { pty in
            setenv("TERM", type, 1)
            for scrollRegions in [true, false] {
                let backend = try CursesBackend(
                    terminal: (type: type, input: pty.input, output: pty.output, outputFD: fileno(pty.output)), scrollRegions: scrollRegions)
                defer { backend.end() }
                #expect(backend.scrollsRows == scrollRegions)
                let terminal = Terminal(backend: backend)
                var screen = VTScreen(width: Self.width, height: Self.height)
                var scrolledBytes: [Int] = []
                for (index, frame) in Self.sequence().enumerated() {
                    terminal.draw { _, buffer in buffer = frame }
                    let bytes = pty.drain()
                    #expect(!String(decoding: bytes, as: UTF8.self).contains("$<"), "padding written as text on \(type)")
                    screen.apply(bytes)
                    #expect(screen.text == frame.text, "frame \(index) (scroll regions \(scrollRegions)):\n\(screen.text)\nexpected:\n\(frame.text)")
                    if terminal.lastScroll != nil { scrolledBytes.append(bytes.count) }
                }
                #expect(screen.unknown.isEmpty, "sequences the model does not know: \(Set(screen.unknown))")
                if scrollRegions {
                    #expect(scrolledBytes.count >= 10)
                    // A one-row scroll costs the region change, the scroll and the one row that came in.
                    #expect(scrolledBytes.first.map { $0 < 150 } == true, "\(scrolledBytes)")
                }
                _ = pty.drain()
            }
        }
    }
}
