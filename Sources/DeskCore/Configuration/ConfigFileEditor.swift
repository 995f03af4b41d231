import Foundation

/// Writes one profile into the text of `config.toml` and leaves every other line as it was:
/// other profiles, `[keys]`, comments, blank lines and keys of the profile it does not set.
/// (The TOML reader keeps no comments, so the file is edited as text, table by table.)
public enum ConfigFileEditor {
    /// A value as TOML writes it.
    public enum Value: Sendable, Equatable {
        case string(String)
        case integer(Int64)

        public var toml: String {
            switch self {
            case .integer(let number): return String(number)
            case .string(let text): return ConfigFileEditor.quoted(text)
            }
        }
    }

    /// Profile names written without quotes, so the header is a plain `[profiles.NAME]`.
    public static func isBareName(_ name: String) -> Bool {
        !name.isEmpty && name.unicodeScalars.allSatisfy {
            $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || $0 == "-" || $0 == "_")
        }
    }

    /// `text` with `[profiles.NAME]` holding `values` (in order, replacing those keys' lines) and
    /// without the keys in `removing`; the table is appended when missing. With `setDefault`, a
    /// file without `default_profile` gets one naming this profile.
    public static func settingProfile(
        _ name: String, _ values: [(key: String, value: Value)], removing: [String] = [], in text: String, setDefault: Bool
    ) -> String {
        var lines = text.isEmpty ? [] : text.components(separatedBy: "\n")
        if lines.last == "" { lines.removeLast() }
        if let header = lines.firstIndex(where: { isHeader($0, of: name) }) {
            let end = lines[(header + 1)...].firstIndex(where: isAnyHeader) ?? lines.count
            var written = Set<String>()
            var kept: [String] = []
            for line in lines[(header + 1)..<end] {
                guard let key = key(of: line) else {
                    kept.append(line)
                    continue
                }
                if removing.contains(key) || written.contains(key) { continue }
                if let value = values.first(where: { $0.key == key }) {
                    kept.append("\(key) = \(value.value.toml)")
                    written.insert(key)
                } else {
                    kept.append(line)
                }
            }
            // New keys go after the table's last key, before the comments that lead into the next table.
            let lastKey = kept.lastIndex { key(of: $0) != nil }.map { $0 + 1 } ?? 0
            let added = values.filter { !written.contains($0.key) }.map { "\($0.key) = \($0.value.toml)" }
            kept.insert(contentsOf: added, at: lastKey)
            lines.replaceSubrange((header + 1)..<end, with: kept)
        } else {
            if let last = lines.last, !last.trimmingCharacters(in: .whitespaces).isEmpty { lines.append("") }
            lines.append("[profiles.\(name)]")
            lines += values.map { "\($0.key) = \($0.value.toml)" }
        }
        if setDefault, !lines.contains(where: { key(of: $0) == "default_profile" && isTopLevel($0, in: lines) }) {
            lines.insert(contentsOf: ["default_profile = \(quoted(name))", ""], at: 0)
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// A TOML basic string.
    static func quoted(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\t": out += "\\t"
            case "\r": out += "\\r"
            default:
                if scalar.value < 0x20 || scalar.value == 0x7F {
                    out += String(format: "\\u%04X", scalar.value)
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        return out + "\""
    }

    /// The line without its comment and spaces; good enough for headers, which hold no `#`.
    private static func bare(_ line: String) -> String {
        let code = line.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).first.map(String.init) ?? ""
        return code.filter { !$0.isWhitespace }
    }

    static func isAnyHeader(_ line: String) -> Bool { line.trimmingCharacters(in: .whitespaces).hasPrefix("[") }

    static func isHeader(_ line: String, of name: String) -> Bool {
        let text = bare(line)
        return text == "[profiles.\(name)]" || text == "[profiles.\"\(name)\"]" || text == "[\"profiles\".\"\(name)\"]" || text == "[\"profiles\".\(name)]"
    }

    /// The key a `key = value` line sets, unquoted; nil for comments, blanks, headers and the
    /// continuation lines of a multi-line array.
    static func key(of line: String) -> String? {
        let trimmed = line.trimmingCharacters(in: .whitespaces)
        guard let first = trimmed.first, first != "#", first != "[", let equals = trimmed.firstIndex(of: "=") else { return nil }
        var key = trimmed[..<equals].trimmingCharacters(in: .whitespaces)
        if key.count >= 2, key.hasPrefix("\""), key.hasSuffix("\"") { key = String(key.dropFirst().dropLast()) }
        guard !key.isEmpty, !key.contains("\""), !key.contains(",") else { return nil }
        return key
    }

    /// True when `line` comes before the first table header.
    private static func isTopLevel(_ line: String, in lines: [String]) -> Bool {
        guard let index = lines.firstIndex(of: line) else { return false }
        let firstHeader = lines.firstIndex(where: isAnyHeader) ?? lines.count
        return index < firstHeader
    }
}
