import Foundation

/// A plain-text table sized to the terminal: the widest columns give way first, cut with "…".
struct TextTable {
    var headers: [String]
    var rows: [[String]] = []
    /// Columns never cut, such as IDs a user copies: the others give way instead.
    var keepWhole: Set<Int> = []
    /// Lines printed whole under a row (by row index), indented, outside the columns: signed
    /// strings are far wider than any terminal and are there to be copied, not cut.
    var notes: [Int: [String]] = [:]

    init(_ headers: String...) {
        self.headers = headers
    }

    mutating func add(_ cells: String...) { rows.append(cells) }
    mutating func add(_ cells: [String]) { rows.append(cells) }

    /// A line under the last row added.
    mutating func note(_ line: String) {
        guard !rows.isEmpty else { return }
        notes[rows.count - 1, default: []].append(line)
    }

    func render(width: Int = TerminalInfo.width) -> String {
        guard !headers.isEmpty else { return "" }
        var widths = headers.indices.map { column in
            ([headers[column]] + rows.map { column < $0.count ? $0[column] : "" }).map(\.count).max() ?? 0
        }
        let gap = 2
        let available = max(width, headers.count * 4)
        let whole = keepWhole.union(headers.indices.filter { column in
            let cells = rows.compactMap { column < $0.count ? $0[column] : nil }.filter { !$0.isEmpty && $0 != "-" }
            return !cells.isEmpty && cells.allSatisfy(Self.isIdentifierOrDate)
        })
        while widths.reduce(0, +) + gap * (widths.count - 1) > available {
            let cuttable = widths.indices.filter { !whole.contains($0) }
            guard let widest = cuttable.max(by: { widths[$0] < widths[$1] }), widths[widest] > 4 else { break }
            widths[widest] -= 1
        }
        func line(_ cells: [String]) -> String {
            var parts: [String] = []
            for (index, width) in widths.enumerated() {
                let cell = index < cells.count ? cells[index] : ""
                let fitted = cell.count > width ? String(cell.prefix(width - 1)) + "…" : cell
                parts.append(index == widths.count - 1 ? fitted : fitted.padding(toLength: width, withPad: " ", startingAt: 0))
            }
            return parts.joined(separator: String(repeating: " ", count: gap)).replacingOccurrences(of: "\\s+$", with: "", options: .regularExpression)
        }
        var output = [line(headers), line(widths.map { String(repeating: "-", count: $0) })]
        for (index, row) in rows.enumerated() {
            output.append(line(row))
            output += (notes[index] ?? []).map { "  " + $0 }
        }
        return output.joined(separator: "\n")
    }
}

extension TextTable {
    /// UUIDs, numeric IDs, order IDs and dates: cut, they are useless to copy or compare.
    static func isIdentifierOrDate(_ cell: String) -> Bool {
        cell.range(of: #"^([0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12}|[0-9]{1,20}|[A-Z0-9]{10}|[0-9]{4}-[0-9]{2}-[0-9]{2}([ T][0-9:]{5,8}( UTC|Z)?)?)$"#, options: .regularExpression) != nil
    }
}

/// `key: value` lines with the keys aligned.
struct FieldList {
    var fields: [(String, String)] = []

    mutating func add(_ key: String, _ value: String?) {
        guard let value, !value.isEmpty, value != "-" else { return }
        fields.append((key, value))
    }

    func render() -> String {
        let width = fields.map(\.0.count).max() ?? 0
        return fields.map { "\($0.0.padding(toLength: width, withPad: " ", startingAt: 0))  \($0.1)" }.joined(separator: "\n")
    }
}

enum TerminalInfo {
    static var width: Int {
        if let columns = ProcessInfo.processInfo.environment["COLUMNS"], let value = Int(columns), value > 20 { return value }
        var size = winsize()
        if ioctl(STDOUT_FILENO, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 20 { return Int(size.ws_col) }
        // Piped into a file or another tool: nothing is cut.
        return isatty(STDOUT_FILENO) == 1 ? 120 : 10_000
    }

    static var inputIsInteractive: Bool { isatty(STDIN_FILENO) == 1 }
}
