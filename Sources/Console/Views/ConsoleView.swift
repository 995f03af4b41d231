import AppStoreServerAPI
import Foundation
import TerminalUI

/// Draws the whole console from its state: a pure function, so every screen can be snapshot-tested.
public enum ConsoleView {
    public static let minimumWidth = 40
    public static let minimumHeight = 12
    public static func render(_ state: ConsoleState, theme: Theme, area: Rect, buffer: inout Buffer) {
        buffer.fill(area, with: theme[.text])
        guard area.width >= minimumWidth, area.height >= minimumHeight else {
            let lines = ["Terminal too small: \(area.width)x\(area.height).", "iapdesk needs \(minimumWidth)x\(minimumHeight).", "q quits."]
            for (offset, line) in lines.enumerated() {
                let text = TextWidth.truncate(line, to: area.width)
                buffer.write(text, x: area.x + max(0, (area.width - TextWidth.of(text)) / 2), y: area.y + max(0, area.height / 2 - 1) + offset, style: theme[.warning])
            }
            return
        }
        let rows = PaneLayout.rows(area)
        topBar(state, theme, rows[0], &buffer)
        Tabs(titles: Pane.tabTitles(width: rows[1].width), selected: state.pane.rawValue, style: theme[.muted], selectedStyle: theme[.selection])
            .render(in: rows[1], buffer: &buffer)
        Breadcrumbs(parts: breadcrumbs(state), style: theme[.muted], lastStyle: theme[.accent]).render(in: rows[2].inset(horizontal: 1), buffer: &buffer)
        PaneViews.render(state, theme, rows[3], &buffer)
        statusLine(state, theme, rows[4], &buffer)
        KeyHints(hints: footerHints(state), keyStyle: theme[.footerKey], style: theme[.footer]).render(in: rows[5], buffer: &buffer)
        switch state.overlay {
        case .help: HelpOverlay.render(state, theme, area, &buffer)
        case .extend: ExtendOverlay.render(state, theme, area, &buffer)
        case .unresolvedWrite: UnresolvedWriteOverlay.render(state, theme, area, &buffer)
        case .message: MessageOverlay.render(state, theme, area, &buffer)
        case nil: break
        }
        for (index, toast) in state.toasts.reversed().enumerated() {
            let lifted = Rect(x: area.x, y: area.y, width: area.width, height: area.height - index)
            Toast(message: toast.text, style: toast.isError ? theme[.error].patched(with: theme[.modal]) : theme[.modal].patched(with: theme[.success]))
                .render(in: lifted, buffer: &buffer)
        }
    }

    static func topBar(_ state: ConsoleState, _ theme: Theme, _ area: Rect, _ buffer: inout Buffer) {
        buffer.fill(area, with: theme[.statusBar])
        var x = buffer.write(" iapdesk ", x: area.x, y: area.y, style: theme[.statusBar].bold)
        let badgeRole: ThemeRole = state.isDemo ? .demo : (state.environment == .sandbox ? .sandbox : .production)
        let badge = state.isDemo ? " DEMO · \(state.environment.label.uppercased()) " : " \(state.environment.label.uppercased()) "
        x = buffer.write(badge, x: x + 1, y: area.y, style: theme[badgeRole])
        x = buffer.write("  profile \(state.profileName)", x: x, y: area.y, style: theme[.statusBar], maxWidth: area.right - x)
        x = buffer.write("  \(state.bundleId)", x: x, y: area.y, style: theme[.statusBar], maxWidth: area.right - x)
        if state.readOnly { buffer.write("  read-only", x: x, y: area.y, style: theme[.statusBar].patched(with: theme[.warning]), maxWidth: area.right - x) }
        if !state.inFlight.isEmpty {
            let text = " \(Spinner.frame(state.tick)) \(state.inFlight.count) request\(state.inFlight.count == 1 ? "" : "s") "
            let width = TextWidth.of(text)
            if area.width > width + 40 { buffer.write(text, x: area.right - width, y: area.y, style: theme[.statusBar].patched(with: theme[.info])) }
        }
    }

    static func breadcrumbs(_ state: ConsoleState) -> [String] {
        var parts = [state.pane.title]
        if let customer = state.customer, state.pane != .notifications, state.pane != .inspector {
            // A customer found in the other environment says so where the eye goes first.
            let elsewhere = customer.environment.flatMap { $0 == state.environment ? nil : " (\($0.label))" } ?? ""
            parts.append((customer.anchorId ?? customer.query) + elsewhere)
        }
        if state.list(state.pane).detailOpen, let id = PaneRows.selectedID(state, state.pane) { parts.append(id) }
        return parts
    }

    static func statusLine(_ state: ConsoleState, _ theme: Theme, _ area: Rect, _ buffer: inout Buffer) {
        switch state.focus {
        case .commandLine:
            buffer.write(":", x: area.x, y: area.y, style: theme[.accent])
            TextInput(state: state.commandInput, style: theme[.input]).render(in: Rect(x: area.x + 1, y: area.y, width: area.width - 1, height: 1), buffer: &buffer)
            return
        case .filter:
            buffer.write("/", x: area.x, y: area.y, style: theme[.accent])
            TextInput(state: state.filterInput, style: theme[.input], placeholder: "type to filter rows; Enter keeps it, Esc clears")
                .render(in: Rect(x: area.x + 1, y: area.y, width: area.width - 1, height: 1), buffer: &buffer)
            return
        default: break
        }
        if !state.unresolvedWrites.isEmpty, state.overlay != .unresolvedWrite {
            // Writes with no known outcome stay in sight until someone resolves them.
            let count = state.unresolvedWrites.count
            let text = "⚠ \(count) earlier write\(count == 1 ? "" : "s") with no known outcome: :writes to decide"
            let x = buffer.write(truncating: text, x: area.x + 1, y: area.y, width: area.width - 2, style: theme[.warning])
            if let error = state.lastError, x + 4 < area.right {
                buffer.write(truncating: "  ✗ " + error.summary, x: x, y: area.y, width: area.right - x - 1, style: theme[.error])
            }
        } else if let error = state.lastError {
            let text = "✗ " + (error.hint.map { "\(error.summary)  Hint: \($0)" } ?? error.summary)
            let more = "  ! shows all"
            if TextWidth.of(text) > area.width - 2 {
                let x = buffer.write(truncating: text, x: area.x + 1, y: area.y, width: area.width - 2 - TextWidth.of(more), style: theme[.error])
                buffer.write(more, x: x, y: area.y, style: theme[.muted])
            } else {
                buffer.write(text, x: area.x + 1, y: area.y, style: theme[.error])
            }
        } else if let (request, description) = state.inFlight.sorted(by: { $0.key < $1.key }).first {
            let progress = state.progress[request].map { " (\($0))" } ?? ""
            let stop = state.extensionsInFlight[request] == nil ? "Esc stops" : "waiting for Apple's answer"
            buffer.write(truncating: "\(Spinner.frame(state.tick)) \(description)\(progress)…  \(stop)", x: area.x + 1, y: area.y, width: area.width - 2, style: theme[.info])
        } else if let filter = state.filters[state.pane] {
            let noun = state.pane == .subscriptions ? "subscriptions" : state.pane == .notifications ? "notifications" : "transactions"
            let shown = "\(PaneRows.count(state, state.pane)) of \(PaneRows.total(state, state.pane)) \(noun)"
            buffer.write(truncating: "Filter: \(filter) · \(shown)  (/ to change, Esc to clear)", x: area.x + 1, y: area.y, width: area.width - 2, style: theme[.muted])
        }
    }

    static func footerHints(_ state: ConsoleState) -> [(key: String, label: String)] {
        // A dialog takes the keys while it is open: the footer says its keys, not the pane's.
        switch state.overlay {
        case .extend?:
            return state.extendForm?.confirming == true ? [("Enter/y", "Send"), ("Esc/n", "Back")] : [("Enter", "Review"), ("↑↓ digits", "Days"), ("←→", "Reason"), ("Esc", "Cancel")]
        case .help?, .message?:
            return [("Esc", "Close")]
        case .unresolvedWrite?:
            return [("s", "Re-send"), ("r", "Mark resolved"), ("l/Esc", "Later")]
        case nil:
            break
        }
        var contexts: [ActionContext]
        switch state.focus {
        case .lookupInput, .inspectorInput, .commandLine, .filter:
            contexts = [.input]
            return contexts.flatMap { context in state.keymap.commands.filter { $0.context == context && $0.inFooter } }
                .map { (ActionRegistry.keyNames($0), $0.title) } + [("Esc", "Leave field"), ("Tab", "Next pane")]
        case .content:
            contexts = []
            if state.list(state.pane).detailOpen { contexts.append(.detail) }
            if state.pane == .subscriptions { contexts.append(.subscriptions) }
            if state.pane == .notifications { contexts.append(.notifications) }
            if [.orders, .refunds, .subscriptions, .transactions, .notifications].contains(state.pane) { contexts.append(.list) }
            contexts.append(.global)
        }
        var hints: [(key: String, label: String)] = []
        for context in contexts {
            for command in state.keymap.commands where command.context == context && command.inFooter {
                if command.dangerous && state.readOnly { continue }
                if command.id == .listOpen && state.list(state.pane).detailOpen { continue }
                if command.id == .appMessage && state.lastError == nil { continue }
                hints.append((command.keys.first?.name ?? "", command.title))
            }
        }
        if state.list(state.pane).detailOpen { hints.insert(("Esc", "Back"), at: 0) }
        return hints
    }
}
