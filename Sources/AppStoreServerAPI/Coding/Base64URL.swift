import Foundation

/// Base64url without padding, as JWS uses it.
public enum Base64URL {
    public static func encode(_ data: some DataProtocol) -> String {
        var bytes = Array(Data(data).base64EncodedData())
        while bytes.last == UInt8(ascii: "=") { bytes.removeLast() }
        for index in bytes.indices {
            switch bytes[index] {
            case UInt8(ascii: "+"): bytes[index] = UInt8(ascii: "-")
            case UInt8(ascii: "/"): bytes[index] = UInt8(ascii: "_")
            default: break
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Decodes base64url without padding (standard base64 characters are accepted too).
    public static func decode(_ text: Substring) -> Data? {
        if let data = decodeUnpadded(text) { return data }
        return decodeThroughFoundation(text)
    }

    /// Sextet of each base64 and base64url character; 0xFF for any other byte.
    private static let sextets: [UInt8] = {
        var table = [UInt8](repeating: 0xFF, count: 256)
        for (index, character) in "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8.enumerated() {
            table[Int(character)] = UInt8(index)
        }
        table[Int(UInt8(ascii: "-"))] = 62
        table[Int(UInt8(ascii: "_"))] = 63
        return table
    }()

    /// One pass over unpadded text whose unused final bits are zero (what every signer writes);
    /// nil leaves anything else (padding, other bytes, stray bits) to Foundation's decoder, so what
    /// is accepted does not change.
    static func decodeUnpadded(_ text: Substring) -> Data? {
        var text = text
        return text.withUTF8 { input -> Data? in
            let remainder = input.count % 4
            guard remainder != 1 else { return nil }
            let length = input.count / 4 * 3 + (remainder == 0 ? 0 : remainder - 1)
            var data = Data(count: length)
            let decoded = data.withUnsafeMutableBytes { (output: UnsafeMutableRawBufferPointer) -> Bool in
                sextets.withUnsafeBufferPointer { table -> Bool in
                    var invalid: UInt8 = 0
                    var read = 0
                    var written = 0
                    while read + 4 <= input.count {
                        let a = table[Int(input[read])], b = table[Int(input[read + 1])]
                        let c = table[Int(input[read + 2])], d = table[Int(input[read + 3])]
                        invalid |= (a | b | c | d) & 0x80
                        output[written] = a << 2 | b >> 4
                        output[written + 1] = b << 4 | c >> 2
                        output[written + 2] = c << 6 | d
                        read += 4
                        written += 3
                    }
                    if remainder >= 2 {
                        let a = table[Int(input[read])], b = table[Int(input[read + 1])]
                        let c = remainder == 3 ? table[Int(input[read + 2])] : 0
                        invalid |= (a | b | c) & 0x80
                        output[written] = a << 2 | b >> 4
                        if remainder == 3 {
                            output[written + 1] = b << 4 | c >> 2
                            invalid |= (c & 0x03 != 0) ? 0x80 : 0
                        } else {
                            invalid |= (b & 0x0F != 0) ? 0x80 : 0
                        }
                    }
                    return invalid == 0
                }
            }
            return decoded ? data : nil
        }
    }

    /// What `decode` did before it had a fast path; kept for what that path leaves (and for tests).
    static func decodeThroughFoundation(_ text: Substring) -> Data? {
        var bytes = [UInt8]()
        bytes.reserveCapacity(text.utf8.count + 3)
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "-"): bytes.append(UInt8(ascii: "+"))
            case UInt8(ascii: "_"): bytes.append(UInt8(ascii: "/"))
            case UInt8(ascii: "="): continue
            default: bytes.append(byte)
            }
        }
        if bytes.count % 4 == 1 { return nil }
        while bytes.count % 4 != 0 { bytes.append(UInt8(ascii: "=")) }
        return Data(base64Encoded: Data(bytes))
    }
}
