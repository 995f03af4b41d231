import Console
import DeskCore
import Foundation

/// The first-run offer on the terminal as plain lines, answered with one key (no Enter needed
/// for d or q): a screen simple enough to work on any terminal, before curses starts.
enum FirstRunScreen {
    static func ask(_ offer: FirstRunOffer) -> FirstRunOffer.Choice {
        // Clear the screen and start at the top, as the console would.
        print("\u{1B}[2J\u{1B}[H" + offer.lines.joined(separator: "\n"), terminator: "\n\n")
        fflush(nil)
        var saved = termios()
        guard tcgetattr(STDIN_FILENO, &saved) == 0 else { return .quit }
        var raw = saved
        // One byte at a time, not echoed; signals stay off so Ctrl-C reads as a key and quits.
        raw.c_lflag &= ~tcflag_t(ICANON | ECHO | ISIG)
        raw.c_iflag &= ~tcflag_t(ICRNL)
        withUnsafeMutableBytes(of: &raw.c_cc) { cc in
            cc[Int(VMIN)] = 1
            cc[Int(VTIME)] = 0
        }
        tcsetattr(STDIN_FILENO, TCSAFLUSH, &raw)
        defer { tcsetattr(STDIN_FILENO, TCSAFLUSH, &saved) }
        var byte: UInt8 = 0
        while read(STDIN_FILENO, &byte, 1) == 1 {
            if let choice = FirstRunOffer.choice(forByte: byte) { return choice }
        }
        return .quit
    }
}
