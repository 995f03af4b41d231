import Foundation

/// The IDs of a bulk run, read from a file of one ID per line or from one column of a CSV file,
/// each with the line it came from (what the output and `--resume` refer to).
struct BulkInput: Equatable {
    struct Item: Equatable {
        /// 1-based line of the file (for a CSV file, the line its row starts on).
        var line: Int
        var id: String
        /// Why a CSV row holds no ID to ask for: it still gets a record saying so.
        var problem: String?

        init(line: Int, id: String, problem: String? = nil) {
            (self.line, self.id, self.problem) = (line, id, problem)
        }
    }

    var items: [Item]
    /// Lines or cells left out: blank, a `#` comment, or a one-column file's header.
    var skipped: Int

    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// Reads `text`: one ID per line unless `column` names a CSV column (by header name, any case,
    /// or by number from 1). A file with commas and no `--column` is refused, naming its columns,
    /// since taking the first column silently could send the wrong IDs.
    static func parse(_ text: String, column: String?, source: String) throws -> BulkInput {
        let rows = CSVRows.parse(text)
        if let column { return try fromColumn(column, rows: rows, source: source) }
        var items: [Item] = []
        var skipped = 0
        for row in rows {
            // An ID with a stray comma after it ("2000000400000044,") is still one ID.
            let filled = row.fields.filter { !$0.trimmingCharacters(in: .whitespaces).isEmpty }
            if filled.count > 1 {
                let first = rows.first { !$0.isBlank && !$0.isComment }?.fields.joined(separator: ", ") ?? ""
                throw Failure(description: "\(source) line \(row.line) has \(filled.count) comma-separated values: name the column of IDs with --column NAME or --column NUMBER (the first row is: \(first.prefix(120))).")
            }
            let id = filled.first?.trimmingCharacters(in: .whitespaces) ?? ""
            if id.isEmpty || id.hasPrefix("#") || (items.isEmpty && IDLike.isColumnName(id)) {
                skipped += 1
                continue
            }
            items.append(Item(line: row.line, id: id))
        }
        return BulkInput(items: items, skipped: skipped)
    }

    private static func fromColumn(_ column: String, rows: [CSVRows.Row], source: String) throws -> BulkInput {
        // Comment lines ("# exported after the outage") above or among the rows are not rows.
        let commented = rows.filter(\.isComment).count
        let rows = rows.filter { !$0.isComment }
        guard let header = rows.first(where: { !$0.isBlank }) else { return BulkInput(items: [], skipped: commented) }
        let names = header.fields.map { $0.trimmingCharacters(in: .whitespaces) }
        let index: Int
        if let number = Int(column) {
            guard (1...names.count).contains(number) else {
                throw Failure(description: "--column \(number): \(source) has \(names.count) column\(names.count == 1 ? "" : "s") (\(names.joined(separator: ", "))).")
            }
            index = number - 1
        } else if let found = names.firstIndex(where: { $0.caseInsensitiveCompare(column) == .orderedSame }) {
            index = found
        } else {
            throw Failure(description: "--column \(column): \(source) has no such column; its header is: \(names.joined(separator: ", ")).")
        }
        var items: [Item] = []
        var skipped = commented
        // A column named by number may have no header row: then a first cell that is an ID counts.
        let headerIsData = Int(column) != nil && IDLike.looksLikeID(names[index])
        let name = headerIsData ? "column \(index + 1)" : "column \(names[index])"
        for row in rows where row.line > header.line || (headerIsData && row.line == header.line) {
            if row.isBlank {
                skipped += 1
                continue
            }
            // A row of the export without an ID is a customer too: its record says why nothing was asked.
            guard index < row.fields.count else {
                items.append(Item(line: row.line, id: "", problem: "The row has \(row.fields.count) column\(row.fields.count == 1 ? "" : "s"); the IDs are in \(name)."))
                continue
            }
            let id = row.fields[index].trimmingCharacters(in: .whitespaces)
            guard !id.isEmpty else {
                items.append(Item(line: row.line, id: "", problem: "The row has no ID in \(name)."))
                continue
            }
            items.append(Item(line: row.line, id: id))
        }
        return BulkInput(items: items, skipped: skipped)
    }

    /// Reads the file at `path`, or standard input for `-`.
    static func read(_ path: String, column: String?) throws -> BulkInput {
        let data: Data
        if path == "-" {
            data = FileHandle.standardInput.readDataToEndOfFile()
        } else {
            guard let contents = FileManager.default.contents(atPath: path) else {
                throw Failure(description: "--from \(path) cannot be read.")
            }
            data = contents
        }
        guard let text = String(data: data, encoding: .utf8) else {
            throw Failure(description: "--from \(path == "-" ? "standard input" : path) is not UTF-8 text.")
        }
        return try parse(text, column: column, source: path == "-" ? "standard input" : path)
    }
}

/// Telling a header cell from an ID.
enum IDLike {
    /// Digits: a transaction ID, never a column's name.
    static func looksLikeID(_ text: String) -> Bool {
        !text.isEmpty && text.allSatisfy { $0.isASCII && $0.isNumber }
    }

    /// A column name that heads a list of IDs exported from a spreadsheet or database (the first
    /// line of a one-column file is skipped when it is one of these).
    static func isColumnName(_ text: String) -> Bool {
        let key = text.lowercased().filter { $0.isLetter }
        return ["id", "ids", "transactionid", "originaltransactionid", "apptransactionid", "orderid", "appaccounttoken"].contains(key)
    }
}

/// Rows of comma-separated text as RFC 4180 has them: quoted fields may hold commas, doubled
/// quotes and line breaks; a row remembers the line it starts on.
enum CSVRows {
    struct Row: Equatable {
        var line: Int
        var fields: [String]

        var isBlank: Bool { fields.allSatisfy { $0.trimmingCharacters(in: .whitespaces).isEmpty } }

        /// A line of its own starting with `#`.
        var isComment: Bool { fields.count == 1 && fields[0].trimmingCharacters(in: .whitespaces).hasPrefix("#") }
    }

    static func parse(_ text: String) -> [Row] {
        var rows: [Row] = []
        var fields: [String] = []
        var field = ""
        var quoted = false
        var line = 1
        var rowLine = 1
        var characters = text.makeIterator()
        var pending: Character? = characters.next()
        func endRow() {
            fields.append(field)
            rows.append(Row(line: rowLine, fields: fields))
            (fields, field) = ([], "")
        }
        while let character = pending {
            pending = characters.next()
            if quoted {
                if character == "\"" {
                    if pending == "\"" {
                        field.append("\"")
                        pending = characters.next()
                    } else {
                        quoted = false
                    }
                } else {
                    if character.isNewline { line += 1 }
                    field.append(character)
                }
                continue
            }
            switch character {
            case "\"" where field.trimmingCharacters(in: .whitespaces).isEmpty:
                field = ""
                quoted = true
            case ",":
                fields.append(field)
                field = ""
            case "\n", "\r\n", "\r":
                endRow()
                line += 1
                rowLine = line
            default:
                field.append(character)
            }
        }
        if !field.isEmpty || !fields.isEmpty { endRow() }
        return rows
    }

    /// One field written for a CSV file: quoted when it holds a comma, quote or line break.
    static func field(_ text: String) -> String {
        guard text.contains(where: { $0 == "," || $0 == "\"" || $0.isNewline }) else { return text }
        return "\"" + text.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }

    static func line(_ fields: [String]) -> String { fields.map(field).joined(separator: ",") }
}
