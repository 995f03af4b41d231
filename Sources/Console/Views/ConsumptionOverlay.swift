import AppStoreServerAPI
import DeskCore
import Foundation
import TerminalUI

/// The answer to Apple's refund request: the five fields in words, what Apple would refuse, then
/// the exact request for the agent to confirm.
enum ConsumptionOverlay: ModalOverlay {
    /// What each field tells Apple, shown under the selected one.
    static func explanation(_ field: ConsumptionForm.Field) -> String {
        switch field {
        case .delivery: return "Did the purchase reach the customer, and work?"
        case .share: return "How much of it was used, 0-100 %; empty sends none."
        case .sample: return "Did the app offer a free sample or trial of it first?"
        case .preference: return "The outcome you would prefer. Apple decides."
        case .consent: return "Ask: does the customer agree to share this with Apple?"
        }
    }

    static func modal(_ state: ConsoleState, _ theme: Theme) -> Modal? {
        guard let form = state.consumptionForm else { return nil }
        var lines: [[Paragraph.Span]] = []
        func row(_ name: String, _ value: String, _ role: ThemeRole = .modal, marked: Bool = false) {
            let label = (marked ? "▸ " : "  ") + name
            lines.append([.init(label.padding(toLength: 16, withPad: " ", startingAt: 0), theme[marked ? .accent : .muted]), .init(value, theme[role])])
        }
        let environment = form.environment ?? state.environment
        let environmentLabel = state.isDemo ? "Demo (\(environment.label))" : environment.label
        let product = form.productId.hasPrefix(state.bundleId + ".") ? String(form.productId.dropFirst(state.bundleId.count + 1)) : form.productId
        row("Purchase", "transaction \(form.transactionId) · \(product)")
        row("Apple asked", asked(form, state.now), form.request == nil && !form.readingQueue ? .error : .modal)
        if form.confirming, let target = ConsumptionReducer.target(form, seenAt: form.queueReadAt) {
            row("Account", "profile \(state.profileName) · \(environmentLabel) · \(state.bundleId)")
            lines.append([])
            let endpoint = target.endpoint
            lines.append([.init("This exact request will be sent to \(environmentLabel):", theme[.warning])])
            lines.append([.init("\(endpoint.method) \(endpoint.path)", theme[.modal])])
            lines.append([.init(String(decoding: endpoint.body ?? Data(), as: UTF8.self), theme[.modal])])
            lines.append([.init("In words: " + inWords(target.body) + ".", theme[.modal])])
            lines.append([.init("Sent once, written to the audit ledger first. Apple decides the refund.", theme[.muted])])
            lines.append([.init("Enter/y send · Esc/n back", theme[.footerKey])])
            return Modal(title: "Confirm answer to Apple's refund request", lines: lines, style: theme[.modal], borderStyle: theme[.warning], width: 76)
        }
        lines.append([])
        let answer = form.answer
        let selected = form.field
        func field(_ field: ConsumptionForm.Field, _ name: String, _ value: String, _ role: ThemeRole = .accent) {
            row(name, value, role, marked: field == selected)
            if field == selected { lines.append([.init("                " + explanation(field), theme[.muted])]) }
        }
        field(.delivery, "Delivered", "◂ \(answer.deliveryStatus.label) ▸")
        if form.takesShare {
            let typed = form.share.text.isEmpty ? "_" : form.share.text
            let shareRole: ThemeRole = { if case .failure = form.typedShare { return .error } else { return .accent } }()
            field(.share, "Share used", "[\(typed)] %" + (form.share.text.isEmpty ? "  none sent" : ""), shareRole)
        } else {
            field(.share, "Share used", "none: Apple works it out for subscriptions", .muted)
        }
        field(.sample, "Sample given", answer.sampleContentProvided ? "yes, a free sample or trial" : "no")
        field(.preference, "Preference", "◂ \(answer.refundPreference?.label ?? "No preference stated") ▸")
        field(.consent, "Consent", answer.customerConsented
              ? "yes: the customer agreed to share this with Apple"
              : "no: ask the customer; nothing is sent without it", answer.customerConsented ? .success : .warning)
        for refusal in form.refusals {
            lines.append([.init("✗ " + refusal.reason + (refusal.appleAnswer.map { " Apple: \($0)." } ?? ""), theme[.error])])
        }
        if let error = form.error { lines.append([.init(error, theme[.error])]) }
        if form.readingQueue {
            lines.append([.init("\(Spinner.frame(state.tick)) reading Apple's refund requests, for the deadline…", theme[.info])])
        }
        lines.append([.init("↑↓ field · ←→ change · type the share · Enter review · Esc cancel", theme[.footerKey])])
        return Modal(title: "Answer Apple's refund request", lines: lines, style: theme[.modal], borderStyle: theme[.borderFocus], width: 76)
    }

    /// "2026-06-01 14:22 UTC · Unintended purchase · 3 h 10 min left".
    static func asked(_ form: ConsumptionForm, _ now: Date) -> String {
        if form.readingQueue && form.request == nil { return "reading…" }
        guard let request = form.request else {
            return form.requestsComplete ? "no refund request for this transaction" : "unknown: the requests could not all be read"
        }
        let left = request.deadline > now ? request.timeLeft(now: now) : "12 hours ended \(DisplayFormat.relative(request.deadline, now: now))"
        return [RefundRequestsView.day(request.requestedAt), request.reason?.label, left].compactMap { $0 }.joined(separator: " · ")
    }

    /// The body in the agent's words.
    static func inWords(_ body: ConsumptionRequest) -> String {
        var words = [body.deliveryStatus?.label.lowercased() ?? "-"]
        if let share = body.consumptionPercentage { words.append("\(DisplayFormat.percentage(share)) used") }
        words.append(body.sampleContentProvided == true ? "a sample was given" : "no sample")
        words.append(body.refundPreference.map { $0.label.lowercased() } ?? "no preference")
        if body.customerConsented == true { words.append("the customer agreed to share this") }
        return words.joined(separator: " · ")
    }
}
