import DeskCore
import Foundation
import TerminalUI

/// The report of `:doctor`: each check with its status and, unless it passed, the fix.
enum DoctorOverlay {
    static func render(_ state: ConsoleState, _ theme: Theme, _ area: Rect, _ buffer: inout Buffer) {
        guard let report = state.doctorReport else { return }
        var lines: [[Paragraph.Span]] = [[.init(report.summary, theme[.modal].bold)], []]
        for check in report.checks {
            let role: ThemeRole
            switch check.status {
            case .pass: role = .success
            case .warn: role = .warning
            case .fail: role = .error
            case .skip: role = .muted
            }
            lines.append([.init(check.status.label.padding(toLength: 5, withPad: " ", startingAt: 0), theme[role].patched(with: theme[.modal]).bold),
                          .init(check.name + ": ", theme[.modal].bold), .init(check.detail, theme[.modal])])
            if let fix = check.fix { lines.append([.init("     fix: " + fix, theme[.muted])]) }
        }
        lines += [[], [.init("Esc closes. iapdesk doctor prints the same on the command line.", theme[.muted])]]
        Modal(title: "Set-up check", lines: lines, style: theme[.modal], borderStyle: theme[.borderFocus], width: min(110, area.width - 2))
            .render(in: area, buffer: &buffer)
    }
}
