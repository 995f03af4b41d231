import NIOCore

/// The body of an answer that is not 200, `{"error":"..."}`, written straight into the buffer that
/// is sent: the bytes JSONSerialization gave (`.withoutEscapingSlashes`), which built an NSDictionary
/// and walked it with dynamic casts for one string, a twentieth of a refused body's whole cost.
enum ErrorAnswer {
    static func body(_ message: String) -> ByteBuffer {
        var message = message
        return message.withUTF8 { bytes in
            // Most messages need no escape: room for them, and for a few escapes in those that do.
            var buffer = ByteBuffer()
            buffer.reserveCapacity(bytes.count + 16)
            buffer.writeStaticString(#"{"error":""#)
            var plain = 0
            for index in bytes.indices {
                let byte = bytes[index]
                guard let escape = escape(byte) else { continue }
                buffer.writeBytes(UnsafeBufferPointer(rebasing: bytes[plain..<index]))
                plain = index + 1
                switch escape {
                case .short(let letter): buffer.writeBytes([UInt8(ascii: "\\"), letter])
                case .unicode:
                    // JSONSerialization's form: \u00 and two lowercase hexadecimal digits.
                    buffer.writeStaticString("\\u00")
                    buffer.writeBytes([hex[Int(byte >> 4)], hex[Int(byte & 0x0F)]])
                }
            }
            buffer.writeBytes(UnsafeBufferPointer(rebasing: bytes[plain...]))
            buffer.writeStaticString(#""}"#)
            return buffer
        }
    }

    private enum Escape {
        case short(UInt8)
        case unicode
    }

    private static let hex = Array("0123456789abcdef".utf8)

    /// Only ASCII is escaped: every byte of a longer UTF-8 sequence is 0x80 or above and is copied.
    private static func escape(_ byte: UInt8) -> Escape? {
        switch byte {
        case UInt8(ascii: "\""): return .short(UInt8(ascii: "\""))
        case UInt8(ascii: "\\"): return .short(UInt8(ascii: "\\"))
        case 0x08: return .short(UInt8(ascii: "b"))
        case 0x0C: return .short(UInt8(ascii: "f"))
        case 0x0A: return .short(UInt8(ascii: "n"))
        case 0x0D: return .short(UInt8(ascii: "r"))
        case 0x09: return .short(UInt8(ascii: "t"))
        case 0..<0x20: return .unicode
        default: return nil
        }
    }
}
