import AppStoreServerAPI
import DeskCore
import Foundation
import TerminalUI

/// The first earlier write with no known outcome, and what the agent can do about it.
enum UnresolvedWriteOverlay {
    static func render(_ state: ConsoleState, _ theme: Theme, _ area: Rect, _ buffer: inout Buffer) {
        guard let write = state.unresolvedWrites.first else { return }
        let intent = write.record.intent
        var lines: [[Paragraph.Span]] = []
        func row(_ name: String, _ value: String, _ role: ThemeRole = .modal) {
            lines.append([.init(name.padding(toLength: 14, withPad: " ", startingAt: 0), theme[.muted]), .init(value, theme[role])])
        }
        lines.append([.init("An earlier write has no known outcome: it may or may not have been applied.", theme[.warning])])
        lines.append([])
        row("What", "\(intent.method) \(intent.path)")
        if let body = intent.body { row("Body", body) }
        row("For", intent.subject ?? "-")
        row("Account", intent.account?.label ?? "-")
        row("Started", "\(DisplayFormat.date(intent.time)) by \(intent.agent ?? "?") (\(intent.source?.rawValue ?? "?"))")
        row("Now", write.record.stateLabel, .warning)
        row("Request ID", write.record.requestIdentifier)
        lines.append([])
        if write.extend != nil {
            lines.append([.init("s", theme[.footerKey]), .init(" re-send with the same request identifier (Apple applies it at most once)", theme[.modal])])
        } else {
            lines.append([.init("Re-run it from the command line; the same request is sent again.", theme[.muted])])
        }
        lines.append([.init("r", theme[.footerKey]), .init(" mark resolved (after checking the subscription's status)", theme[.modal])])
        lines.append([.init("l/Esc", theme[.footerKey]), .init(" leave it for later (:writes shows it again)", theme[.modal])])
        if state.unresolvedWrites.count > 1 { lines.append([.init("\(state.unresolvedWrites.count - 1) more after this one.", theme[.muted])]) }
        Modal(title: "Unfinished write", lines: lines, style: theme[.modal], borderStyle: theme[.warning], width: 86).render(in: area, buffer: &buffer)
    }
}
