import AppStoreServerAPI
import Foundation
import TerminalUI

enum HelpOverlay {
    /// Every command from the registry; in two columns when one does not fit the screen.
    static func render(_ state: ConsoleState, _ theme: Theme, _ area: Rect, _ buffer: inout Buffer) {
        var lines: [[Paragraph.Span]] = []
        for context in ActionContext.allCases {
            let commands = state.keymap.commands.filter { $0.context == context }
            guard !commands.isEmpty else { continue }
            lines.append([.init(context.rawValue, theme[.header])])
            for command in commands {
                let keys = ActionRegistry.keyNames(command)
                let disabled = command.dangerous && state.readOnly
                lines.append([.init(" " + TextWidth.truncate(keys, to: 12).padding(toLength: 13, withPad: " ", startingAt: 0), theme[.footerKey]),
                              .init(command.title + (disabled ? " (read-only)" : ""), disabled ? theme[.muted] : theme[.modal])])
            }
        }
        let footer: [[Paragraph.Span]] = [
            [.init(":order ID  :tx ID  :env sandbox  :theme light  :since 24h  :quit", theme[.muted])],
            [.init("Tab completes : commands. Esc or ? closes this help.", theme[.muted])],
        ]
        let box = area.centered(width: min(96, area.width - 2), height: area.height - 2)
        buffer.fill(box, with: theme[.modal])
        Block(title: "Keys", style: theme[.borderFocus], titleStyle: theme[.borderFocus].bold).render(in: box, buffer: &buffer)
        let inner = Block.inner(box).inset(horizontal: 1)
        let rows = max(1, inner.height - footer.count)
        let columns = lines.count > rows && inner.width >= 60 ? 2 : 1
        let perColumn = (lines.count + columns - 1) / columns
        let parts = Layout.split(Rect(x: inner.x, y: inner.y, width: inner.width, height: rows), .horizontal,
                                 Array(repeating: .fill(1), count: columns), spacing: 2)
        for (index, part) in parts.enumerated() {
            let slice = Array(lines.dropFirst(index * perColumn).prefix(perColumn))
            Paragraph(lines: slice, wrap: false).render(in: part, buffer: &buffer)
        }
        Paragraph(lines: footer, wrap: false).render(in: Rect(x: inner.x, y: inner.bottom - footer.count, width: inner.width, height: footer.count), buffer: &buffer)
    }
}
