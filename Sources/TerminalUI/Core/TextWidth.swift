import CNCursesW
import Foundation
import Synchronization

/// Display width of text, matching glibc `wcwidth` (which ncurses places cells by), after the
/// process locale is set to UTF-8. Control characters count as 0 and are replaced when drawn.
public enum TextWidth {
    /// Whether the locale was set, and whether the environment's own locale was UTF-8.
    private static let locale = Mutex<(ready: Bool, environmentIsUTF8: Bool)>((false, false))

    /// Sets LC_CTYPE to a UTF-8 locale once (C.UTF-8 when the environment gives none), so that
    /// widths are measured and wide characters read alike whatever the environment says.
    public static func prepareLocale() {
        locale.withLock { locale in
            guard !locale.ready else { return }
            setlocale(LC_ALL, "")
            locale.environmentIsUTF8 = iapdesk_codeset_is_utf8() != 0
            if !locale.environmentIsUTF8 { setlocale(LC_ALL, "C.UTF-8") }
            locale.ready = true
        }
    }

    /// Whether the environment's locale (LC_ALL, LC_CTYPE, LANG) names a UTF-8 codeset: what
    /// the terminal can be expected to show (`GlyphSet.forLocale`).
    public static var environmentIsUTF8: Bool {
        prepareLocale()
        return locale.withLock { $0.environmentIsUTF8 }
    }

    /// Cells one scalar takes once drawn: what `sanitize` drops takes none, a control character
    /// (drawn as a space) one, anything else what glibc's `wcwidth` says (zero for combining marks).
    public static func of(_ scalar: Unicode.Scalar) -> Int {
        let value = scalar.value
        if value < 0x7F { return 1 }
        if value < 0xA0 { return 1 }
        if isDropped(scalar) { return 0 }
        prepareLocale()
        let width = Int(iapdesk_wcwidth(value))
        return width < 0 ? 0 : width
    }

    /// Width of a grapheme cluster: the sum of its scalars, because the buffer gives every scalar of
    /// non-zero width a cell of its own (a flag's two halves, a jamo syllable's lead) and joins the
    /// zero-width ones to the cell before, as ncurses and the terminal do.
    public static func of(_ character: Character) -> Int {
        var total = 0
        for scalar in character.unicodeScalars { total += of(scalar) }
        return total
    }

    public static func of(_ text: some StringProtocol) -> Int {
        var total = 0
        for scalar in text.unicodeScalars { total += of(scalar) }
        return total
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

    /// `text` cut to `width` cells in the middle, with "…" where the cut is; the end, where IDs
    /// differ, keeps two thirds.
    public static func truncateMiddle(_ text: String, to width: Int) -> String {
        guard width > 0 else { return "" }
        if of(text) <= width { return text }
        guard width > 4 else { return truncate(text, to: width) }
        let characters = Array(text)
        let tailRoom = (width - 1) * 2 / 3
        var tail: [Character] = []
        var used = 0
        for character in characters.reversed() {
            let w = of(character)
            if used + w > tailRoom { break }
            tail.insert(character, at: 0)
            used += w
        }
        return truncate(String(characters.dropLast(tail.count)), to: width - used - 1, ellipsis: false) + "…" + String(tail)
    }

    /// Text made safe to draw: control characters become spaces, emoji presentation selectors,
    /// joiners and skin-tone modifiers go (terminals disagree on their widths).
    public static func sanitize(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: { $0.value < 0x20 || (0x7F..<0xA0).contains($0.value) || isDropped($0) }) else { return text }
        var out = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            if scalar.value < 0x20 || (0x7F..<0xA0).contains(scalar.value) {
                out.append(" ")
            } else if !isDropped(scalar) {
                out.append(scalar)
            }
        }
        return String(out)
    }

    static func isDropped(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0xFE0F, 0x200D, 0x1F3FB...0x1F3FF: return true
        default: return false
        }
    }
}
