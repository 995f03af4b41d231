import AppStoreServerAPI
import DeskCore
import Foundation
import TerminalUI

/// The `:retention` screen: the realtime URL, messages, images and the default messages asked,
/// each with Apple's review state, and each part's error in its own place.
enum RetentionOverlay {
    static func box(_ area: Rect) -> Rect { area.centered(width: min(140, area.width - 2), height: area.height - 2) }

    static func body(_ area: Rect) -> Rect { Block.inner(box(area)).inset(horizontal: 1) }

    static func screen(_ state: ConsoleState) -> Rect { Rect(x: 0, y: 0, width: state.screenWidth, height: state.screenHeight) }

    static func bodyHeight(_ state: ConsoleState) -> Int { max(1, body(screen(state)).height) }

    static func lineCount(_ state: ConsoleState) -> Int {
        let width = body(screen(state)).width
        return Paragraph(lines: lines(state, .fallback, width: width), hangingIndent: true).layout(width: width).count
    }

    static func render(_ state: ConsoleState, _ theme: Theme, _ area: Rect, _ buffer: inout Buffer) {
        let frame = box(area)
        let inner = body(area)
        guard frame.width >= 4, frame.height >= 3 else { return }
        let all = Paragraph(lines: lines(state, theme, width: inner.width), hangingIndent: true).layout(width: inner.width)
        let scroll = min(state.retention.scroll, max(0, all.count - inner.height))
        let modal = theme[.modal]
        buffer.fill(frame, with: modal)
        var title = "Retention Messaging · \(state.retention.overview?.environment.label ?? state.environment.label) · read-only"
        if all.count > inner.height { title += " · lines \(scroll + 1)-\(min(all.count, scroll + inner.height)) of \(all.count)" }
        let border = modal.patched(with: theme[.borderFocus])
        Block(title: title, style: border, titleStyle: border.bold).render(in: frame, buffer: &buffer)
        Paragraph(lines: all, wrap: false, offset: scroll).render(in: inner, buffer: &buffer)
    }

    /// The screen's lines before wrapping, for a body `width` cells wide.
    static func lines(_ state: ConsoleState, _ theme: Theme, width: Int) -> [[Paragraph.Span]] {
        let modal = theme[.modal]
        func on(_ role: ThemeRole) -> Style { modal.patched(with: theme[role]) }
        let screen = state.retention
        guard let overview = screen.overview else { return [[.init("Nothing read yet: r reads.", on(.muted))]] }
        var lines: [[Paragraph.Span]] = [
            [.init("Read \(DisplayFormat.date(overview.readAt, seconds: true)) from \(overview.environment.label). ", on(.muted)),
             .init("r reads again; iapdesk retention … changes it.", on(.muted))],
            [],
        ]
        func heading(_ text: String) -> [Paragraph.Span] { [.init(text, on(.header).bold)] }
        func failure(_ error: DisplayError) -> [[Paragraph.Span]] {
            let facts = error.facts.map { " (\($0))" } ?? ""
            var shown: [[Paragraph.Span]] = [[.init("  ✗ " + error.summary + facts, on(.error))]]
            if let hint = error.hint { shown.append([.init("    Hint: " + hint, on(.muted))]) }
            return shown
        }
        func loading() -> [Paragraph.Span] { [.init("  " + Spinner.frame(state.tick) + " reading…", on(.info))] }
        func review(_ reviewState: RetentionReviewState?) -> Paragraph.Span {
            guard let reviewState else { return .init("-".padding(toLength: 9, withPad: " ", startingAt: 0), on(.muted)) }
            let role: ThemeRole
            switch reviewState {
            case .approved: role = .success
            case .rejected: role = .error
            case .pending: role = .warning
            case .unknown: role = .muted
            }
            return .init(reviewState.rawValue.padding(toLength: 9, withPad: " ", startingAt: 0), on(role).bold)
        }

        // The realtime URL.
        var url: [Paragraph.Span] = [.init("Realtime URL  ", on(.header).bold)]
        switch overview.realtimeURL {
        case .loaded(let value?): url.append(.init(value, modal))
        case .loaded(nil): url.append(.init("none configured in \(overview.environment.label)", on(.muted)))
        case .loading, .idle: url.append(.init(Spinner.frame(state.tick) + " reading…", on(.info)))
        case .failed: break
        }
        lines.append(url)
        if let error = overview.realtimeURL.error { lines += failure(error) }
        lines.append([])

        // Messages.
        switch overview.messages {
        case .loaded(let messages):
            lines.append(heading("Messages (\(messages.count))"))
            if messages.isEmpty { lines.append([.init("  No messages in \(overview.environment.label).", on(.muted))]) }
            for message in messages {
                lines.append([.init("  "), review(message.messageState), .init(" " + (message.messageIdentifier ?? "-"), modal)])
            }
        case .failed(let error): lines.append(heading("Messages")); lines += failure(error)
        case .loading, .idle: lines.append(heading("Messages")); lines.append(loading())
        }
        lines.append([])

        // Images.
        switch overview.images {
        case .loaded(let images):
            lines.append(heading("Images (\(images.count))"))
            if images.isEmpty { lines.append([.init("  No images in \(overview.environment.label).", on(.muted))]) }
            for image in images {
                lines.append([.init("  "), review(image.imageState), .init(" " + (image.imageIdentifier ?? "-"), modal),
                              .init("  " + (image.imageSize?.label ?? "-"), on(.muted))])
            }
        case .failed(let error): lines.append(heading("Images")); lines += failure(error)
        case .loading, .idle: lines.append(heading("Images")); lines.append(loading())
        }
        lines.append([])

        // Default messages: only the products and locales asked.
        lines.append(heading("Default messages"))
        let locales = screen.locales.joined(separator: ", ")
        if overview.slots.isEmpty {
            lines.append([.init("  No products known to ask about: look a customer up, or wait for notifications, then r. "
                + "Apple lists no default messages; iapdesk retention default get PRODUCT LOCALE asks for any one.", on(.muted))])
            return lines
        }
        let left = screen.productsLeftOut > 0 ? " (\(DisplayFormat.count(screen.productsLeftOut, "more product")) not asked)" : ""
        let defaultLocale = screen.locales == RetentionScreen.defaultLocales ? " (retention_locales in the profile sets others)" : ""
        lines.append([.init("  Products: \(screen.productsSource)\(left). Locales: \(locales)\(defaultLocale).", on(.muted))])
        lines.append([.init("  Apple lists no default messages: only these were asked.", on(.muted))])
        let productWidth = min(40, overview.slots.map { TextWidth.of($0.productId) }.max() ?? 0)
        let localeWidth = overview.slots.map { TextWidth.of($0.locale) }.max() ?? 0
        // The message ID goes on a line of its own when the row would not fit.
        let oneLine = 2 + productWidth + 2 + localeWidth + 2 + 9 + 1 + 36 <= width
        for slot in overview.slots {
            let name: [Paragraph.Span] = [
                .init("  " + TextWidth.truncate(slot.productId, to: productWidth).padding(toLength: productWidth, withPad: " ", startingAt: 0), modal),
                .init("  " + slot.locale.padding(toLength: localeWidth, withPad: " ", startingAt: 0) + "  ", modal),
            ]
            switch overview.defaults[slot] ?? .idle {
            case .loaded(let message?):
                let id = Paragraph.Span((oneLine ? " " : "    message ") + message, modal)
                let reviewed = review(overview.messageState(message))
                if oneLine { lines.append(name + [reviewed, id]) } else { lines += [name + [reviewed], [id]] }
            case .loaded(nil): lines.append(name + [.init("none", on(.muted))])
            case .failed(let error):
                lines.append(name + [.init("✗ " + error.summary + (error.facts.map { " (\($0))" } ?? ""), on(.error))])
            case .loading, .idle: lines.append(name + [.init(Spinner.frame(state.tick) + " reading…", on(.info))])
            }
        }
        return lines
    }
}
