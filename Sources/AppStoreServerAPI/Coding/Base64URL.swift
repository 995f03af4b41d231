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

    /// Each base64 and base64url character's sextet already shifted to its place in a group's 24
    /// bits, one table per place; any other byte has the top byte set, which no valid group has.
    private static let places: [UInt32] = {
        var sextets = [UInt32](repeating: 0xFF00_0000, count: 256)
        for (index, character) in "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8.enumerated() {
            sextets[Int(character)] = UInt32(index)
        }
        sextets[Int(UInt8(ascii: "-"))] = 62
        sextets[Int(UInt8(ascii: "_"))] = 63
        return [18, 12, 6, 0].flatMap { shift in sextets.map { $0 == 0xFF00_0000 ? $0 : $0 << shift } }
    }()

    /// The decoded length of `count` unpadded characters; nil for a length no base64 text has.
    static func unpaddedLength(_ count: Int) -> Int? {
        let remainder = count % 4
        guard remainder != 1 else { return nil }
        return count / 4 * 3 + (remainder == 0 ? 0 : remainder - 1)
    }

    /// One pass over unpadded text whose unused final bits are zero (what every signer writes);
    /// nil leaves anything else (padding, other bytes, stray bits) to Foundation's decoder, so what
    /// is accepted does not change.
    static func decodeUnpadded(_ text: Substring) -> Data? {
        var text = text
        return text.withUTF8 { input -> Data? in
            guard let length = unpaddedLength(input.count) else { return nil }
            var data = Data(count: length)
            let decoded = data.withUnsafeMutableBytes { decodeUnpadded(input, into: $0) }
            return decoded ? data : nil
        }
    }

    /// `decodeUnpadded` into `output`, which holds exactly `unpaddedLength(input.count)` bytes;
    /// false when the text is not what that fast path takes (`output` then holds no meaning).
    static func decodeUnpadded(_ input: UnsafeBufferPointer<UInt8>, into output: UnsafeMutableRawBufferPointer) -> Bool {
        let remainder = input.count % 4
        return places.withUnsafeBufferPointer { places -> Bool in
            let table = places.baseAddress!
            func group(_ a: UInt8, _ b: UInt8, _ c: UInt8, _ d: UInt8) -> UInt32 {
                table[Int(a)] | table[256 + Int(b)] | table[512 + Int(c)] | table[768 + Int(d)]
            }
            var invalid: UInt32 = 0
            var read = 0
            var written = 0
            guard let out = output.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return input.isEmpty }
            // Two groups' six bytes in one store while eight bytes fit; the two spare ones are
            // written over by the next store or the byte-wise loop below.
            while read + 8 <= input.count, written + 8 <= output.count {
                let high = group(input[read], input[read + 1], input[read + 2], input[read + 3])
                let low = group(input[read + 4], input[read + 5], input[read + 6], input[read + 7])
                invalid |= high | low
                output.storeBytes(of: (UInt64(high) << 40 | UInt64(low) << 16).bigEndian, toByteOffset: written, as: UInt64.self)
                read += 8
                written += 6
            }
            while read + 4 <= input.count {
                let bits = group(input[read], input[read + 1], input[read + 2], input[read + 3])
                invalid |= bits
                out[written] = UInt8(truncatingIfNeeded: bits >> 16)
                out[written + 1] = UInt8(truncatingIfNeeded: bits >> 8)
                out[written + 2] = UInt8(truncatingIfNeeded: bits)
                read += 4
                written += 3
            }
            if remainder >= 2 {
                let c = remainder == 3 ? input[read + 2] : UInt8(ascii: "A")
                let bits = group(input[read], input[read + 1], c, UInt8(ascii: "A"))
                invalid |= bits
                out[written] = UInt8(truncatingIfNeeded: bits >> 16)
                if remainder == 3 {
                    out[written + 1] = UInt8(truncatingIfNeeded: bits >> 8)
                    // The last character's low 2 bits are unused and must be zero.
                    invalid |= bits & 0xFF == 0 ? 0 : 0xFF00_0000
                } else {
                    // The second character's low 4 bits are unused and must be zero.
                    invalid |= bits & 0xFFFF == 0 ? 0 : 0xFF00_0000
                }
            }
            return invalid & 0xFF00_0000 == 0
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
