import Foundation
import TerminalUI

/// Whether the console can open here, said before anything starts: standard input and output must
/// be a terminal, and TERM one that terminfo knows and that can address the cursor. Elsewhere the
/// error points at the command line, where every view is also a command.
enum ConsoleTerminal {
    static let commands =
        "every view is also a command: iapdesk lookup ID, iapdesk status ID, iapdesk history ID, iapdesk refunds ID, "
        + "iapdesk timeline ID, iapdesk notifications, iapdesk received, iapdesk decode (iapdesk --help lists them all)"

    static func requireDrawable(environment: [String: String] = ProcessInfo.processInfo.environment) throws {
        guard isatty(STDIN_FILENO) == 1, isatty(STDOUT_FILENO) == 1 else {
            let which = isatty(STDOUT_FILENO) == 1 ? "standard input is not one" : "standard output is not one (a pipe or a file)"
            throw CLIError("The console needs a terminal: \(which); \(commands).", hint: "Run iapdesk in a terminal, or use the commands in scripts.", status: .usage)
        }
        if let problem = problem(TerminalSupport.check(term: environment["TERM"])) { throw problem }
    }

    /// The error for a terminal the console cannot draw on; nil when it can.
    static func problem(_ support: TerminalSupport) -> CLIError? {
        switch support {
        case .drawable:
            return nil
        case .unset:
            return CLIError(
                "TERM is not set, so the console cannot draw on this terminal; \(commands).",
                hint: "Set TERM to the terminal's type (such as TERM=xterm-256color) to open the console.", status: .configuration)
        case .noCursorAddressing(let term):
            return CLIError(
                "This terminal (TERM=\(term)) cannot draw the console: it cannot move the cursor; \(commands).",
                hint: "In a terminal emulator, set TERM to its type (such as TERM=xterm-256color) to open the console.", status: .configuration)
        case .unknown(let term):
            return CLIError(
                "This terminal (TERM=\(term)) is not in the terminfo database, so the console cannot draw on it; \(commands).",
                hint: "Set TERM to a type terminfo knows (such as TERM=xterm-256color; infocmp lists what it has), or install the terminal's terminfo entry.",
                status: .configuration)
        }
    }
}
