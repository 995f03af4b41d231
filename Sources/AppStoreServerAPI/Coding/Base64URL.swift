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
