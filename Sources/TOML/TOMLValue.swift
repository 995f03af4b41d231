/// A TOML value as the configuration and themes read it.
public indirect enum TOMLValue: Sendable {
    case string(String)
    case integer(Int64)
    case float(Double)
    case boolean(Bool)
    /// An offset or local date-time, a local date or a local time, as written.
    case dateTime(String)
    case array([TOMLValue])
    case table(TOMLTable)

    public var string: String? { if case .string(let value) = self { value } else { nil } }
    public var integer: Int64? { if case .integer(let value) = self { value } else { nil } }
    /// A number written either way: `60` or `2.5`.
    public var number: Double? {
        switch self {
        case .integer(let value): Double(value)
        case .float(let value): value
        default: nil
        }
    }
    public var bool: Bool? { if case .boolean(let value) = self { value } else { nil } }
    public var array: [TOMLValue]? { if case .array(let value) = self { value } else { nil } }
    public var table: TOMLTable? { if case .table(let value) = self { value } else { nil } }
}

extension TOMLValue: Equatable {
    /// As documents: `nan` equals `nan`.
    public static func == (lhs: TOMLValue, rhs: TOMLValue) -> Bool {
        switch (lhs, rhs) {
        case let (.string(a), .string(b)): a == b
        case let (.integer(a), .integer(b)): a == b
        case let (.float(a), .float(b)): a == b || (a.isNaN && b.isNaN)
        case let (.boolean(a), .boolean(b)): a == b
        case let (.dateTime(a), .dateTime(b)): a == b
        case let (.array(a), .array(b)): a == b
        case let (.table(a), .table(b)): a == b
        default: false
        }
    }
}

/// Keys and their values, in the order the document gives them, with the line each key was
/// written on (for errors about a value that is TOML but not what the reader expects).
public struct TOMLTable: Sendable, Equatable {
    public private(set) var keys: [String] = []
    private var values: [String: TOMLValue] = [:]
    private var lines: [String: Int] = [:]
    /// The line the table was opened on (its `[header]`, `[[header]]` or inline `{`); nil for the root.
    public internal(set) var line: Int?

    public init() {}

    public subscript(key: String) -> TOMLValue? { values[key] }

    /// The line `key` was written on, when the table was read from text.
    public func line(of key: String) -> Int? { lines[key] }

    mutating func set(_ value: TOMLValue, for key: String, line: Int? = nil) {
        if values.updateValue(value, forKey: key) == nil { keys.append(key) }
        if let line { lines[key] = line }
    }

    /// As documents: where a key was written does not count.
    public static func == (lhs: TOMLTable, rhs: TOMLTable) -> Bool {
        lhs.keys == rhs.keys && lhs.values == rhs.values
    }
}

/// Why a text is not TOML, with the line to look at.
public struct TOMLError: Error, Sendable, Equatable, CustomStringConvertible {
    public let line: Int
    public let message: String

    public var description: String { "line \(line): \(message)" }
}
