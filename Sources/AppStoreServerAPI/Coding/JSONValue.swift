import Foundation

/// Any JSON document as a tree, keeping object keys in document order, for showing
/// payloads exactly as they were received (decoded JWS, fields this build does not model).
public indirect enum JSONValue: Sendable, Equatable {
    case null
    case bool(Bool)
    case number(String)
    case string(String)
    case array([JSONValue])
    case object([(key: String, value: JSONValue)])

    public static func == (lhs: JSONValue, rhs: JSONValue) -> Bool {
        switch (lhs, rhs) {
        case (.null, .null): return true
        case let (.bool(a), .bool(b)): return a == b
        case let (.number(a), .number(b)): return a == b
        case let (.string(a), .string(b)): return a == b
        case let (.array(a), .array(b)): return a == b
        case let (.object(a), .object(b)):
            return a.count == b.count && zip(a, b).allSatisfy { $0.key == $1.key && $0.value == $1.value }
        default: return false
        }
    }

    public subscript(key: String) -> JSONValue? {
        if case .object(let members) = self { return members.first { $0.key == key }?.value }
        return nil
    }

    public var stringValue: String? {
        if case .string(let text) = self { return text }
        return nil
    }

    /// Parses UTF-8 JSON; numbers keep their exact source text.
    public static func parse(_ data: Data) throws(JSONDecodeFailure) -> JSONValue {
        var parser = JSONTreeParser(bytes: [UInt8](data))
        parser.skipWhitespace()
        let value = try parser.parseValue(depth: 0)
        parser.skipWhitespace()
        guard parser.index == parser.bytes.count else { throw parser.failure("unexpected text after the document") }
        return value
    }

    /// Compact or indented JSON text.
    public func rendered(indent: String? = nil) -> String {
        var out = ""
        write(into: &out, indent: indent, level: 0)
        return out
    }

    private func write(into out: inout String, indent: String?, level: Int) {
        switch self {
        case .null: out += "null"
        case .bool(let value): out += value ? "true" : "false"
        case .number(let text): out += text
        case .string(let text): out += Self.quote(text)
        case .array(let items):
            guard !items.isEmpty else { out += "[]"; return }
            out += "["
            for (offset, item) in items.enumerated() {
                if offset > 0 { out += "," }
                if let indent { out += "\n" + String(repeating: indent, count: level + 1) }
                item.write(into: &out, indent: indent, level: level + 1)
            }
            if let indent { out += "\n" + String(repeating: indent, count: level) }
            out += "]"
        case .object(let members):
            guard !members.isEmpty else { out += "{}"; return }
            out += "{"
            for (offset, member) in members.enumerated() {
                if offset > 0 { out += "," }
                if let indent { out += "\n" + String(repeating: indent, count: level + 1) }
                out += Self.quote(member.key) + (indent == nil ? ":" : ": ")
                member.value.write(into: &out, indent: indent, level: level + 1)
            }
            if let indent { out += "\n" + String(repeating: indent, count: level) }
            out += "}"
        }
    }

    static func quote(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where scalar.value < 0x20:
                out += String(format: "\\u%04x", scalar.value)
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }
}

private struct JSONTreeParser {
    let bytes: [UInt8]
    var index = 0
    static let maxDepth = 256

    init(bytes: [UInt8]) { self.bytes = bytes }

    func failure(_ reason: String) -> JSONDecodeFailure {
        JSONDecodeFailure(path: "", reason: "\(reason) at byte \(index)", typeName: "JSON")
    }

    mutating func skipWhitespace() {
        while index < bytes.count, [0x20, 0x0A, 0x0D, 0x09].contains(bytes[index]) { index += 1 }
    }

    mutating func parseValue(depth: Int) throws(JSONDecodeFailure) -> JSONValue {
        guard depth < Self.maxDepth else { throw failure("nesting too deep") }
        guard index < bytes.count else { throw failure("unexpected end of input") }
        switch bytes[index] {
        case UInt8(ascii: "{"): return try parseObject(depth: depth)
        case UInt8(ascii: "["): return try parseArray(depth: depth)
        case UInt8(ascii: "\""): return .string(try parseString())
        case UInt8(ascii: "t"): try expect("true"); return .bool(true)
        case UInt8(ascii: "f"): try expect("false"); return .bool(false)
        case UInt8(ascii: "n"): try expect("null"); return .null
        default: return try parseNumber()
        }
    }

    mutating func expect(_ word: String) throws(JSONDecodeFailure) {
        let utf8 = Array(word.utf8)
        guard index + utf8.count <= bytes.count, Array(bytes[index..<index + utf8.count]) == utf8 else {
            throw failure("unexpected token")
        }
        index += utf8.count
    }

    mutating func parseObject(depth: Int) throws(JSONDecodeFailure) -> JSONValue {
        index += 1
        var members: [(key: String, value: JSONValue)] = []
        skipWhitespace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "}") { index += 1; return .object(members) }
        while true {
            skipWhitespace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else { throw failure("expected a key") }
            let key = try parseString()
            skipWhitespace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else { throw failure("expected ':'") }
            index += 1
            skipWhitespace()
            members.append((key, try parseValue(depth: depth + 1)))
            skipWhitespace()
            guard index < bytes.count else { throw failure("unexpected end of input") }
            if bytes[index] == UInt8(ascii: ",") { index += 1; continue }
            if bytes[index] == UInt8(ascii: "}") { index += 1; return .object(members) }
            throw failure("expected ',' or '}'")
        }
    }

    mutating func parseArray(depth: Int) throws(JSONDecodeFailure) -> JSONValue {
        index += 1
        var items: [JSONValue] = []
        skipWhitespace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "]") { index += 1; return .array(items) }
        while true {
            skipWhitespace()
            items.append(try parseValue(depth: depth + 1))
            skipWhitespace()
            guard index < bytes.count else { throw failure("unexpected end of input") }
            if bytes[index] == UInt8(ascii: ",") { index += 1; continue }
            if bytes[index] == UInt8(ascii: "]") { index += 1; return .array(items) }
            throw failure("expected ',' or ']'")
        }
    }

    mutating func parseNumber() throws(JSONDecodeFailure) -> JSONValue {
        let start = index
        let allowed: Set<UInt8> = Set("+-0123456789.eE".utf8)
        while index < bytes.count, allowed.contains(bytes[index]) { index += 1 }
        guard index > start else { throw failure("unexpected character") }
        let text = String(decoding: bytes[start..<index], as: UTF8.self)
        guard Double(text) != nil else { throw failure("malformed number") }
        return .number(text)
    }

    /// Collects UTF-8 bytes and makes one String at the end: appending to a String piece by piece
    /// copies it each time, which made long strings (nested JWS, padding) cost their length squared.
    mutating func parseString() throws(JSONDecodeFailure) -> String {
        index += 1
        var utf8: [UInt8] = []
        var pendingHigh: UInt32?
        func append(_ scalar: Unicode.Scalar) { utf8.append(contentsOf: String(scalar).utf8) }
        while index < bytes.count {
            // Plain bytes up to the next quote or backslash are copied in one go.
            let runStart = index
            while index < bytes.count, bytes[index] != UInt8(ascii: "\""), bytes[index] != UInt8(ascii: "\\") { index += 1 }
            if index > runStart {
                utf8.append(contentsOf: bytes[runStart..<index])
                pendingHigh = nil
            }
            guard index < bytes.count else { break }
            if bytes[index] == UInt8(ascii: "\"") {
                index += 1
                return String(decoding: utf8, as: UTF8.self)
            }
            index += 1
            guard index < bytes.count else { break }
            let escape = bytes[index]
            index += 1
            switch escape {
            case UInt8(ascii: "n"): utf8.append(0x0A)
            case UInt8(ascii: "t"): utf8.append(0x09)
            case UInt8(ascii: "r"): utf8.append(0x0D)
            case UInt8(ascii: "b"): utf8.append(0x08)
            case UInt8(ascii: "f"): utf8.append(0x0C)
            case UInt8(ascii: "/"), UInt8(ascii: "\\"), UInt8(ascii: "\""): utf8.append(escape)
            case UInt8(ascii: "u"):
                guard index + 4 <= bytes.count,
                      let code = UInt32(String(decoding: bytes[index..<index + 4], as: UTF8.self), radix: 16)
                else { throw failure("bad \\u escape") }
                index += 4
                if (0xD800...0xDBFF).contains(code) {
                    pendingHigh = code
                    continue
                }
                if let high = pendingHigh, (0xDC00...0xDFFF).contains(code) {
                    let combined = 0x10000 + ((high - 0xD800) << 10) + (code - 0xDC00)
                    append(Unicode.Scalar(combined) ?? "\u{FFFD}")
                } else {
                    append(Unicode.Scalar(code) ?? "\u{FFFD}")
                }
                pendingHigh = nil
                continue
            default: throw failure("bad escape")
            }
            pendingHigh = nil
        }
        throw failure("unterminated string")
    }
}
