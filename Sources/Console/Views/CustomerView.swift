import AppStoreServerAPI
import DeskCore
import Foundation
import TerminalUI

/// One field for any ID, then everything about the customer on one screen.
enum CustomerView {
    static func render(_ state: ConsoleState, _ theme: Theme, _ area: Rect, _ buffer: inout Buffer) {
        let label = "Order, transaction or account ID: "
        let x = buffer.write(label, x: area.x, y: area.y, style: theme[.accent])
        TextInput(state: state.lookupInput, style: theme[.input], placeholder: "MK5TTTVWJH, 2000000123456789 or a UUID",
                  showCursor: state.focus == .paneInput)
            .render(in: Rect(x: x, y: area.y, width: min(52, area.right - x), height: 1), buffer: &buffer)
        let body = Rect(x: area.x, y: area.y + 2, width: area.width, height: area.height - 2)
        guard let customer = state.customer else {
            var lines: [[Paragraph.Span]] = [
                [.init("Type the order ID from the customer's receipt e-mail, any transaction, original transaction or app transaction ID, or the app's account ID (its appAccountToken UUID).", theme[.muted])],
                [],
                [.init("Keys: ", theme[.muted]), .init("Enter", theme[.footerKey]), .init(" look up · ", theme[.muted]), .init("Tab", theme[.footerKey]),
                 .init(" panes · ", theme[.muted]), .init("F1", theme[.footerKey]), .init(" help · ", theme[.muted]), .init("Esc", theme[.footerKey]),
                 .init(" then ", theme[.muted]), .init(":", theme[.footerKey]), .init(" commands", theme[.muted])],
            ]
            if state.isDemo {
                lines += [[], [.init("Demo IDs to try: MK5TTTVWJH (active subscription), RWPVUMZJWB (grace period), 8SAVFG75PQ (refunds and refund requests), 6KEANRYEEE (charged after cancelling), LAHP48FCVE (517 transactions), 7fde79d8-ee82-4c74-9fa8-e13415bf6fc0 (an account ID)", theme[.info])]]
            }
            Paragraph(lines: lines).render(in: body, buffer: &buffer)
            return
        }
        if let error = customer.transaction.error, customer.subscriptions.error == error, customer.history.error == error {
            // Apple does not know the ID: one message instead of the same error in every section.
            Paragraph(lines: [[.init("✗ " + error.summary, theme[.error])]] + (error.hint.map { [[], [.init("Hint: " + $0, theme[.muted])]] } ?? []))
                .render(in: body, buffer: &buffer)
            return
        }
        let lines = summary(customer, state, theme)
        // Scrolls with j/k when it is taller than the pane (80x24).
        let offset = min(state.list(.customer).offset, max(0, lines.count - body.height))
        Paragraph(lines: lines, wrap: false, offset: offset).render(in: body, buffer: &buffer)
        if lines.count > body.height, body.height > 0 {
            let more = offset + body.height < lines.count ? "↓ more (j/PgDn)" : "↑ top (g)"
            buffer.write(more, x: body.right - TextWidth.of(more), y: body.bottom - 1, style: theme[.muted])
        }
    }

    /// Lines of the customer summary (the view scrolls them).
    static func summaryLineCount(_ state: ConsoleState) -> Int {
        guard let customer = state.customer else { return 0 }
        return summary(customer, state, .fallback).count
    }

    static func summary(_ customer: CustomerState, _ state: ConsoleState, _ theme: Theme) -> [[Paragraph.Span]] {
        var lines: [[Paragraph.Span]] = []
        func section(_ title: String) { lines.append([.init(title, theme[.header])]) }
        func line(_ text: String, _ role: ThemeRole = .text) { lines.append([.init("  " + text, theme[role])]) }
        func status<T>(_ loadable: Loadable<T>) -> Bool {
            switch loadable {
            case .idle: return false
            case .loading: line("\(Spinner.frame(state.tick)) loading…", .info); return false
            case .failed(let error): line("✗ \(error.summary)", .error); return false
            case .loaded: return true
            }
        }

        var where_ = "Looking up \(customer.query)"
        if let environment = customer.environment {
            where_ = "Found in \(environment.label)"
        } else if [customer.transaction.error, customer.subscriptions.error, customer.history.error].contains(PaneReducer.cancelled) {
            // Esc stopped it: nothing is being looked up any more.
            where_ = "Lookup of \(customer.query) cancelled: r reads it again"
        }
        let all = customer.verifications
        let unverified = all.filter { !$0.isVerified }.count
        lines.append([.init(where_, theme[.accent]), .init("   ", theme[.text]),
                      .init(all.isEmpty ? "" : (unverified == 0 ? (all.count == 1 ? "✓ the signature verified" : "✓ all \(all.count) signatures verified") : "✗ \(unverified) of \(all.count) payloads NOT verified"),
                            unverified == 0 ? theme[.success] : theme[.error])])
        if case .loaded(let match) = customer.account {
            for text in match.lines(now: state.now) { lines.append([.init(text, theme[.info])]) }
        }
        let changes = state.customerWatch.watchedLookup == customer.lookup ? state.customerWatch.changes : []
        if !changes.isEmpty {
            // Someone else changed this customer since it was read: what is shown may be stale.
            let said = changes.suffix(3).map { $0.line(now: state.now) }.joined(separator: "; ")
            lines.append([.init("⚠ \(said): r reloads", theme[.warning])])
        }

        if case .idle = customer.order {} else {
            section("Order \(customer.query)")
            if status(customer.order), let order = customer.order.value {
                if order.status == .valid {
                    for t in order.transactions.compactMap(\.payload) {
                        line("\(t.productId ?? "-")  \(t.type?.label ?? "")  \(DisplayFormat.money(t.price, t.currency))  \(DisplayFormat.date(t.purchaseDate))")
                    }
                } else {
                    line("Not a valid order ID: Apple knows no purchases under it. Check the receipt e-mail.", .warning)
                }
            }
        }
        section("Subscriptions")
        if status(customer.subscriptions), let rows = customer.subscriptions.value {
            if rows.isEmpty { line("none", .muted) }
            for row in rows {
                let t = row.transaction?.payload
                let r = row.renewal?.payload
                let role: ThemeRole = row.status == .active ? .success : (row.status == .expired || row.status == .revoked ? .error : .warning)
                let due = r?.renewalDate ?? t?.expiresDate
                var renews = r?.autoRenewStatus == .on ? "renews \(DisplayFormat.day(due))" : "ends \(DisplayFormat.day(t?.expiresDate))"
                if row.status == .billingRetry || row.status == .billingGracePeriod { renews = "renewal due since \(DisplayFormat.day(due))" }
                if row.status == .expired || row.status == .revoked { renews = "ended \(DisplayFormat.day(t?.revocationDate ?? t?.expiresDate))" }
                let offer = SubscriptionOffer.current(row).map { " · \($0)" } ?? ""
                lines.append([.init("  \(row.status?.label ?? "?")\(offer)", theme[role]), .init("  \(t?.productId ?? "-")  \(renews)  auto-renew \(r?.autoRenewStatus?.label.lowercased() ?? "-")", theme[.text])])
                if let intent = r?.expirationIntent { line("    expired: \(intent.label)", .muted) }
                if row.status != .expired, row.status != .revoked {
                    // "Why was I charged?": the facts of this subscription's billing, in words.
                    let facts = BillingFacts.of(row, history: customer.history.value, notifications: customer.notifications.value)
                    for text in facts.lines() { line("    " + text, text.hasPrefix("⚠") || text.hasPrefix("  Apple") ? .warning : .text) }
                }
                if r?.priceIncreaseStatus == .customerHasNotResponded { line("    price increase not yet accepted", .warning) }
            }
        }
        section("Purchases")
        if status(customer.history), let history = customer.history.value {
            var products: [String: (count: Int, last: Date?)] = [:]
            for t in history.compactMap(\.payload) {
                let key = t.productId ?? "-"
                let previous = products[key]
                products[key] = ((previous?.count ?? 0) + 1, max(previous?.last ?? .distantPast, t.purchaseDate ?? .distantPast))
            }
            line("\(history.count) transaction\(history.count == 1 ? "" : "s")", .muted)
            for (product, info) in products.sorted(by: { ($0.value.last ?? .distantPast) > ($1.value.last ?? .distantPast) }).prefix(5) {
                line("\(product)  ×\(info.count)  last \(DisplayFormat.day(info.last))")
            }
        }
        section("Refunds")
        if status(customer.refunds), let refunds = customer.refunds.value {
            if refunds.isEmpty { line("none · Apple decides refunds; pane 3 says how they work", .muted) }
            for t in refunds.compactMap(\.payload).prefix(3) {
                var amount = DisplayFormat.money(Timeline.refundedAmount(t), t.currency)
                if t.revocationType == .familyRevoke { amount = "family access revoked" }
                else if let share = t.revocationPercentage, share < 100_000 { amount += " (\(DisplayFormat.percentage(share)) prorated)" }
                line("\(DisplayFormat.day(t.revocationDate))  \(t.productId ?? "-")  \(amount)  \(t.revocationReason?.label ?? "")", .warning)
            }
        }
        // Apple's refund requests about this customer (the notifications of the last 30 days), with
        // the answer and Apple's decision as the queue (pane 0) has them once it was read.
        if let notes = customer.notifications.value {
            let asked = RefundRequests.merge(notes.compactMap(RefundRequests.Sighting.init), writes: []).prefix(3)
            // The tenth pane's key is 0.
            let pane = "pane \((Panes.index(of: .refundRequests) + 1) % 10)"
            for request in asked {
                // The state first: a narrow screen cuts the product and reason, which pane 0 has.
                let asked = "refund asked \(DisplayFormat.day(request.requestedAt)) · "
                let what = " · \(RefundRequestsView.product(request, state)), \(request.reason?.label.lowercased() ?? "no reason given")"
                // The answers are in the ledger, which the queue reads: before it was read, only Apple's side is known.
                guard let known = state.refundRequests.queue?.requests.first(where: { $0.notificationUUID == request.notificationUUID }) else {
                    let decided = request.state(now: state.now)
                    // Read with the customer: until then (or if it failed) whether it was answered is pane 0's to say.
                    let unknown = state.refundRequests.request != nil ? "reading the answers (\(pane))" : "answered? \(pane)"
                    line(asked + (decided == .refunded || decided == .declined ? decided.label : unknown) + what, .muted)
                    continue
                }
                let pending = known.state(now: state.now) == .pending
                line(asked + (pending ? "waiting for an answer, \(known.timeLeft(now: state.now)) (\(pane))" : RefundRequestsView.stateText(known, now: state.now)) + what,
                     pending ? .warning : .muted)
            }
        }
        section("Notifications, last 30 days")
        if status(customer.notifications), let notes = customer.notifications.value {
            let failed = notes.filter { !$0.delivered }.count
            line("\(notes.count) notification\(notes.count == 1 ? "" : "s"), \(failed) not delivered", failed > 0 ? .warning : .text)
        }
        // Counts and notes read for an earlier customer are not this one's, even for the moment before they are read again.
        if let received = state.receivedHere.customerCount, state.receivedHere.countedFor?.lookup == customer.lookup {
            // What the receiver stored for this customer, whatever Apple's window.
            line("\(DisplayFormat.count(received, "notification")) received here (Live pane \(Panes.index(of: .live) + 1))", .muted)
        }
        let notes = state.caseNotes.readFor?.lookup == customer.lookup ? state.caseNotes : CaseNotesModel()
        if let list = notes.notes, !list.isEmpty || notes.problem == nil {
            section("Notes")
            if list.isEmpty { line("none yet: a adds one", .muted) }
            // The newest few; the case file holds them all.
            for note in list.suffix(4) {
                line("\(DisplayFormat.date(note.time))  \(note.agent): \(note.text)")
            }
            if list.count > 4 { line("\(list.count - 4) older in the case file (x)", .muted) }
        } else if let problem = notes.problem {
            section("Notes")
            line("cannot be read: \(problem)", .warning)
        }
        if case .failed(let error) = customer.appTransaction {
            section("App transaction")
            line(error.summary, .muted)
        } else if let app = customer.appTransaction.value?.payload {
            section("App transaction")
            line("\(app.appTransactionId ?? "-")  first download \(DisplayFormat.day(app.originalPurchaseDate))  \(app.originalPlatform?.label ?? "")")
        }
        return lines
    }
}
