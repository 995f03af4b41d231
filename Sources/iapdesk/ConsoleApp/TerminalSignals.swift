import Foundation
import TerminalUI

/// Signal handling for the full-screen console: SIGTERM, SIGHUP and SIGINT ask the loop to end (so
/// the terminal is restored); crash signals restore the terminal before the process dies.
enum TerminalSignals {
    nonisolated(unsafe) static var wakeFD: Int32 = -1
    nonisolated(unsafe) static var stopRequested: sig_atomic_t = 0

    static func install(wakeFD: Int32) {
        self.wakeFD = wakeFD
        for number in [SIGTERM, SIGHUP, SIGINT] {
            signal(number) { _ in
                TerminalSignals.stopRequested = 1
                var byte: UInt8 = 0x53
                _ = write(TerminalSignals.wakeFD, &byte, 1)
            }
        }
        for number in [SIGSEGV, SIGABRT, SIGBUS, SIGILL, SIGFPE, SIGTRAP] {
            signal(number) { received in
                CursesBackend.emergencyRestore()
                signal(received, SIG_DFL)
                raise(received)
            }
        }
    }
}
