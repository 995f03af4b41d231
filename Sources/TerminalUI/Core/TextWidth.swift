import CNCursesW
import Foundation
import Synchronization

/// Display width of text, matching glibc `wcwidth` (which ncurses places cells by), after the
/// process locale is set to UTF-8. Control characters count as 0 and are replaced when drawn.
public enum TextWidth {
    private static let localeReady = Mutex(false)

    /// Sets LC_CTYPE to a UTF-8 locale once (C.UTF-8 when the environment gives none).
    public static func prepareLocale() {
        localeReady.withLock { ready in
            guard !ready else { return }
            setlocale(LC_ALL, "")
            if iapdesk_codeset_is_utf8() == 0 { setlocale(LC_ALL, "C.UTF-8") }
            ready = true
        }
    }

    public static func of(_ scalar: Unicode.Scalar) -> Int {
        let value = scalar.value
        if value < 0x7F { return value >= 0x20 ? 1 : 0 }
        prepareLocale()
        let width = Int(iapdesk_wcwidth(value))
        return width < 0 ? 0 : width
    }

    /// Width of a grapheme cluster: its first scalar's width, combining marks add nothing.
    public static func of(_ character: Character) -> Int {
        guard let first = character.unicodeScalars.first else { return 0 }
        return of(first)
    }

    public static func of(_ text: some StringProtocol) -> Int {
        text.reduce(0) { $0 + of($1) }
    }

    /// The longest prefix of `text` that fits in `width` cells, with "…" when cut.
    public static func truncate(_ text: String, to width: Int, ellipsis: Bool = true) -> String {
        guard width > 0 else { return "" }
        if of(text) <= width { return text }
        var result = ""
        var used = 0
        let limit = ellipsis ? width - 1 : width
        for character in text {
            let w = of(character)
            if used + w > limit { break }
            result.append(character)
            used += w
        }
        return ellipsis ? result + "…" : result
    }

    /// Text made safe to draw: control characters become spaces, emoji presentation selectors go.
    public static func sanitize(_ text: String) -> String {
        var out = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            switch scalar.value {
            case 0x09, 0x0A, 0x0D: out.append(" ")
            case 0..<0x20, 0x7F..<0xA0: out.append(" ")
            case 0xFE0F, 0x200D, 0x1F3FB...0x1F3FF: continue
            default: out.append(scalar)
            }
        }
        return String(out)
    }
}
