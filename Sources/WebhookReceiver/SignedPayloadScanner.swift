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
            // Printable ASCII without quote or backslash: the string's bytes are its value.
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
}
