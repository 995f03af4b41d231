import Foundation

/// Apple's rules for a retention image, checked from the file's bytes before it is sent (and by
/// the demo when it receives one): a PNG, with no transparency, of the pixel size its use needs.
/// Only the PNG's chunk structure is read (signature, chunk lengths and CRCs, IHDR, tRNS); the
/// pixels themselves are not decoded.
public enum RetentionImageCheck {
    /// A full-size image is exactly this wide, and between these heights.
    public static let fullSizeWidth = 3840
    public static let fullSizeHeights = 160...2160
    /// A bullet point image is this square.
    public static let bulletPointSide = 1024
    /// Apple publishes no byte limit; a PNG of the allowed sizes never needs more than this, so a
    /// larger file is refused as surely not the image meant.
    public static let largestFile = 32 << 20

    /// What the IHDR chunk says.
    public struct Header: Sendable, Equatable {
        public var width: Int
        public var height: Int
        public var bitDepth: Int
        public var colorType: Int
        /// A tRNS chunk gives some colour or palette entry transparency.
        public var declaresTransparency: Bool

        /// PNG colour types 4 (grey with alpha) and 6 (RGB with alpha) carry an alpha channel.
        public var hasAlphaChannel: Bool { colorType == 4 || colorType == 6 }

        public var colorTypeName: String {
            switch colorType {
            case 0: return "greyscale"
            case 2: return "RGB"
            case 3: return "palette"
            case 4: return "greyscale with alpha"
            case 6: return "RGB with alpha (RGBA)"
            default: return "colour type \(colorType)"
            }
        }
    }

    /// One rule the file breaks, said so a person can fix the file.
    public enum Violation: Error, Sendable, Equatable, CustomStringConvertible {
        case empty
        case tooLarge(bytes: Int)
        case notPNG
        case damaged(String)
        case alphaChannel(colorType: String)
        case transparentColor
        case fullSizeWidth(width: Int, height: Int)
        case fullSizeHeight(width: Int, height: Int)
        case bulletPointSize(width: Int, height: Int)

        public var description: String {
            switch self {
            case .empty:
                return "The file is empty."
            case .tooLarge(let bytes):
                return "The file is \(bytes) bytes; iapdesk refuses images over \(RetentionImageCheck.largestFile >> 20) MiB (no PNG of Apple's sizes needs that much)."
            case .notPNG:
                return "The file is not a PNG (it does not start with the PNG signature); Apple accepts PNG images only."
            case .damaged(let detail):
                return "The PNG is damaged: \(detail)."
            case .alphaChannel(let colorType):
                return "The PNG has an alpha channel (\(colorType)); Apple refuses images with transparency: export it without alpha (flattened onto a background)."
            case .transparentColor:
                return "The PNG marks a colour as transparent (a tRNS chunk); Apple refuses images with transparency: export it without transparency."
            case .fullSizeWidth(let width, let height):
                return "The image is \(width)×\(height) pixels; a full-size image must be exactly \(RetentionImageCheck.fullSizeWidth) pixels wide."
            case .fullSizeHeight(let width, let height):
                return "The image is \(width)×\(height) pixels; a full-size image must be \(RetentionImageCheck.fullSizeHeights.lowerBound) to \(RetentionImageCheck.fullSizeHeights.upperBound) pixels high."
            case .bulletPointSize(let width, let height):
                return "The image is \(width)×\(height) pixels; a bullet point image must be \(RetentionImageCheck.bulletPointSide)×\(RetentionImageCheck.bulletPointSide) pixels."
            }
        }

        /// The error Apple answers an upload breaking this rule with.
        public var appleCode: APIErrorCode {
            switch self {
            case .fullSizeWidth, .fullSizeHeight, .bulletPointSize: return .badRequestImageSize
            default: return .invalidImage
            }
        }
    }

    private static let signature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]

    /// Every rule `png` breaks for use as `size` (FULL_SIZE when nil, as Apple's default), the file's
    /// own problems first; empty when Apple's documented rules are met.
    public static func violations(_ png: Data, as size: ImageSize?) -> [Violation] {
        let header: Header
        switch readHeader(png) {
        case .failure(let violation): return [violation]
        case .success(let read): header = read
        }
        var found: [Violation] = []
        if png.count > largestFile { found.append(.tooLarge(bytes: png.count)) }
        if header.hasAlphaChannel { found.append(.alphaChannel(colorType: header.colorTypeName)) }
        if header.declaresTransparency { found.append(.transparentColor) }
        switch size ?? .fullSize {
        case .bulletPoint:
            if header.width != bulletPointSide || header.height != bulletPointSide {
                found.append(.bulletPointSize(width: header.width, height: header.height))
            }
        default:
            if header.width != fullSizeWidth {
                found.append(.fullSizeWidth(width: header.width, height: header.height))
            } else if !fullSizeHeights.contains(header.height) {
                found.append(.fullSizeHeight(width: header.width, height: header.height))
            }
        }
        return found
    }

    /// Reads the PNG's chunks: the header, and whether a tRNS chunk comes before the image data.
    public static func readHeader(_ png: Data) -> Result<Header, Violation> {
        let bytes = [UInt8](png)
        guard !bytes.isEmpty else { return .failure(.empty) }
        guard bytes.count >= 8, Array(bytes[0..<8]) == signature else { return .failure(.notPNG) }
        var offset = 8
        var header: Header?
        var sawImageData = false
        while true {
            guard offset + 12 <= bytes.count else {
                return .failure(.damaged(header == nil ? "it ends before its IHDR chunk" : "it ends before its IEND chunk"))
            }
            let length = Int(readUInt32(bytes, offset))
            let typeBytes = Array(bytes[(offset + 4)..<(offset + 8)])
            let type = String(decoding: typeBytes, as: UTF8.self)
            guard length <= bytes.count - offset - 12 else { return .failure(.damaged("its \(type) chunk runs past the end of the file")) }
            let dataStart = offset + 8
            let chunk = Array(bytes[(offset + 4)..<(dataStart + length)])
            guard crc32(chunk) == readUInt32(bytes, dataStart + length) else {
                return .failure(.damaged("the checksum of its \(type) chunk does not match"))
            }
            if header == nil {
                guard type == "IHDR", length == 13 else { return .failure(.damaged("it does not begin with an IHDR chunk")) }
                let width = Int(readUInt32(bytes, dataStart))
                let height = Int(readUInt32(bytes, dataStart + 4))
                guard width > 0, height > 0 else { return .failure(.damaged("its IHDR chunk gives a size of \(width)×\(height)")) }
                header = Header(width: width, height: height, bitDepth: Int(bytes[dataStart + 8]), colorType: Int(bytes[dataStart + 9]),
                                declaresTransparency: false)
            } else if type == "tRNS" {
                header?.declaresTransparency = true
            } else if type == "IDAT" {
                sawImageData = true
            } else if type == "IEND" {
                guard sawImageData, let header else { return .failure(.damaged("it has no image data (IDAT chunk)")) }
                return .success(header)
            }
            offset = dataStart + length + 4
        }
    }

    private static func readUInt32(_ bytes: [UInt8], _ at: Int) -> UInt32 {
        UInt32(bytes[at]) << 24 | UInt32(bytes[at + 1]) << 16 | UInt32(bytes[at + 2]) << 8 | UInt32(bytes[at + 3])
    }

    private static let crcTable: [UInt32] = (0..<256).map { n in
        var c = UInt32(n)
        for _ in 0..<8 { c = c & 1 == 1 ? 0xEDB8_8320 ^ (c >> 1) : c >> 1 }
        return c
    }

    /// The CRC-32 PNG puts after each chunk (over its type and data).
    static func crc32(_ bytes: [UInt8]) -> UInt32 {
        var c: UInt32 = 0xFFFF_FFFF
        for byte in bytes { c = crcTable[Int((c ^ UInt32(byte)) & 0xFF)] ^ (c >> 8) }
        return c ^ 0xFFFF_FFFF
    }

    /// A minimal PNG of `width`×`height` with the given colour type (and a tRNS chunk when asked):
    /// its image data is a placeholder, as only the chunk structure is ever read. For tests and the
    /// demo's walkthroughs.
    public static func samplePNG(width: Int, height: Int, colorType: UInt8 = 2, transparentColor: Bool = false) -> Data {
        func chunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
            let body = Array(type.utf8) + data
            let length = UInt32(data.count), crc = crc32(body)
            return [UInt8(length >> 24), UInt8(length >> 16 & 0xFF), UInt8(length >> 8 & 0xFF), UInt8(length & 0xFF)] + body
                + [UInt8(crc >> 24), UInt8(crc >> 16 & 0xFF), UInt8(crc >> 8 & 0xFF), UInt8(crc & 0xFF)]
        }
        func be(_ value: Int) -> [UInt8] { [UInt8(value >> 24 & 0xFF), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)] }
        var bytes = signature
        bytes += chunk("IHDR", be(width) + be(height) + [8, colorType, 0, 0, 0])
        if transparentColor { bytes += chunk("tRNS", [0, 0, 0, 0, 0, 0]) }
        bytes += chunk("IDAT", [0x78, 0x9C, 0x03, 0x00, 0x00, 0x00, 0x00, 0x01])
        bytes += chunk("IEND", [])
        return Data(bytes)
    }
}
