import AppStoreServerAPI
import DeskCore
import Foundation
import TerminalUI

/// Every key and `:` command from the registry, in two columns when one does not fit, in pages
/// when two do not. A dialog's own keys are in its footer, not here.
enum HelpOverlay {
    struct Entry {
        var keys: String
        var title: String
        var isHeading = false
        var disabled = false
    }

    static func entries(_ state: ConsoleState) -> [Entry] {
        let dialogs = Set(OverlayCommands.all.map(\.context))
        var entries: [Entry] = []
        for context in ActionRegistry.contexts where !dialogs.contains(context) {
            let commands = state.keymap.commands.filter { $0.context == context }
            guard !commands.isEmpty else { continue }
            entries.append(Entry(keys: "", title: context.name, isHeading: true))
            for command in commands {
                let disabled = command.dangerous && state.readOnly
                entries.append(Entry(keys: command.keyNames, title: command.title + (disabled ? " (read-only)" : ""), disabled: disabled))
            }
        }
        entries.append(Entry(keys: "", title: "Command line (Tab completes)", isHeading: true))
        entries += ActionRegistry.colonCommands.map { Entry(keys: $0.usage, title: $0.title) }
        return entries
    }

    /// The entries laid out in columns of `height` lines (pages are columns too): a heading never
    /// ends a column, it moves to the top of the next, and a section that goes on in the next column
    /// repeats its heading there, so no key stands under another section's name.
    static func arranged(_ entries: [Entry], height: Int) -> [Entry] {
        guard height >= 3 else { return entries }
        var lines: [Entry] = []
        var section: String?
        for entry in entries {
            let row = lines.count % height
            if entry.isHeading {
                if row == height - 1 { lines.append(Entry(keys: "", title: "", isHeading: true)) }
                section = entry.title
            } else if row == 0, let section {
                lines.append(Entry(keys: "", title: section + " (continued)", isHeading: true))
            }
            lines.append(entry)
        }
        return lines
    }

    struct Frame {
        var box: Rect
        var body: Rect
        var columns: Int
        var perPage: Int { body.height * columns }
    }

    static func frame(_ state: ConsoleState, _ area: Rect) -> Frame {
        let box = area.centered(width: min(110, area.width - 2), height: area.height - 2)
        let inner = Block.inner(box).inset(horizontal: 1)
        let body = Rect(x: inner.x, y: inner.y, width: inner.width, height: max(1, inner.height - 1))
        return Frame(box: box, body: body, columns: body.width >= 70 ? 2 : 1)
    }

    static func pageCount(_ state: ConsoleState) -> Int {
        let frame = frame(state, Rect(x: 0, y: 0, width: state.screenWidth, height: state.screenHeight))
        return max(1, (arranged(entries(state), height: frame.body.height).count + frame.perPage - 1) / frame.perPage)
    }

    static func render(_ state: ConsoleState, _ theme: Theme, _ area: Rect, _ buffer: inout Buffer) {
        let frame = frame(state, area)
        let all = arranged(entries(state), height: frame.body.height)
        let pages = max(1, (all.count + frame.perPage - 1) / frame.perPage)
        let page = min(state.helpPage, pages - 1)
        // Every part is drawn on the dialog's background: roles without a background of their own
        // (keys, headings, muted text, the border) would otherwise punch holes of the terminal's.
        let modal = theme[.modal]
        func onModal(_ role: ThemeRole) -> Style { modal.patched(with: theme[role]) }
        buffer.fill(frame.box, with: modal)
        let title = pages > 1 ? "Keys · page \(page + 1) of \(pages)" : "Keys"
        Block(title: title, style: onModal(.borderFocus), titleStyle: onModal(.borderFocus).bold).render(in: frame.box, buffer: &buffer)
        let shown = Array(all.dropFirst(page * frame.perPage).prefix(frame.perPage))
        // A last page that fits one column gets the whole width, so titles are not cut.
        let columns = shown.count > frame.body.height ? frame.columns : 1
        let parts = Layout.split(frame.body, .horizontal, Array(repeating: .fill(1), count: columns), spacing: 2)
        for (index, part) in parts.enumerated() {
            let slice = shown.dropFirst(index * frame.body.height).prefix(frame.body.height)
            let keyWidth = min(26, max(8, (slice.map { TextWidth.of($0.keys) }.max() ?? 0) + 1), part.width / 2)
            let lines: [[Paragraph.Span]] = slice.map { entry in
                if entry.isHeading { return [.init(TextWidth.truncate(entry.title, to: part.width), onModal(.header))] }
                // Cut with an ellipsis, so a title cut short does not read as a whole one.
                return [.init(" " + TextWidth.truncate(entry.keys, to: keyWidth - 1).padding(toLength: keyWidth, withPad: " ", startingAt: 0), onModal(.footerKey)),
                        .init(TextWidth.truncate(entry.title, to: max(0, part.width - keyWidth - 1)), entry.disabled ? onModal(.muted) : modal)]
            }
            Paragraph(lines: lines, wrap: false).render(in: part, buffer: &buffer)
        }
        let more = pages > 1 ? "PgDn/PgUp pages · " : ""
        buffer.write(truncating: "\(more)Esc or ? closes this help.", x: frame.body.x, y: frame.body.bottom, width: frame.body.width, style: onModal(.muted))
    }
}
