import Foundation

/// A strict reader of JSON text as UTF-8 bytes, for the signed payloads' flat objects.
///
/// Every read answers nil (or false) for anything it cannot read exactly as `JSONDecoder` would:
/// a fraction or exponent where an integer is wanted, a key written with escapes, a lone surrogate,
/// invalid UTF-8, deep nesting. The caller then decodes with `JSONDecoder`, so a document is never
/// read differently, only sometimes more slowly.
struct JSONByteReader {
    private let bytes: UnsafeBufferPointer<UInt8>
    private var index = 0
    /// Deeper unknown values are left to JSONDecoder (which has its own depth limit).
    static let depthLimit = 64

    init(_ bytes: UnsafeBufferPointer<UInt8>) {
        self.bytes = bytes
    }

    var isAtEnd: Bool { index == bytes.count }

    private var current: UInt8? { index < bytes.count ? bytes[index] : nil }

    mutating func skipWhitespace() {
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x0A, 0x0D, 0x09: index += 1
            default: return
            }
        }
    }

    /// Consumes `byte` after any whitespace.
    mutating func consume(_ byte: UInt8) -> Bool {
        skipWhitespace()
        guard current == byte else { return false }
        index += 1
        return true
    }

    /// Consumes the literal `null` if it comes next.
    mutating func consumeNull() -> Bool {
        consumeLiteral("null")
    }

    private mutating func consumeLiteral(_ literal: StaticString) -> Bool {
        let count = literal.utf8CodeUnitCount
        guard bytes.count - index >= count, memcmp(bytes.baseAddress! + index, literal.utf8Start, count) == 0 else { return false }
        index += count
        return true
    }

    // MARK: Objects

    /// Reads an object into `object`, handing each key in `table` with its index to `field`, which
    /// must read the value; other keys' values are checked and skipped. A known key twice, or a `field` that
    /// answers false, fails the read. A null value leaves the field unset, as `decodeIfPresent` does.
    mutating func readObject<Object>(
        _ table: JSONKeyTable, into object: inout Object, _ field: (inout JSONByteReader, inout Object, Int) -> Bool
    ) -> Bool {
        guard consume(UInt8(ascii: "{")) else { return false }
        if consume(UInt8(ascii: "}")) { return true }
        var seen: UInt64 = 0
        while true {
            skipWhitespace()
            guard let key = readKey(), consume(UInt8(ascii: ":")) else { return false }
            skipWhitespace()
            if let known = table.index(of: key) {
                guard seen & (1 << known) == 0 else { return false }
                seen |= 1 << known
                if !consumeNull() {
                    guard field(&self, &object, known) else { return false }
                }
            } else {
                guard skipValue(depth: 1) else { return false }
            }
            if consume(UInt8(ascii: ",")) { continue }
            return consume(UInt8(ascii: "}"))
        }
    }

    /// A key's bytes when it is written without escapes (and is valid UTF-8).
    private mutating func readKey() -> UnsafeBufferPointer<UInt8>? {
        guard current == UInt8(ascii: "\"") else { return nil }
        let start = index + 1
        var position = skipPlainWords(from: start)
        var ascii = true
        while position < bytes.count {
            let byte = bytes[position]
            if byte == UInt8(ascii: "\"") { break }
            if byte == UInt8(ascii: "\\") || byte < 0x20 { return nil }
            if byte >= 0x80 { ascii = false }
            position += 1
        }
        guard position < bytes.count else { return nil }
        let key = UnsafeBufferPointer(rebasing: bytes[start..<position])
        if !ascii, String(validating: key, as: UTF8.self) == nil { return nil }
        index = position + 1
        return key
    }

    /// The offset of the first eight-byte word from `position` on that may hold a quote, a
    /// backslash, a control character or a non-ASCII byte; the bytes before it are plain ASCII.
    /// Keys and strings are scanned a word at a time, then byte by byte from there.
    private func skipPlainWords(from position: Int) -> Int {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highs: UInt64 = 0x8080_8080_8080_8080
        // Sets a byte's high bit for a byte below `limit` (at most 0x80); may also set it above one that is.
        func below(_ word: UInt64, _ limit: UInt64) -> UInt64 { (word &- ones &* limit) & ~word & highs }
        var position = position
        while position + 8 <= bytes.count {
            let word = UnsafeRawPointer(bytes.baseAddress! + position).loadUnaligned(as: UInt64.self)
            let special = below(word ^ (ones &* 0x22), 1) | below(word ^ (ones &* 0x5C), 1) | below(word, 0x20) | word & highs
            guard special == 0 else { break }
            position += 8
        }
        return position
    }

    // MARK: Values

    mutating func readString() -> String? {
        guard current == UInt8(ascii: "\"") else { return nil }
        let start = index + 1
        var position = skipPlainWords(from: start)
        var ascii = true
        while position < bytes.count {
            let byte = bytes[position]
            if byte == UInt8(ascii: "\"") {
                let text = UnsafeBufferPointer(rebasing: bytes[start..<position])
                index = position + 1
                return ascii ? String(decoding: text, as: UTF8.self) : String(validating: text, as: UTF8.self)
            }
            if byte == UInt8(ascii: "\\") { return readEscapedString(from: start) }
            if byte < 0x20 { return nil }
            if byte >= 0x80 { ascii = false }
            position += 1
        }
        return nil
    }

    /// The slow path of `readString`, for a string holding escapes.
    private mutating func readEscapedString(from start: Int) -> String? {
        var text: [UInt8] = []
        text.reserveCapacity(64)
        var position = start
        while position < bytes.count {
            let byte = bytes[position]
            position += 1
            switch byte {
            case UInt8(ascii: "\""):
                index = position
                return String(validating: text, as: UTF8.self)
            case UInt8(ascii: "\\"):
                guard position < bytes.count else { return nil }
                let escape = bytes[position]
                position += 1
                switch escape {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): text.append(escape)
                case UInt8(ascii: "b"): text.append(0x08)
                case UInt8(ascii: "f"): text.append(0x0C)
                case UInt8(ascii: "n"): text.append(0x0A)
                case UInt8(ascii: "r"): text.append(0x0D)
                case UInt8(ascii: "t"): text.append(0x09)
                case UInt8(ascii: "u"):
                    guard let unit = hexUnit(at: position) else { return nil }
                    position += 4
                    var scalarValue = UInt32(unit)
                    if (0xD800...0xDBFF).contains(unit) {
                        // A high surrogate counts only with the low one right after it.
                        guard bytes.count - position >= 6, bytes[position] == UInt8(ascii: "\\"),
                              bytes[position + 1] == UInt8(ascii: "u"), let low = hexUnit(at: position + 2),
                              (0xDC00...0xDFFF).contains(low)
                        else { return nil }
                        position += 6
                        scalarValue = 0x10000 + ((UInt32(unit) - 0xD800) << 10) + (UInt32(low) - 0xDC00)
                    } else if (0xDC00...0xDFFF).contains(unit) {
                        return nil
                    }
                    guard let scalar = Unicode.Scalar(scalarValue) else { return nil }
                    text.append(contentsOf: UTF8.encode(scalar)!)
                default: return nil
                }
            default:
                guard byte >= 0x20 else { return nil }
                text.append(byte)
            }
        }
        return nil
    }

    private func hexUnit(at position: Int) -> UInt16? {
        guard bytes.count - position >= 4 else { return nil }
        var value: UInt16 = 0
        for offset in 0..<4 {
            let byte = bytes[position + offset]
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: return nil
            }
            value = value << 4 | UInt16(digit)
        }
        return value
    }

    /// A plain integer: optional minus and digits, no fraction, exponent or leading zero, and not
    /// `-0`; anything else (JSONDecoder's reading of it included) is left to JSONDecoder.
    mutating func readInteger() -> Int64? {
        var position = index
        let negative = position < bytes.count && bytes[position] == UInt8(ascii: "-")
        if negative { position += 1 }
        let first = position
        var magnitude: UInt64 = 0
        while position < bytes.count, bytes[position] >= UInt8(ascii: "0"), bytes[position] <= UInt8(ascii: "9") {
            // 18 digits always fit; longer numbers are rare enough to leave to JSONDecoder.
            guard position - first < 18 else { return nil }
            magnitude = magnitude * 10 + UInt64(bytes[position] - UInt8(ascii: "0"))
            position += 1
        }
        let digits = position - first
        guard digits > 0, digits == 1 || bytes[first] != UInt8(ascii: "0") else { return nil }
        if position < bytes.count {
            switch bytes[position] {
            case UInt8(ascii: "."), UInt8(ascii: "e"), UInt8(ascii: "E"): return nil
            default: break
            }
        }
        if negative && magnitude == 0 { return nil }
        index = position
        return negative ? -Int64(magnitude) : Int64(magnitude)
    }

    mutating func readBool() -> Bool? {
        if consumeLiteral("true") { return true }
        if consumeLiteral("false") { return false }
        return nil
    }

    /// An array of strings (no null elements: `[String]` does not take them).
    mutating func readStringArray() -> [String]? {
        guard consume(UInt8(ascii: "[")) else { return nil }
        var values: [String] = []
        if consume(UInt8(ascii: "]")) { return values }
        while true {
            skipWhitespace()
            guard let value = readString() else { return nil }
            values.append(value)
            if consume(UInt8(ascii: ",")) { continue }
            return consume(UInt8(ascii: "]")) ? values : nil
        }
    }

    // MARK: Skipping

    /// Checks and skips one value of any kind.
    mutating func skipValue(depth: Int) -> Bool {
        guard depth <= Self.depthLimit, let byte = current else { return false }
        switch byte {
        case UInt8(ascii: "\""): return readString() != nil
        case UInt8(ascii: "t"), UInt8(ascii: "f"): return readBool() != nil
        case UInt8(ascii: "n"): return consumeNull()
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return skipNumber()
        case UInt8(ascii: "["):
            index += 1
            if consume(UInt8(ascii: "]")) { return true }
            while true {
                skipWhitespace()
                guard skipValue(depth: depth + 1) else { return false }
                if consume(UInt8(ascii: ",")) { continue }
                return consume(UInt8(ascii: "]"))
            }
        case UInt8(ascii: "{"):
            index += 1
            if consume(UInt8(ascii: "}")) { return true }
            while true {
                skipWhitespace()
                guard readKey() != nil, consume(UInt8(ascii: ":")) else { return false }
                skipWhitespace()
                guard skipValue(depth: depth + 1) else { return false }
                if consume(UInt8(ascii: ",")) { continue }
                return consume(UInt8(ascii: "}"))
            }
        default: return false
        }
    }

    /// A number as JSON's grammar has it: `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`.
    private mutating func skipNumber() -> Bool {
        var position = index
        func digits() -> Int {
            let start = position
            while position < bytes.count, bytes[position] >= UInt8(ascii: "0"), bytes[position] <= UInt8(ascii: "9") { position += 1 }
            return position - start
        }
        if bytes[position] == UInt8(ascii: "-") { position += 1 }
        let first = position
        let whole = digits()
        guard whole > 0, whole == 1 || bytes[first] != UInt8(ascii: "0") else { return false }
        if position < bytes.count, bytes[position] == UInt8(ascii: ".") {
            position += 1
            guard digits() > 0 else { return false }
        }
        if position < bytes.count, bytes[position] == UInt8(ascii: "e") || bytes[position] == UInt8(ascii: "E") {
            position += 1
            if position < bytes.count, bytes[position] == UInt8(ascii: "+") || bytes[position] == UInt8(ascii: "-") { position += 1 }
            guard digits() > 0 else { return false }
        }
        index = position
        return true
    }
}

/// The keys an object's reader knows, looked up by length then bytes (no hashing, no String made).
/// Flat arrays and word-wide comparison: a key is looked up for every field of every payload, and
/// nested arrays and a memcmp call per candidate cost more than the comparison itself.
struct JSONKeyTable: Sendable {
    /// Every name's bytes, one after another.
    private let bytes: [UInt8]
    /// Candidates of length `n` are `candidates[firstOfLength[n]..<firstOfLength[n + 1]]`.
    private let firstOfLength: [Int]
    /// Each candidate's offset in `bytes` and index among the names, shortest names first.
    private let candidates: [(offset: Int, index: Int)]

    init(_ names: [String]) {
        precondition(names.count <= 64, "readObject tracks known keys in 64 bits")
        let utf8 = names.map { Array($0.utf8) }
        var offsets: [Int] = []
        var bytes: [UInt8] = []
        for name in utf8 {
            offsets.append(bytes.count)
            bytes += name
        }
        let longest = utf8.map(\.count).max() ?? 0
        var firstOfLength: [Int] = []
        var candidates: [(offset: Int, index: Int)] = []
        for length in 0...(longest + 1) {
            firstOfLength.append(candidates.count)
            for (index, name) in utf8.enumerated() where name.count == length { candidates.append((offsets[index], index)) }
        }
        self.bytes = bytes
        self.firstOfLength = firstOfLength
        self.candidates = candidates
    }

    func index(of key: UnsafeBufferPointer<UInt8>) -> Int? {
        let count = key.count
        guard count + 1 < firstOfLength.count else { return nil }
        let range = firstOfLength[count]..<firstOfLength[count + 1]
        guard !range.isEmpty else { return nil }
        guard count > 0, let keyBytes = key.baseAddress else { return candidates[range.lowerBound].index }
        return bytes.withUnsafeBytes { names -> Int? in
            for candidate in candidates[range] where Self.equal(names.baseAddress! + candidate.offset, keyBytes, count) {
                return candidate.index
            }
            return nil
        }
    }

    /// Whether `count` bytes at `a` and `b` are the same, eight at a time.
    private static func equal(_ a: UnsafeRawPointer, _ b: UnsafeRawPointer, _ count: Int) -> Bool {
        var offset = 0
        while offset + 8 <= count {
            guard a.loadUnaligned(fromByteOffset: offset, as: UInt64.self) == b.loadUnaligned(fromByteOffset: offset, as: UInt64.self) else {
                return false
            }
            offset += 8
        }
        while offset < count {
            guard a.load(fromByteOffset: offset, as: UInt8.self) == b.load(fromByteOffset: offset, as: UInt8.self) else { return false }
            offset += 1
        }
        return true
    }
}
