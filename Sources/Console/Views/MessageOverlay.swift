import DeskCore
import Foundation
import TerminalUI

/// The last error with its hint, wrapped in full: what the status line had to cut.
enum MessageOverlay {
    static func render(_ state: ConsoleState, _ theme: Theme, _ area: Rect, _ buffer: inout Buffer) {
        guard let error = state.lastError else { return }
        var lines: [[Paragraph.Span]] = [[.init("✗ " + error.summary, theme[.error].patched(with: theme[.modal]))]]
        if let hint = error.hint { lines += [[], [.init("Hint: " + hint, theme[.modal])]] }
        if let facts = error.facts { lines += [[], [.init(facts, theme[.muted])]] }
        lines += [[], [.init("Esc closes.", theme[.muted])]]
        Modal(title: "Message", lines: lines, style: theme[.modal], borderStyle: theme[.borderFocus], width: min(90, area.width - 2))
            .render(in: area, buffer: &buffer)
    }
}
