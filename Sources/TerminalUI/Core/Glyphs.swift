import Foundation

/// The characters the console draws with: Unicode (box drawing, ✓ ✗ ⚠, arrows, the braille
/// spinner) where the locale's codeset is UTF-8, plain ASCII where it is not (LANG=C, POSIX,
/// Latin-1), which such a terminal shows instead of mojibake. Chosen once at start-up from the
/// locale (`forLocale`); the terminal applies it to each frame (`Terminal.draw`), so widgets and
/// views draw with one set of characters and no layout changes: every substitute is one cell wide.
public enum GlyphSet: Sendable, Equatable {
    case unicode
    case ascii

    /// ASCII unless the environment's locale (LC_ALL, LC_CTYPE, LANG) names a UTF-8 codeset.
    public static func forLocale() -> GlyphSet {
        TextWidth.environmentIsUTF8 ? .unicode : .ascii
    }

    /// The one-cell ASCII substitute of each mark the console draws; anything else that is not
    /// ASCII (a customer's text, say) becomes "?".
    static let substitutes: [Unicode.Scalar: Character] = [
        // Boxes, lines and the scroll marker.
        "╭": "+", "╮": "+", "╰": "+", "╯": "+", "┌": "+", "┐": "+", "└": "+", "┘": "+", "├": "+", "┤": "+", "┬": "+", "┴": "+", "┼": "+",
        "─": "-", "━": "-", "│": "|", "┃": "|", "▐": "#", "█": "#", "▌": "#", "░": ":",
        // Marks.
        "✓": "+", "✔": "+", "✗": "x", "✘": "x", "⚠": "!", "•": "*", "·": "-", "…": "~", "×": "x", "—": "-", "–": "-",
        "›": ">", "‹": "<", "«": "<", "»": ">", "‘": "'", "’": "'", "“": "\"", "”": "\"",
        // Arrows and triangles (folds, choices, sort order).
        "→": ">", "←": "<", "↑": "^", "↓": "v", "▸": ">", "▾": "v", "▶": ">", "◂": "<", "◀": "<", "▲": "^", "▼": "v", "↵": "<",
        // The spinner's frames, turning as | / - \ does.
        "⠋": "|", "⠙": "/", "⠹": "-", "⠸": "\\", "⠼": "|", "⠴": "/", "⠦": "-", "⠧": "\\", "⠇": "|", "⠏": "/",
    ]

    /// The cell as this set draws it: under ASCII, one ASCII character for each cell (the right
    /// half of a wide character included, so nothing moves).
    public func drawn(_ cell: Cell) -> Cell {
        guard self == .ascii, !cell.symbol.utf8.allSatisfy({ $0 < 0x80 }) || cell.isContinuation else { return cell }
        guard let first = cell.symbol.unicodeScalars.first, !cell.isContinuation else { return Cell("?", style: cell.style) }
        return Cell(String(Self.substitutes[first] ?? "?"), style: cell.style)
    }
}

extension Buffer {
    /// Every cell as `glyphs` draws it.
    public mutating func draw(with glyphs: GlyphSet) {
        guard glyphs == .ascii else { return }
        for y in area.y..<area.bottom {
            for x in area.x..<area.right {
                let cell = self[x, y]
                let drawn = glyphs.drawn(cell)
                if drawn != cell { self[x, y] = drawn }
            }
        }
    }
}
