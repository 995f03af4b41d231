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
    private(set) var order: [String] = []
    private(set) var entries: [String: Entry] = [:]

    init(_ origin: Origin) {
        self.origin = origin
    }

    func set(_ entry: Entry, for key: String) {
        if entries.updateValue(entry, forKey: key) == nil { order.append(key) }
    }

    var table: TOMLTable {
        var table = TOMLTable()
        for key in order {
            switch entries[key]! {
            case .value(let value): table.set(value, for: key)
            case .table(let builder): table.set(.table(builder.table), for: key)
            case .tables(let builders): table.set(.array(builders.map { .table($0.table) }), for: key)
            }
        }
        return table
    }
}

extension TOMLParser {
    /// The table a `[path]` or `[[path]]` header opens.
    mutating func defineTable(_ path: [String], in root: TOMLTableBuilder, isArray: Bool) throws(TOMLError) -> TOMLTableBuilder {
        var table = root
        for part in path.dropLast() {
            switch table.entries[part] {
            case nil:
                let child = TOMLTableBuilder(.implicit)
                table.set(.table(child), for: part)
                table = child
            case .table(let child)?: table = child
            case .tables(let children)?: table = children[children.count - 1]
            case .value?: throw failure("\(Self.name(path)): \(part) is already a value")
            }
        }
        let last = path[path.count - 1]
        let child = TOMLTableBuilder(.header)
        switch (table.entries[last], isArray) {
        case (nil, false):
            table.set(.table(child), for: last)
        case (nil, true):
            table.set(.tables([child]), for: last)
        case (.tables(let children)?, true):
            table.set(.tables(children + [child]), for: last)
        case (.table(let existing)?, false) where existing.origin == .implicit:
            existing.origin = .header
            return existing
        default:
            throw failure("\(Self.name(path)) is already defined")
        }
        return child
    }

    /// Puts `value` at a key path (`a.b.c = value`) below `table`.
    mutating func insert(_ value: TOMLValue, at path: [String], in table: TOMLTableBuilder) throws(TOMLError) {
        var table = table
        for part in path.dropLast() {
            switch table.entries[part] {
            case nil:
                let child = TOMLTableBuilder(.dotted)
                table.set(.table(child), for: part)
                table = child
            case .table(let child)? where child.origin == .dotted: table = child
            default: throw failure("\(Self.name(path)): \(part) is already defined")
            }
        }
        let last = path[path.count - 1]
        guard table.entries[last] == nil else { throw failure("\(Self.name(path)) is already defined") }
        table.set(.value(value), for: last)
    }

    static func name(_ path: [String]) -> String {
        path.joined(separator: ".")
    }
}
