import Foundation
import TerminalUI

/// Signal handling for the full-screen console: SIGTERM, SIGHUP and SIGINT ask the loop to end (so
/// the terminal is restored); SIGTSTP asks it to suspend (the terminal restored first, then the
/// process stopped for real); SIGCONT asks for a whole redraw; crash signals restore the terminal
/// before the process dies.
enum TerminalSignals {
    nonisolated(unsafe) static var wakeFD: Int32 = -1
    nonisolated(unsafe) static var stopRequested: sig_atomic_t = 0
    nonisolated(unsafe) static var suspendRequested: sig_atomic_t = 0
    nonisolated(unsafe) static var continued: sig_atomic_t = 0

    /// Call before curses starts: ncurses installs its own SIGTSTP handler only where the default
    /// is in place, and that one would stop the process from inside the handler, without the loop.
    static func install(wakeFD: Int32) {
        self.wakeFD = wakeFD
        for number in [SIGTERM, SIGHUP, SIGINT] {
            signal(number) { _ in
                TerminalSignals.stopRequested = 1
                TerminalSignals.wake()
            }
        }
        catchSuspend()
        signal(SIGCONT) { _ in
            TerminalSignals.continued = 1
            TerminalSignals.wake()
        }
        for number in [SIGSEGV, SIGABRT, SIGBUS, SIGILL, SIGFPE, SIGTRAP] {
            signal(number) { received in
                CursesBackend.emergencyRestore()
                signal(received, SIG_DFL)
                raise(received)
            }
        }
    }

    /// SIGTSTP (kill -TSTP, or a terminal whose Ctrl-Z is a signal) becomes a request the loop sees.
    static func catchSuspend() {
        signal(SIGTSTP) { _ in
            TerminalSignals.suspendRequested = 1
            TerminalSignals.wake()
        }
    }

    /// Stops the process group as the shell's Ctrl-Z does (a wrapper script stops with it), and
    /// returns once it is continued (`fg`, `bg`, SIGCONT). Restore the terminal first.
    static func stopUntilContinued() {
        suspendRequested = 0
        signal(SIGTSTP, SIG_DFL)
        kill(0, SIGTSTP)
        // Here again after SIGCONT (or at once in an orphaned process group, where SIGTSTP is discarded).
        catchSuspend()
    }

    /// Puts the signals back as they were before the console (SIGTSTP, SIGCONT: the defaults).
    static func uninstallSuspend() {
        signal(SIGTSTP, SIG_DFL)
        signal(SIGCONT, SIG_DFL)
    }

    private static func wake() {
        var byte: UInt8 = 0x53
        _ = write(TerminalSignals.wakeFD, &byte, 1)
    }
}
