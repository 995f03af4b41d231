import Foundation
import TOML

/// Semantic colour roles; widgets are given roles, never raw colours.
public enum ThemeRole: String, CaseIterable, Sendable {
    case text, muted, accent, border, borderFocus = "border_focus", title, header, selection
    case success, warning, error, info
    case statusBar = "status_bar", footer, footerKey = "footer_key", input, modal
    case production, sandbox, demo
}

/// A named set of role styles, read from TOML:
///
/// ```toml
/// name = "default"
/// [roles]
/// text = { fg = "#d0d0d0" }
/// selection = { fg = "black", bg = 39, bold = true }
/// ```
public struct Theme: Sendable, Equatable {
    public var name: String
    public var roles: [ThemeRole: Style]

    public init(name: String, roles: [ThemeRole: Style]) {
        self.name = name
        self.roles = roles
    }

    public subscript(role: ThemeRole) -> Style { roles[role] ?? Self.fallback.roles[role] ?? .plain }

    /// Only modifiers, no colours: for NO_COLOR and terminals without colour.
    public var monochrome: Theme {
        var roles: [ThemeRole: Style] = [:]
        for role in ThemeRole.allCases {
            var style = Style(modifiers: self[role].modifiers)
            if [.selection, .statusBar, .production, .sandbox, .demo].contains(role) { style.modifiers.insert(.reverse) }
            roles[role] = style
        }
        return Theme(name: name, roles: roles)
    }

    /// Colours reduced to what the terminal can show (16, 256, or more).
    public func quantized(colors: Int) -> Theme {
        var roles: [ThemeRole: Style] = [:]
        for (role, style) in self.roles {
            roles[role] = Style(fg: style.fg?.quantized(to: colors), bg: style.bg?.quantized(to: colors), modifiers: style.modifiers)
        }
        return Theme(name: name, roles: roles)
    }

    /// Used when no theme file can be read, and for roles a theme leaves out.
    public static let fallback = Theme(name: "fallback", roles: [
        .text: Style(), .muted: Style(fg: .brightBlack), .accent: Style(fg: .cyan, modifiers: .bold),
        .border: Style(fg: .brightBlack), .borderFocus: Style(fg: .cyan), .title: Style(modifiers: .bold),
        .header: Style(modifiers: [.bold, .underline]), .selection: Style(modifiers: .reverse),
        .success: Style(fg: .green), .warning: Style(fg: .yellow), .error: Style(fg: .red, modifiers: .bold), .info: Style(fg: .blue),
        .statusBar: Style(modifiers: .reverse), .footer: Style(), .footerKey: Style(modifiers: .bold), .input: Style(modifiers: .underline),
        .modal: Style(), .production: Style(fg: .red, modifiers: [.bold, .reverse]), .sandbox: Style(fg: .yellow, modifiers: [.bold, .reverse]),
        .demo: Style(fg: .magenta, modifiers: [.bold, .reverse]),
    ])

    public static func parse(_ text: String, source: String) throws -> Theme {
        let table: TOMLTable
        do {
            table = try TOMLDocument.parse(text)
        } catch {
            throw ThemeError("\(source): \(error)")
        }
        let name = table["name"]?.string ?? URL(fileURLWithPath: source).deletingPathExtension().lastPathComponent
        guard let rolesTable = table["roles"]?.table else { throw ThemeError("\(source): no [roles] table") }
        var roles: [ThemeRole: Style] = [:]
        for key in rolesTable.keys {
            guard let role = ThemeRole(rawValue: key) else {
                throw ThemeError("\(source): unknown role \"\(key)\" (known: \(ThemeRole.allCases.map(\.rawValue).joined(separator: ", ")))")
            }
            guard let entry = rolesTable[key]?.table else { throw ThemeError("\(source): roles.\(key) must be a table like { fg = \"cyan\" }") }
            var style = Style()
            style.fg = try entry["fg"].map { try color($0, "\(source): roles.\(key).fg") }
            style.bg = try entry["bg"].map { try color($0, "\(source): roles.\(key).bg") }
            for (flag, modifier) in [("bold", Modifiers.bold), ("dim", .dim), ("italic", .italic), ("underline", .underline), ("reverse", .reverse)] {
                if entry[flag]?.bool == true { style.modifiers.insert(modifier) }
            }
            roles[role] = style
        }
        return Theme(name: name, roles: roles)
    }

    static let named: [String: Color] = [
        "black": .black, "red": .red, "green": .green, "yellow": .yellow, "blue": .blue, "magenta": .magenta, "cyan": .cyan,
        "white": .white, "bright_black": .brightBlack, "grey": .brightBlack, "gray": .brightBlack, "bright_red": .brightRed,
        "bright_green": .brightGreen, "bright_yellow": .brightYellow, "bright_blue": .brightBlue, "bright_magenta": .brightMagenta,
        "bright_cyan": .brightCyan, "bright_white": .brightWhite, "default": .default,
    ]

    static func color(_ value: TOMLValue, _ source: String) throws -> Color {
        if let index = value.integer {
            guard (0...255).contains(index) else { throw ThemeError("\(source): colour index must be 0 to 255") }
            return .indexed(UInt8(index))
        }
        guard let text = value.string?.lowercased() else { throw ThemeError("\(source): a colour is a name, 0-255 or #rrggbb") }
        if let color = named[text] { return color }
        // Exactly six hex digits: UInt32(_:radix:) alone would also take a sign ("#+fffff").
        let digits = text.utf8.dropFirst()
        if text.hasPrefix("#"), digits.count == 6, digits.allSatisfy({ Character(Unicode.Scalar($0)).isHexDigit }),
           let rgb = UInt32(text.dropFirst(), radix: 16) {
            return .rgb(UInt8(rgb >> 16 & 0xFF), UInt8(rgb >> 8 & 0xFF), UInt8(rgb & 0xFF))
        }
        throw ThemeError("\(source): \"\(text)\" is not a colour (use a name, 0-255 or #rrggbb)")
    }
}

public struct ThemeError: Error, CustomStringConvertible, Sendable {
    public let description: String
    public init(_ description: String) { self.description = description }
}
