/// Reads TOML text scalar by scalar: lines, headers, keys and values.
struct TOMLParser {
    let scalars: [Unicode.Scalar]
    var index = 0
    /// Lines counted up to `counted.index`: keys are met in order, so counting goes on from there.
    private var counted = (index: 0, line: 1)

    init(_ text: String) {
        scalars = Array(text.unicodeScalars)
    }

    var current: Unicode.Scalar? { index < scalars.count ? scalars[index] : nil }

    func peek(_ offset: Int) -> Unicode.Scalar? {
        index + offset < scalars.count ? scalars[index + offset] : nil
    }

    /// An error at the current position (its line is counted only now).
    func failure(_ message: String) -> TOMLError {
        var line = 1
        for scalar in scalars[..<min(index, scalars.count)] where scalar == "\n" { line += 1 }
        return TOMLError(line: line, message: message)
    }

    /// The line of the current position.
    mutating func currentLine() -> Int {
        if index < counted.index { counted = (0, 1) }
        for scalar in scalars[counted.index..<min(index, scalars.count)] where scalar == "\n" { counted.line += 1 }
        counted.index = min(index, scalars.count)
        return counted.line
    }

    mutating func document() throws(TOMLError) -> TOMLTable {
        let root = TOMLTableBuilder(.header)
        var table = root
        if current == "\u{FEFF}" { index += 1 }
        while true {
            skipBlanks()
            guard let scalar = current else { break }
            switch scalar {
            case "\n", "\r", "#":
                try endOfLine()
            case "[":
                table = try header(root)
                try endOfLine()
            default:
                let line = currentLine()
                let path = try keyPath()
                try expect("=", "after the key")
                skipBlanks()
                try insert(try value(depth: 0), at: path, in: table, line: line)
                try endOfLine()
            }
        }
        return root.table
    }

    /// `[a.b]` or `[[a.b]]`; the brackets of an array of tables are written together.
    private mutating func header(_ root: TOMLTableBuilder) throws(TOMLError) -> TOMLTableBuilder {
        let line = currentLine()
        index += 1
        let isArray = current == "["
        if isArray { index += 1 }
        let path = try keyPath()
        try expect("]", "to close the table header")
        if isArray {
            guard current == "]" else { throw failure("expected ']]' to close the array of tables header") }
            index += 1
        }
        return try defineTable(path, in: root, isArray: isArray, line: line)
    }

    /// Blanks, then a comment or nothing, then the end of the line or of the text.
    mutating func endOfLine() throws(TOMLError) {
        skipBlanks()
        if current == "#" { try comment() }
        switch current {
        case nil: return
        case "\n": index += 1
        case "\r" where peek(1) == "\n": index += 2
        case let scalar?: throw failure("expected the end of the line, found \(Self.shown(scalar))")
        }
    }

    private mutating func comment() throws(TOMLError) {
        while let scalar = current, scalar != "\n", scalar != "\r" {
            if Self.isControl(scalar) { throw failure("control character \(Self.shown(scalar)) in a comment") }
            index += 1
        }
    }

    mutating func skipBlanks() {
        while current == " " || current == "\t" { index += 1 }
    }

    /// Blanks, line ends and comments, as arrays allow between their values.
    private mutating func skipArrayFiller() throws(TOMLError) {
        while true {
            skipBlanks()
            switch current {
            case "\n": index += 1
            case "\r" where peek(1) == "\n": index += 2
            case "#": try comment()
            default: return
            }
        }
    }

    mutating func expect(_ scalar: Unicode.Scalar, _ purpose: String) throws(TOMLError) {
        skipBlanks()
        guard current == scalar else {
            throw failure("expected '\(scalar)' \(purpose), found \(current.map(Self.shown) ?? "the end of the text")")
        }
        index += 1
    }

    /// `key`, `"quoted key"`, `a.b.'c'`.
    mutating func keyPath() throws(TOMLError) -> [String] {
        var path: [String] = []
        while true {
            skipBlanks()
            path.append(try key())
            guard path.count <= TOMLDocument.maximumDepth else { throw failure("the key has too many parts") }
            skipBlanks()
            guard current == "." else { return path }
            index += 1
        }
    }

    private mutating func key() throws(TOMLError) -> String {
        switch current {
        case "\""?: return try basicString()
        case "'"?: return try literalString()
        case let scalar? where Self.isBareKey(scalar):
            var key = String.UnicodeScalarView()
            while let scalar = current, Self.isBareKey(scalar) {
                key.append(scalar)
                index += 1
            }
            return String(key)
        case let scalar?: throw failure("expected a key, found \(Self.shown(scalar))")
        case nil: throw failure("expected a key, found the end of the text")
        }
    }

    mutating func value(depth: Int) throws(TOMLError) -> TOMLValue {
        guard depth < TOMLDocument.maximumDepth else { throw failure("arrays and inline tables nest too deep") }
        switch current {
        case "\""?:
            return .string(peek(1) == "\"" && peek(2) == "\"" ? try multilineString(literal: false) : try basicString())
        case "'"?:
            return .string(peek(1) == "'" && peek(2) == "'" ? try multilineString(literal: true) : try literalString())
        case "["?: return try array(depth: depth)
        case "{"?: return try inlineTable(depth: depth)
        case "t"?: return try word("true", .boolean(true))
        case "f"?: return try word("false", .boolean(false))
        default: return try numberOrDate()
        }
    }

    private mutating func word(_ word: String, _ value: TOMLValue) throws(TOMLError) -> TOMLValue {
        for expected in word.unicodeScalars {
            guard current == expected else { throw failure("expected a value such as \(word)") }
            index += 1
        }
        return value
    }

    private mutating func array(depth: Int) throws(TOMLError) -> TOMLValue {
        index += 1
        var items: [TOMLValue] = []
        while true {
            try skipArrayFiller()
            if current == "]" { break }
            items.append(try value(depth: depth + 1))
            try skipArrayFiller()
            if current == "," {
                index += 1
                continue
            }
            guard current == "]" else { throw failure("expected ',' or ']' in an array") }
            break
        }
        index += 1
        return .array(items)
    }

    /// `{ a = 1, b.c = 2 }` on one line, without a trailing comma.
    private mutating func inlineTable(depth: Int) throws(TOMLError) -> TOMLValue {
        let line = currentLine()
        index += 1
        let table = TOMLTableBuilder(.header, line: line)
        skipBlanks()
        if current == "}" {
            index += 1
            return .table(table.table)
        }
        while true {
            let path = try keyPath()
            try expect("=", "after the key")
            skipBlanks()
            try insert(try value(depth: depth + 1), at: path, in: table, line: line)
            skipBlanks()
            if current == "," {
                index += 1
                continue
            }
            try expect("}", "to close the inline table")
            return .table(table.table)
        }
    }

    static func isBareKey(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar {
        case "A"..."Z", "a"..."z", "0"..."9", "_", "-": true
        default: false
        }
    }

    /// Control characters other than tab, which TOML text may not hold as they are.
    static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        (scalar.value < 0x20 && scalar != "\t") || scalar.value == 0x7F
    }

    static func shown(_ scalar: Unicode.Scalar) -> String {
        scalar.value < 0x20 || scalar.value == 0x7F ? "U+\(String(scalar.value, radix: 16, uppercase: true))" : "'\(scalar)'"
    }
}
