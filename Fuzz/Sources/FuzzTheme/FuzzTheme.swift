import Foundation
import FuzzSupport
@testable import TerminalUI
import TOML

/// A theme either fails with a message or holds only colours written as the documentation says
/// (a name, 0-255, or # and six hex digits); written back as TOML it reads back the same, and its
/// reductions to 256, 16, 8 colours and to no colour hold only colours those terminals have.
@main enum FuzzTheme {
    static let source = "/fuzz/themes/fuzz.toml"

    static func main() {
        Fuzz.run { data in
            let text = String(decoding: data, as: UTF8.self)
            let theme: Theme
            do {
                theme = try Theme.parse(text, source: source)
            } catch {
                invariant(!String(describing: error).isEmpty, "an empty error")
                return
            }
            checkColourSpelling(text)
            let written = write(theme)
            do {
                let again = try Theme.parse(written, source: source)
                invariant(again == theme, "written back as\n\(written)\nit reads differently")
            } catch {
                invariant(false, "written back as\n\(written)\nit does not read: \(error)")
            }
            checkReductions(theme)
        }
    }

    /// Every colour the loader took is spelled as documented.
    static func checkColourSpelling(_ text: String) {
        guard let roles = (try? TOMLDocument.parse(text))?["roles"]?.table else { return }
        for role in roles.keys {
            for side in ["fg", "bg"] {
                guard let value = roles[role]?.table?[side] else { continue }
                if let index = value.integer { invariant((0...255).contains(index), "index \(index)"); continue }
                let spelled = value.string?.lowercased() ?? ""
                let hex = spelled.hasPrefix("#") && spelled.utf8.count == 7 && spelled.dropFirst().allSatisfy(\.isHexDigit)
                invariant(Theme.named[spelled] != nil || hex, "accepted colour \(spelled.debugDescription) for roles.\(role).\(side)")
            }
        }
    }

    static func checkReductions(_ theme: Theme) {
        for colors in [8, 16, 256] {
            let reduced = theme.quantized(colors: colors)
            for style in reduced.roles.values {
                for color in [style.fg, style.bg].compactMap({ $0 }) {
                    switch color {
                    case .default: break
                    case .indexed(let index): invariant(Int(index) < colors, "index \(index) in \(colors) colours")
                    case .rgb: invariant(false, "RGB in \(colors) colours")
                    }
                }
            }
        }
        for role in ThemeRole.allCases {
            let style = theme.monochrome[role]
            invariant(style.fg == nil && style.bg == nil, "colour in the monochrome theme")
        }
    }

    static func write(_ theme: Theme) -> String {
        func color(_ color: Color) -> String {
            switch color {
            case .default: return TOMLText.string("default")
            case .indexed(let index): return String(index)
            case .rgb(let r, let g, let b):
                return TOMLText.string("#" + [r, g, b].map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined())
            }
        }
        var lines = ["name = \(TOMLText.string(theme.name))", "[roles]"]
        for (role, style) in theme.roles.sorted(by: { $0.key.rawValue < $1.key.rawValue }) {
            var fields: [String] = []
            if let fg = style.fg { fields.append("fg = \(color(fg))") }
            if let bg = style.bg { fields.append("bg = \(color(bg))") }
            let flags: [(String, Modifiers)] = [("bold", .bold), ("dim", .dim), ("italic", .italic), ("underline", .underline), ("reverse", .reverse)]
            for (name, modifier) in flags where style.modifiers.contains(modifier) { fields.append("\(name) = true") }
            lines.append("\(role.rawValue) = { \(fields.joined(separator: ", ")) }")
        }
        return lines.joined(separator: "\n") + "\n"
    }
}
