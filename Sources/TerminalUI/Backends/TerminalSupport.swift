import CNCursesW
import Foundation

/// Whether the terminal can show the full-screen console, decided from TERM and terminfo before
/// curses starts: on a terminal it cannot draw on, curses would draw garbage or exit with its own message.
public enum TerminalSupport: Equatable, Sendable {
    case drawable
    /// TERM is unset or empty.
    case unset
    /// The type cannot address the cursor (`dumb`, a hard-copy terminal).
    case noCursorAddressing(term: String)
    /// terminfo does not know the type.
    case unknown(term: String)

    /// `term` is the value of TERM (nil: unset); `fd` the terminal's descriptor (for its size).
    public static func check(term: String?, fd: Int32 = STDOUT_FILENO) -> TerminalSupport {
        guard let term, !term.isEmpty else { return .unset }
        switch iapdesk_terminal_can_draw(term, fd) {
        case 1: return .drawable
        case 0: return .noCursorAddressing(term: term)
        default: return .unknown(term: term)
        }
    }
}
