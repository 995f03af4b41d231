import Foundation

/// Finds the signedPayload of a body shaped exactly as Apple sends it, `{"signedPayload":"..."}`
/// (JSON whitespace allowed between tokens), with one pass over its bytes instead of building a
/// JSON object: on a 7 KB body that parse cost as much as a tenth of a signature check. Anything
/// else (another key, an escape, a non-ASCII or control byte, an empty value) gives nil, and the
/// body goes to the JSON parser, so what is accepted and refused does not change.
enum SignedPayloadScanner {
    static func signedPayload(in data: Data) -> String? {
        data.withUnsafeBytes { raw -> String? in
            let bytes = raw.bindMemory(to: UInt8.self)
            var index = 0
            func skipSpace() {
                while index < bytes.count, bytes[index] == 0x20 || bytes[index] == 0x0A || bytes[index] == 0x0D || bytes[index] == 0x09 {
                    index += 1
                }
            }
            func expect(_ literal: StaticString) -> Bool {
                let count = literal.utf8CodeUnitCount
                guard bytes.count - index >= count,
                      memcmp(bytes.baseAddress! + index, literal.utf8Start, count) == 0
                else { return false }
                index += count
                return true
            }
            skipSpace()
            guard expect("{") else { return nil }
            skipSpace()
            guard expect("\"signedPayload\"") else { return nil }
            skipSpace()
            guard expect(":") else { return nil }
            skipSpace()
            guard expect("\"") else { return nil }
            let start = index
            // Printable ASCII without quote or backslash: the string's bytes are its value. Eight
            // bytes at a time while all eight are such bytes, then one at a time from the first
            // word with another in it (the closing quote, or a byte that sends the body to the parser).
            while bytes.count - index >= 8 {
                let word = UnsafeRawPointer(bytes.baseAddress!).loadUnaligned(fromByteOffset: index, as: UInt64.self)
                guard Self.allPlain(word) else { break }
                index += 8
            }
            while index < bytes.count {
                let byte = bytes[index]
                guard byte &- 0x20 < 0x5F, byte != UInt8(ascii: "\""), byte != UInt8(ascii: "\\") else { break }
                index += 1
            }
            let end = index
            guard end > start, expect("\"") else { return nil }
            skipSpace()
            guard expect("}") else { return nil }
            skipSpace()
            guard index == bytes.count else { return nil }
            return String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<end]), as: UTF8.self)
        }
    }

    private static let ones: UInt64 = 0x0101_0101_0101_0101
    private static let highs: UInt64 = 0x8080_8080_8080_8080

    /// Whether every byte of `word` is 0x20 to 0x7E and neither `"` nor `\`. Each test below says
    /// exactly whether some byte matches (the borrows and carries they cause go only into bytes
    /// above one that matches), which is all that is asked.
    static func allPlain(_ word: UInt64) -> Bool {
        // Some byte below 0x20: subtracting 0x20 borrows into its high bit, which it did not have.
        let below = (word &- ones &* 0x20) & ~word & highs
        // Some byte above 0x7E: adding 1 sets its high bit, or it had it already.
        let above = ((word &+ ones) | word) & highs
        return below | above | hasByte(word, UInt8(ascii: "\"")) | hasByte(word, UInt8(ascii: "\\")) == 0
    }

    /// Nonzero when some byte of `word` is `byte`.
    private static func hasByte(_ word: UInt64, _ byte: UInt8) -> UInt64 {
        let zeroWhereEqual = word ^ (ones &* UInt64(byte))
        return (zeroWhereEqual &- ones) & ~zeroWhereEqual & highs
    }
}
