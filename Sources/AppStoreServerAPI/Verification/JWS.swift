import Foundation

/// The protected header of a JWS as App Store data uses it.
public struct JWSHeader: Codable, Sendable, Equatable {
    public var alg: String?
    public var x5c: [String]?
    public var kid: String?
    public var typ: String?

    public init(alg: String? = nil, x5c: [String]? = nil, kid: String? = nil, typ: String? = nil) {
        self.alg = alg
        self.x5c = x5c
        self.kid = kid
        self.typ = typ
    }
}

/// A JWS in compact form split into its parts; nothing is trusted yet.
struct CompactJWS {
    let headerSegment: Substring
    let payloadSegment: Substring
    let signatureSegment: Substring
    let text: String

    init(_ text: String) throws(VerificationFailure) {
        // Byte-level scanning over the contiguous UTF-8 (memchr): Foundation's trimming, String.split
        // and even UTF8View.firstIndex cost a good share of the signature check.
        let trimmed = Self.trimmingWhitespace(text)
        guard !trimmed.isEmpty else { throw .malformedJWS("the text is empty") }
        var contiguous = trimmed
        let (firstDot, secondDot, dotCount) = contiguous.withUTF8 { bytes -> (Int?, Int?, Int) in
            let base = bytes.baseAddress!
            // The first two dots' offsets, and how many dots there are in all.
            func dot(after start: Int) -> Int? {
                guard start < bytes.count, let found = memchr(base + start, Int32(UInt8(ascii: ".")), bytes.count - start) else { return nil }
                return base.distance(to: found.assumingMemoryBound(to: UInt8.self))
            }
            guard let first = dot(after: 0) else { return (nil, nil, 0) }
            guard let second = dot(after: first + 1) else { return (first, nil, 1) }
            guard let third = dot(after: second + 1) else { return (first, second, 2) }
            return (first, second, 3 + bytes[(third + 1)...].reduce(0) { $0 + ($1 == UInt8(ascii: ".") ? 1 : 0) })
        }
        guard let firstDot else { throw .malformedJWS("expected 3 dot-separated parts, found 1") }
        guard let secondDot else { throw .malformedJWS("expected 3 dot-separated parts, found 2") }
        guard dotCount == 2 else { throw .malformedJWS("expected 3 dot-separated parts, found \(dotCount + 1)") }
        guard firstDot > 0, secondDot > firstDot + 1 else {
            throw .malformedJWS("the header or payload part is empty")
        }
        let utf8 = contiguous.utf8
        let first = utf8.index(utf8.startIndex, offsetBy: firstDot)
        let second = utf8.index(utf8.startIndex, offsetBy: secondDot)
        self.text = contiguous
        self.headerSegment = contiguous[contiguous.startIndex..<first]
        self.payloadSegment = contiguous[utf8.index(after: first)..<second]
        self.signatureSegment = contiguous[utf8.index(after: second)...]
    }

    private static func trimmingWhitespace(_ text: String) -> String {
        func isSpace(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 }
        var text = text
        let range = text.withUTF8 { bytes -> Range<Int>? in
            guard let first = bytes.first, let last = bytes.last, isSpace(first) || isSpace(last) else { return nil }
            guard let start = bytes.firstIndex(where: { !isSpace($0) }), let end = bytes.lastIndex(where: { !isSpace($0) }) else {
                return 0..<0
            }
            return start..<(end + 1)
        }
        guard let range else { return text }
        // Sliced as bytes: a String range would widen to whole grapheme clusters (U+0600 joins a following space).
        return text.withUTF8 { String(decoding: UnsafeBufferPointer(rebasing: $0[range]), as: UTF8.self) }
    }

    var signingInput: Substring {
        text[headerSegment.startIndex..<payloadSegment.endIndex]
    }

    func header() throws(VerificationFailure) -> JWSHeader {
        guard let data = Base64URL.decode(headerSegment) else { throw .malformedJWS("the header is not base64url") }
        do {
            return try AppStoreJSON.decode(JWSHeader.self, from: data)
        } catch {
            throw .malformedJWS("the header is not a JSON object (\(error.reason))")
        }
    }

    func payloadData() throws(VerificationFailure) -> Data {
        guard let data = Base64URL.decode(payloadSegment) else { throw .malformedJWS("the payload is not base64url") }
        return data
    }

    func signature() throws(VerificationFailure) -> Data {
        guard let data = Base64URL.decode(signatureSegment) else { throw .malformedJWS("the signature is not base64url") }
        return data
    }
}
