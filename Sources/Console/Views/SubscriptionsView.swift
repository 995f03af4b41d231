import AppStoreServerAPI
import Foundation
import TerminalUI

enum SubscriptionsView {
    static func render(_ state: ConsoleState, _ theme: Theme, _ area: Rect, _ buffer: inout Buffer) {
        guard let customer = state.customer else {
            Paragraph("Look up a customer first (pane 1).", style: theme[.muted]).render(in: area, buffer: &buffer)
            return
        }
        if PaneViews.placeholder(customer.subscriptions, empty: "This customer has no auto-renewable subscriptions.", isEmpty: { $0.isEmpty }, state, theme, area, &buffer) { return }
        let rows = PaneRows.subscriptions(state)
        let list = state.list(.subscriptions)
        let table = PaneLayout.table(state, in: area) ?? area
        Table(columns: [.init("GROUP", .length(9)), .init("PRODUCT", .fill(3), cut: .middle), .init("STATUS", .length(21)), .init("RENEWS/ENDS", .length(11)),
                        .init("AUTO", .length(4)), .init("✓", .length(2))],
              rowCount: rows.count, selected: list.selected, offset: list.offset, style: theme[.text], headerStyle: theme[.header],
              selectedStyle: theme[.selection]) { index in
            let row = rows[index]
            let t = row.transaction?.payload
            let r = row.renewal?.payload
            let role: ThemeRole = row.status == .active ? .success : (row.status == .expired || row.status == .revoked ? .error : .warning)
            let ok = row.transaction?.status.isVerified != false && row.renewal?.status.isVerified != false
            let status = (row.status?.label ?? "-") + (SubscriptionOffer.short(row).map { " · \($0)" } ?? "")
            return ([row.groupIdentifier, t?.productId ?? "-", status, DisplayFormat.day(r?.renewalDate ?? t?.expiresDate),
                     r?.autoRenewStatus == .on ? "on" : "off", ok ? "✓" : "✗"], theme[role])
        }.render(in: table, buffer: &buffer)
        let panel = Rect(x: area.x, y: table.bottom, width: area.width, height: area.bottom - table.bottom)
        guard rows.indices.contains(list.selected), panel.height > 2 else { return }
        renewalPanel(rows[list.selected], theme, panel, &buffer)
    }

    /// Renewal info of the selected subscription, in words.
    static func renewalPanel(_ row: SubscriptionRow, _ theme: Theme, _ area: Rect, _ buffer: inout Buffer) {
        let r = row.renewal?.payload
        let t = row.transaction?.payload
        var lines: [[Paragraph.Span]] = [[.init("Renewal info", theme[.header]), .init("  \(row.renewal.map { $0.status.isVerified ? "✓ verified" : "✗ not verified" } ?? "")", theme[.muted])]]
        func field(_ name: String, _ value: String?, _ role: ThemeRole = .text) {
            guard let value, value != "-" else { return }
            lines.append([.init("  \(name): ", theme[.muted]), .init(value, theme[role])])
        }
        field("Current period", SubscriptionOffer.current(row).map { $0.prefix(1).uppercased() + $0.dropFirst() }, .info)
        field("Auto-renew", r?.autoRenewStatus.map { $0 == .on ? "on, to \(r?.autoRenewProductId ?? "-")" : "off" })
        field("Renewal date", r?.renewalDate.map { "\(DisplayFormat.date($0)) (\(DisplayFormat.relative($0)))" })
        field("Renewal price", r?.renewalPrice.map { DisplayFormat.money($0, r?.currency) })
        field("Expiration intent", r?.expirationIntent?.label, .warning)
        field("Billing retry", r?.isInBillingRetryPeriod == true ? "Apple is retrying the charge" : nil, .warning)
        field("Grace period ends", r?.gracePeriodExpiresDate.map { DisplayFormat.date($0) }, .warning)
        field("Price increase", r?.priceIncreaseStatus?.label, .warning)
        field("Offer at renewal", r?.offerType.map { "\($0.label) \(r?.offerIdentifier ?? "")" })
        field("Subscribed since", r?.recentSubscriptionStartDate.map { DisplayFormat.day($0) })
        field("Win-back offers", r?.eligibleWinBackOfferIds?.joined(separator: ", "))
        field("Ownership", t?.inAppOwnershipType == .familyShared ? "Family Sharing member (extend the purchaser's subscription)" : nil)
        Paragraph(lines: lines, wrap: false).render(in: area, buffer: &buffer)
    }
}

enum NotificationsView {
    static func render(_ state: ConsoleState, _ theme: Theme, _ area: Rect, _ buffer: inout Buffer) {
        let f = state.notificationFilters
        var filters = ["last \(describe(f.since))"]
        if let type = f.type { filters.append("type \(type.rawValue)\(f.subtype.map { "/\($0.rawValue)" } ?? "")") }
        if let txn = f.transactionId { filters.append("customer \(txn)") }
        if f.onlyFailures { filters.append("failures only") }
        let count = state.notificationsPane.value?.count
        buffer.write(truncating: "\(count.map { "\($0) notifications · " } ?? "")\(filters.joined(separator: " · "))  (f failures, d range, :type, :txn, :since)",
                     x: area.x, y: area.y, width: area.width, style: theme[.muted])
        let body = PaneLayout.table(state, in: area) ?? area
        if let test = state.testNotification {
            testPanel(test, state, theme, Rect(x: area.x, y: area.bottom - 4, width: area.width, height: 4), &buffer)
        }
        if PaneViews.placeholder(state.notificationsPane, empty: "No notifications match. Widen the range with d or :since 30d.", isEmpty: { $0.isEmpty }, state, theme, body, &buffer) { return }
        let rows = PaneRows.notifications(state)
        let list = state.list(.notifications)
        let wide = body.width >= 100
        var columns: [Table.Column] = [.init("SIGNED", .length(wide ? 16 : 11)), .init("TYPE", .fill(3)), .init("SUBTYPE", .fill(2)),
                                       .init("FIRST", .length(wide ? 16 : 10)), .init("TRIES", .length(5), alignRight: true), .init("LAST", .length(wide ? 16 : 10))]
        if wide { columns.append(.init("✓", .length(2))) }
        Table(columns: columns, rowCount: rows.count, selected: list.selected, offset: list.offset, style: theme[.text], headerStyle: theme[.header],
              selectedStyle: theme[.selection]) { index in
            let row = rows[index]
            let p = row.payload
            let date = wide ? DisplayFormat.date(p?.signedDate).replacingOccurrences(of: " UTC", with: "") : String(DisplayFormat.date(p?.signedDate).dropFirst(5).prefix(11))
            var cells = [date, p?.notificationType?.rawValue ?? "?", p?.subtype?.rawValue ?? "", row.attempts.first?.sendAttemptResult?.rawValue ?? "(none)",
                         String(row.attempts.count), row.attempts.last?.sendAttemptResult?.rawValue ?? "-"]
            if wide { cells.append(row.decoded?.isFullyVerified == true ? "✓" : "✗") }
            return (cells, row.delivered ? nil : theme[.warning])
        }.render(in: body, buffer: &buffer)
    }

    static func testPanel(_ test: TestNotificationState, _ state: ConsoleState, _ theme: Theme, _ area: Rect, _ buffer: inout Buffer) {
        Block(title: "Test notification\(test.token.map { " \($0)" } ?? "")", style: theme[.border], titleStyle: theme[.title]).render(in: area, buffer: &buffer)
        let inner = Block.inner(area).inset(horizontal: 1)
        var items: [(text: String, style: Style)] = []
        if let error = test.error {
            items.append(("✗ \(error.summary)", theme[.error]))
        } else if test.token == nil {
            items.append(("\(Spinner.frame(state.tick)) requesting…", theme[.info]))
        } else if test.attempts.isEmpty {
            items.append(("\(Spinner.frame(state.tick)) waiting for the delivery result…", theme[.info]))
        }
        for attempt in test.attempts {
            let result = attempt.sendAttemptResult
            items.append(("\(DisplayFormat.date(attempt.attemptDate, seconds: true))  \(result?.rawValue ?? "?")  \(result?.hint ?? "")",
                          result == .success ? theme[.success] : theme[.error]))
        }
        List(items: items).render(in: inner, buffer: &buffer)
    }

    static func describe(_ seconds: TimeInterval) -> String {
        seconds >= 86_400 ? DisplayFormat.count(Int((seconds / 86_400).rounded()), "day") : DisplayFormat.count(Int(seconds / 3600), "hour")
    }
}

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
            [.init("Esc or ? closes this help.", theme[.muted])],
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

enum ExtendOverlay {
    static func render(_ state: ConsoleState, _ theme: Theme, _ area: Rect, _ buffer: inout Buffer) {
        guard let form = state.extendForm else { return }
        var lines: [[Paragraph.Span]] = []
        func row(_ name: String, _ value: String, _ role: ThemeRole = .modal) {
            lines.append([.init(name.padding(toLength: 18, withPad: " ", startingAt: 0), theme[.muted]), .init(value, theme[role])])
        }
        row("Customer", form.subject)
        row("Subscription", form.productId)
        let newDate = form.currentRenewal.flatMap { date in form.dayCount.map { date.addingTimeInterval(Double($0) * 86_400) } }
        row("Renews now", DisplayFormat.date(form.currentRenewal))
        row("Renews after", newDate.map { DisplayFormat.date($0) } ?? "-", .success)
        let days = form.days.text.isEmpty ? "_" : form.days.text
        row("Days (1-90)", form.days.isSelected ? "[\(days)]  type to replace, ↑↓ to change" : "\(days)   ↑↓ or type", form.dayCount == nil ? .error : .accent)
        row("Reason", "◂ \(form.reason.label) ▸   ←→", .accent)
        switch form.earlier {
        case .idle, .loading:
            row("Extensions", "\(Spinner.frame(state.tick)) counting earlier extensions in Apple's notification history…", .info)
        case .failed(let error):
            row("Extensions", "unknown: \(error.summary)", .warning)
        case .loaded(let count):
            row("Extensions", "\(count.summary) (Apple allows 2 a year)", count.total >= 2 ? .error : .modal)
        }
        if let error = form.error { lines.append([.init(error, theme[.error])]) }
        lines.append([])
        if form.confirming, let body = form.request {
            // Shown from the Endpoint value that is sent, so what the agent reads is what goes.
            let endpoint = Endpoints.extendSubscriptionRenewalDate(originalTransactionId: form.originalTransactionId, request: body)
            let json = endpoint.body ?? Data()
            lines.append([.init("Adds \(body.extendByDays ?? 0) day\(body.extendByDays == 1 ? "" : "s") for \(form.subject):", theme[.warning])])
            lines.append([.init("renews \(DisplayFormat.longDay(newDate)) instead of \(DisplayFormat.longDay(form.currentRenewal)).", theme[.warning])])
            lines.append([.init("This exact request will be sent to \(form.environment?.label ?? state.environment.label):", theme[.warning])])
            lines.append([.init("\(endpoint.method) \(endpoint.path)", theme[.modal])])
            lines.append([.init(String(decoding: json, as: UTF8.self), theme[.modal])])
            lines.append([.init("It cannot be undone, and Apple e-mails the customer.", theme[.muted])])
            lines.append([.init("Enter/y send · Esc/n back", theme[.footerKey])])
        } else {
            lines.append([.init("Enter review · Esc cancel", theme[.footerKey])])
        }
        Modal(title: form.confirming ? "Confirm renewal extension" : "Extend renewal date", lines: lines, style: theme[.modal],
              borderStyle: form.confirming ? theme[.warning] : theme[.borderFocus], width: 76).render(in: area, buffer: &buffer)
    }
}
