import AppStoreServerAPI
import DeskCore
import Foundation
import TerminalUI

/// The renewal-extension form, then the exact request it will send, for the agent to confirm.
enum ExtendOverlay: ModalOverlay {
    static func modal(_ state: ConsoleState, _ theme: Theme) -> Modal? {
        guard let form = state.extendForm else { return nil }
        var lines: [[Paragraph.Span]] = []
        func row(_ name: String, _ value: String, _ role: ThemeRole = .modal) {
            lines.append([.init(name.padding(toLength: 18, withPad: " ", startingAt: 0), theme[.muted]), .init(value, theme[role])])
        }
        let newDate = form.currentRenewal.flatMap { date in form.dayCount.map { date.addingTimeInterval(Double($0) * 86_400) } }
        if form.confirming {
            // The confirmation below names the customer, the days and both dates: kept short so
            // the warning and the keys fit a 24-line terminal.
            row("Subscription", form.productId)
            row("Reason", form.reason.label)
            row("Dates", "read again from Apple and the ledger just now")
            if let before = form.renewalBeforeReview {
                // Read from Apple for this confirmation: someone (or a renewal) moved it meanwhile.
                row("Changed", "was \(DisplayFormat.date(before)) when the form opened", .warning)
            }
        } else {
            row("Customer", form.subject)
            row("Subscription", form.productId)
            // A write to this subscription recorded after the customer was read: the dates below are
            // the old ones until Enter reads them again.
            let readAt = state.customer?.readAt ?? .distantFuture
            let stale = form.earlier.value?.recorded.contains { $0.applied && $0.time > readAt } == true
            // The period's end: it renews then only while auto-renew is on.
            row("Period ends", DisplayFormat.date(form.currentRenewal) + (stale ? "  (read before the last extension)" : ""), stale ? .warning : .modal)
            row("Ends after", stale ? "read again from Apple when you press Enter" : newDate.map { DisplayFormat.date($0) } ?? "-", stale ? .warning : .success)
            let days = form.days.text.isEmpty ? "_" : form.days.text
            row("Days (1-90)", form.days.isSelected ? "[\(days)]  type to replace, ↑↓ to change" : "\(days)   ↑↓ or type", form.dayCount == nil ? .error : .accent)
            row("Reason", "◂ \(form.reason.label) ▸   ←→", .accent)
        }
        switch form.earlier {
        case .idle, .loading:
            row("Extensions", "\(Spinner.frame(state.tick)) counting earlier extensions in Apple's notification history…", .info)
        case .failed(let error):
            row("Extensions", "unknown: \(error.summary)", .warning)
        case .loaded(let count):
            row("Extensions", "\(count.summary) (Apple allows 2 a year)", count.total >= 2 ? .error : .modal)
            // What the team's ledger has, newest first, so an agent sees a colleague's extension of today
            // (at most two are applied in a year; a third line is a refused or unknown one).
            for recorded in count.recorded.suffix(3).reversed() {
                row("", "extended " + recorded.line(now: state.now), recorded.applied ? .warning : .muted)
            }
        }
        if let error = form.error { lines.append([.init(error, theme[.error])]) }
        if form.reviewRequest != nil {
            lines.append([.init("\(Spinner.frame(state.tick)) reading the subscription and its extensions again from Apple…", theme[.info])])
        }
        lines.append([])
        if form.confirming, let target = form.target {
            // Shown from the Endpoint value that is sent, so what the agent reads is what goes.
            let body = target.body
            let endpoint = target.endpoint
            let json = endpoint.body ?? Data()
            lines.append([.init("Adds \(body.extendByDays ?? 0) day\(body.extendByDays == 1 ? "" : "s") for \(form.subject):", theme[.warning])])
            lines.append([.init("ends \(DisplayFormat.longDay(newDate)) instead of \(DisplayFormat.longDay(form.currentRenewal)).", theme[.warning])])
            lines.append([.init("This exact request will be sent to \(form.environment?.label ?? state.environment.label):", theme[.warning])])
            lines.append([.init("\(endpoint.method) \(endpoint.path)", theme[.modal])])
            lines.append([.init(String(decoding: json, as: UTF8.self), theme[.modal])])
            lines.append([.init("It cannot be undone, and Apple e-mails the customer.", theme[.muted])])
            lines.append([.init("Enter/y send · Esc/n back", theme[.footerKey])])
        } else {
            lines.append([.init("Enter review · Esc cancel", theme[.footerKey])])
        }
        // The title names the subscription, so what is extended stays in sight above any message.
        let title = form.confirming ? "Confirm renewal extension of \(form.originalTransactionId)" : "Extend renewal date of \(form.originalTransactionId)"
        return Modal(title: title, lines: lines, style: theme[.modal],
                     borderStyle: form.confirming ? theme[.warning] : theme[.borderFocus], width: 76, hangsUnderValue: true)
    }
}
