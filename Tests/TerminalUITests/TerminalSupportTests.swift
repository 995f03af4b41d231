import Testing
import TerminalUI

/// TERM decides before curses starts whether the console can draw at all.
struct TerminalSupportTests {
    @Test func terminfoSaysWhichTerminalsCanDrawTheConsole() {
        CursesLock.run {
            #expect(TerminalSupport.check(term: "xterm-256color") == .drawable)
            #expect(TerminalSupport.check(term: "vt100") == .drawable)
            #expect(TerminalSupport.check(term: "dumb") == .noCursorAddressing(term: "dumb"))
            #expect(TerminalSupport.check(term: "no-such-terminal-type") == .unknown(term: "no-such-terminal-type"))
            #expect(TerminalSupport.check(term: nil) == .unset)
            #expect(TerminalSupport.check(term: "") == .unset)
        }
    }
}
