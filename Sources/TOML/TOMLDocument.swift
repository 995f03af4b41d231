/// TOML 1.0 text read into tables, for themes and the configuration.
///
/// Read here rather than with TOMLKit 0.6.0: its toml++ 3.4 parser fails assertions on malformed
/// text such as `[`, `x = [}` or `d = 1979-05-27T:` and so aborts the process (built without
/// assertions it runs into undefined behaviour instead), and no release fixes it.
public enum TOMLDocument {
    /// Arrays and inline tables nest, and key paths run, at most this deep: deeper text is refused
    /// rather than read with unbounded recursion.
    public static let maximumDepth = 64

    public static func parse(_ text: String) throws(TOMLError) -> TOMLTable {
        var parser = TOMLParser(text)
        return try parser.document()
    }
}

/// A table while the document is read; how it came to exist decides what may still extend it.
final class TOMLTableBuilder {
    enum Origin {
        /// Created as the parent of a header's table: a later header may still define it.
        case implicit
        /// Defined by a `[header]` (or the root, or an element of `[[array]]`).
        case header
        /// Created by a dotted key (`a.b = 1`): only more dotted keys in the same place extend it.
        case dotted
    }

    enum Entry {
        case value(TOMLValue)
        case table(TOMLTableBuilder)
        case tables([TOMLTableBuilder])
    }

    var origin: Origin
    /// Where the table was opened (its header, its first dotted key, its inline `{`).
    var line: Int?
    private(set) var order: [String] = []
    private(set) var entries: [String: Entry] = [:]
    private var lines: [String: Int] = [:]

    init(_ origin: Origin, line: Int? = nil) {
        self.origin = origin
        self.line = line
    }

    func set(_ entry: Entry, for key: String, line: Int? = nil) {
        if entries.updateValue(entry, forKey: key) == nil { order.append(key) }
        if let line, lines[key] == nil { lines[key] = line }
    }

    var table: TOMLTable {
        var table = TOMLTable()
        table.line = line
        for key in order {
            switch entries[key]! {
            case .value(let value): table.set(value, for: key, line: lines[key])
            case .table(let builder): table.set(.table(builder.table), for: key, line: lines[key])
            case .tables(let builders): table.set(.array(builders.map { .table($0.table) }), for: key, line: lines[key])
            }
        }
        return table
    }
}

extension TOMLParser {
    /// The table a `[path]` or `[[path]]` header opens.
    mutating func defineTable(_ path: [String], in root: TOMLTableBuilder, isArray: Bool, line: Int) throws(TOMLError) -> TOMLTableBuilder {
        var table = root
        for part in path.dropLast() {
            switch table.entries[part] {
            case nil:
                let child = TOMLTableBuilder(.implicit, line: line)
                table.set(.table(child), for: part, line: line)
                table = child
            case .table(let child)?: table = child
            case .tables(let children)?: table = children[children.count - 1]
            case .value?: throw failure("\(Self.name(path)): \(part) is already a value")
            }
        }
        let last = path[path.count - 1]
        let child = TOMLTableBuilder(.header, line: line)
        switch (table.entries[last], isArray) {
        case (nil, false):
            table.set(.table(child), for: last, line: line)
        case (nil, true):
            table.set(.tables([child]), for: last, line: line)
        case (.tables(let children)?, true):
            table.set(.tables(children + [child]), for: last)
        case (.table(let existing)?, false) where existing.origin == .implicit:
            existing.origin = .header
            existing.line = line
            return existing
        default:
            throw failure("\(Self.name(path)) is already defined")
        }
        return child
    }

    /// Puts `value` at a key path (`a.b.c = value`) below `table`.
    mutating func insert(_ value: TOMLValue, at path: [String], in table: TOMLTableBuilder, line: Int) throws(TOMLError) {
        var table = table
        for part in path.dropLast() {
            switch table.entries[part] {
            case nil:
                let child = TOMLTableBuilder(.dotted, line: line)
                table.set(.table(child), for: part, line: line)
                table = child
            case .table(let child)? where child.origin == .dotted: table = child
            default: throw failure("\(Self.name(path)): \(part) is already defined")
            }
        }
        let last = path[path.count - 1]
        guard table.entries[last] == nil else { throw failure("\(Self.name(path)) is already defined") }
        table.set(.value(value), for: last, line: line)
    }

    static func name(_ path: [String]) -> String {
        path.joined(separator: ".")
    }
}
