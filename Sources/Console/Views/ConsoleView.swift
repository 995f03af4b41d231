import AppStoreServerAPI
import DeskCore
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
        Tabs(titles: Panes.tabTitles(width: rows[1].width), selected: Panes.index(of: state.pane), style: theme[.muted], selectedStyle: theme[.selection])
            .render(in: rows[1], buffer: &buffer)
        Breadcrumbs(parts: breadcrumbs(state), style: theme[.muted], lastStyle: theme[.accent]).render(in: rows[2].inset(horizontal: 1), buffer: &buffer)
        PaneViews.render(state, theme, rows[3], &buffer)
        statusLine(state, theme, rows[4], &buffer)
        KeyHints(hints: footerHints(state), keyStyle: theme[.footerKey], style: theme[.footer]).render(in: rows[5], buffer: &buffer)
        switch state.overlay {
        case .help: HelpOverlay.render(state, theme, area, &buffer)
        case .extend: ExtendOverlay.render(state, theme, area, &buffer)
        case .finishTransaction: FinishOverlay.render(state, theme, area, &buffer)
        case .consumption: ConsumptionOverlay.render(state, theme, area, &buffer)
        case .unresolvedWrite: UnresolvedWriteOverlay.render(state, theme, area, &buffer)
        case .message: MessageOverlay.render(state, theme, area, &buffer)
        case .doctor: DoctorOverlay.render(state, theme, area, &buffer)
        case .retention: RetentionOverlay.render(state, theme, area, &buffer)
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
        var parts = [state.current.title]
        if let customer = state.customer, state.current.showsCustomer {
            // A customer found in the other environment says so where the eye goes first.
            let elsewhere = customer.environment.flatMap { $0 == state.environment ? nil : " (\($0.label))" } ?? ""
            // How old what the panes show is: `r` reads it all again. Before anyone is found the
            // query is only what was typed: nothing of a customer is on screen to be old.
            let age: String
            if !customer.subscriptions.isLoaded, !customer.history.isLoaded, !customer.refunds.isLoaded, !customer.transaction.isLoaded {
                age = customer.subscriptions.error != nil && customer.history.error != nil ? " · nothing read" : " · looking up"
            } else {
                age = customer.readAt.map { state.now.timeIntervalSince($0) < 1 ? " · read just now" : " · read \(DisplayFormat.relative($0, now: state.now))" } ?? ""
            }
            // Someone else changed this customer since it was read: said on every pane, not only
            // the summary (the Subscriptions pane is where an agent extends).
            let watch = state.customerWatch
            let changed = watch.watchedLookup == customer.lookup && !watch.changes.isEmpty ? " · ⚠ changed since: r reloads" : ""
            parts.append((customer.anchorId ?? customer.query) + elsewhere + age + changed)
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
                // A summary that fits is shown whole without a stub of its hint, which `!` shows.
                let summary = "✗ " + error.summary
                let shown = TextWidth.of(summary) + TextWidth.of(more) <= area.width - 2 ? summary : text
                let x = buffer.write(truncating: shown, x: area.x + 1, y: area.y, width: area.width - 2 - TextWidth.of(more), style: theme[.error])
                buffer.write(more, x: x, y: area.y, style: theme[.muted])
            } else {
                buffer.write(text, x: area.x + 1, y: area.y, style: theme[.error])
            }
        } else if let (request, description) = state.inFlight.sorted(by: { $0.key < $1.key }).first {
            let progress = state.progress[request].map { " (\($0))" } ?? ""
            let isWrite = state.extensionsInFlight[request] != nil || state.finishesInFlight[request] != nil || state.consumptionsInFlight[request] != nil
            let stop = isWrite ? "waiting for Apple's answer" : "Esc stops"
            buffer.write(truncating: "\(Spinner.frame(state.tick)) \(description)\(progress)…  \(stop)", x: area.x + 1, y: area.y, width: area.width - 2, style: theme[.info])
        } else if let filter = state.filters[state.pane] {
            let noun = state.current.rowNoun ?? "rows"
            let shown = "\(PaneRows.count(state, state.pane)) of \(PaneRows.total(state, state.pane)) \(noun)"
            buffer.write(truncating: "Filter: \(filter) · \(shown)  (/ to change, Esc to clear)", x: area.x + 1, y: area.y, width: area.width - 2, style: theme[.muted])
        }
    }

    static func footerHints(_ state: ConsoleState) -> [(key: String, label: String)] {
        // A dialog takes the keys while it is open: the footer says its keys, not the pane's.
        if let context = OverlayCommands.context(state) { return hints(state, [context]) }
        switch state.focus {
        case .commandLine:
            return hints(state, [.input]).filter { $0.label != "Recent IDs" } + [("Tab", "Complete"), ("Esc", "Leave field")]
        case .filter:
            // The filter applies as it is typed: Enter keeps it, Esc takes it away.
            return [("Enter", "Keep the filter"), ("Esc", "Clear it"), ("Ctrl-U", "Clear the text")]
        case .paneInput:
            return hints(state, [.input]) + [("Esc", "Leave field"), ("Tab", "Next pane")]
        case .content:
            var contexts = ConsoleReducer.contexts(state)
            if !state.current.isList { contexts.removeAll { $0 == .list } }
            var hints = hints(state, contexts) { command in
                !(command.id == .listOpen && state.list(state.pane).detailOpen)
            }
            if state.list(state.pane).detailOpen { hints.insert(("Esc", "Back"), at: 0) }
            return hints
        }
    }

    /// The footer commands of `contexts` that can be used now; neighbours with one footer word
    /// share a hint ("Left/Right Reason").
    static func hints(_ state: ConsoleState, _ contexts: [ActionContext], where shown: (KeyCommand) -> Bool = { _ in true }) -> [(key: String, label: String)] {
        var hints: [(key: String, label: String)] = []
        var mergeable = false
        for context in contexts {
            for command in state.keymap.commands where command.context == context && command.inFooter && shown(command) {
                if command.unavailableReason(state) != nil { continue }
                let first = command.keys.first?.name ?? ""
                let label = command.id == .appRefresh ? state.current.refreshTitle
                    : command.id == .listOpen ? state.current.openTitle ?? command.title : command.footerLabel ?? command.title
                if let last = hints.last, last.label == label, mergeable {
                    // Neighbours with one word share a hint, by their first keys: "←/→ Reason".
                    hints[hints.count - 1].key = hints[hints.count - 1].key.split(separator: "/").first.map(String.init)! + "/" + first
                } else {
                    // A dialog's few commands can say a second key: "Enter/y Send".
                    let second = command.footerLabel != nil && command.keys.count > 1 ? "/" + command.keys[1].name : ""
                    hints.append((first + second, label))
                }
                mergeable = command.footerLabel != nil
            }
        }
        return hints
    }
}
