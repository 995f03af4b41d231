import AppStoreServerAPI
import DeskCore
import Foundation
import TerminalUI

/// The body of each pane.
enum PaneViews {
    static func render(_ state: ConsoleState, _ theme: Theme, _ area: Rect, _ buffer: inout Buffer) {
        let box = area
        let focused = state.focus == .content || state.focus == .filter
        let title = state.current.title + (state.partialNote[state.pane].map { " · \($0)" } ?? "")
        Block(title: title, style: focused ? theme[.borderFocus] : theme[.border], titleStyle: theme[.title]).render(in: box, buffer: &buffer)
        let inner = PaneLayout.inner(box)
        if state.current.isList && state.list(state.pane).detailOpen {
            detail(state, theme, inner, &buffer)
        } else {
            state.current.render(state, theme, inner, &buffer)
            if let filter = state.filters[state.pane], PaneRows.count(state, state.pane) == 0, PaneRows.total(state, state.pane) > 0,
               let table = state.current.table(state, inner), table.height > 1 {
                buffer.write(truncating: "No \(state.current.rowNoun ?? "row") match \"\(filter)\". / changes the filter, Esc clears it.",
                             x: table.x, y: table.y + 1, width: table.width, style: theme[.muted])
            }
        }
    }

    static func detail(_ state: ConsoleState, _ theme: Theme, _ area: Rect, _ buffer: inout Buffer) {
        guard let tree = DetailContent.tree(state, state.pane) else { return }
        let list = state.list(state.pane)
        TreeView(lines: tree.lines(folded: list.folded), selected: list.detailSelected, offset: 0,
                 keyStyle: theme[.accent], valueStyle: theme[.text], selectedStyle: theme[.selection]).render(in: area, buffer: &buffer)
    }

    /// A message in place of content that is loading, failed or empty. Returns true when it drew one.
    static func placeholder<T>(_ loadable: Loadable<T>, empty: String, isEmpty: (T) -> Bool, _ state: ConsoleState, _ theme: Theme, _ area: Rect, _ buffer: inout Buffer) -> Bool {
        switch loadable {
        case .idle:
            Paragraph(empty, style: theme[.muted]).render(in: area, buffer: &buffer)
        case .loading:
            buffer.write("\(Spinner.frame(state.tick)) Loading…", x: area.x, y: area.y, style: theme[.info])
        case .failed(let error):
            Paragraph(lines: [[.init("✗ " + error.summary, theme[.error])]] + (error.hint.map { [[.init("Hint: " + $0, theme[.muted])]] } ?? []))
                .render(in: area, buffer: &buffer)
        case .loaded(let value):
            if isEmpty(value) {
                Paragraph(empty, style: theme[.muted]).render(in: area, buffer: &buffer)
                return true
            }
            return false
        }
        return true
    }

    static func verificationMark(_ status: VerificationStatus?) -> String {
        switch status {
        case .verified: return "✓"
        case .failed: return "✗ UNVERIFIED"
        case .notChecked: return "?"
        case nil: return "-"
        }
    }

    /// A table's one-character verdict: a payload not checked yet (a page still being verified, or
    /// a load stopped before it was) is "?", never a failure.
    static func verificationCell(_ status: VerificationStatus?) -> String {
        switch status {
        case .verified: return "✓"
        case .notChecked, nil: return "?"
        case .failed: return "✗"
        }
    }

    static func transactionTable(_ rows: [VerifiedTransaction], list: ListState, _ theme: Theme, _ area: Rect, _ buffer: inout Buffer, revocation: Bool = true) {
        let wide = area.width >= 110
        // A column nothing would be written in gives its width to the others.
        let revocation = revocation && rows.contains { $0.payload?.revocationDate != nil || $0.payload?.isUpgraded == true }
        var columns: [Table.Column] = [.init("PRODUCT", .fill(3), cut: .middle), .init("TYPE", .length(wide ? 13 : 8)), .init("PURCHASED", .length(wide ? 20 : 10)),
                                       .init("PRICE", .length(12), alignRight: true)]
        if wide { columns.insert(.init("TRANSACTION", .length(16)), at: 0) }
        if wide { columns.append(.init("OWNER", .length(9))) }
        if revocation { columns.append(.init("REVOKED", .fill(2))) }
        columns.append(.init("✓", .length(2)))
        Table(columns: columns, rowCount: rows.count, selected: list.selected, offset: list.offset, style: theme[.text],
              headerStyle: theme[.header], selectedStyle: theme[.selection]) { index in
            let row = rows[index]
            guard let t = row.payload else { return (["(unreadable)"], theme[.error]) }
            var cells: [String] = []
            if wide { cells.append(t.transactionId ?? "-") }
            cells += [t.productId ?? "-", shortType(t.type, wide: wide), wide ? DisplayFormat.date(t.purchaseDate) : DisplayFormat.day(t.purchaseDate),
                      DisplayFormat.money(t.price, t.currency)]
            if wide { cells.append(t.inAppOwnershipType == .familyShared ? "Family" : (t.inAppOwnershipType?.label ?? "-")) }
            if revocation { cells.append(revocationText(t)) }
            cells.append(verificationCell(row.status))
            var style: Style?
            if t.revocationDate != nil { style = theme[.warning] }
            if case .failed = row.status { style = theme[.error] }
            return (cells, style)
        }.render(in: area, buffer: &buffer)
    }

    static func shortType(_ type: ProductType?, wide: Bool) -> String {
        switch type {
        case .autoRenewableSubscription: return wide ? "Subscription" : "Sub"
        case .nonRenewingSubscription: return wide ? "Non-renewing" : "NonRenew"
        case .consumable: return wide ? "Consumable" : "Consum."
        case .nonConsumable: return wide ? "Non-consum." : "NonCons."
        default: return type?.rawValue ?? "-"
        }
    }

    static func revocationText(_ t: TransactionPayload) -> String {
        if t.isUpgraded == true { return "upgraded" }
        guard let date = t.revocationDate else { return "" }
        var text = "\(DisplayFormat.day(date)) \(t.revocationType?.label ?? "revoked")"
        if let percentage = t.revocationPercentage { text += " \(DisplayFormat.percentage(percentage))" }
        return text
    }
}
