import Crypto
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
        // One pass over the contiguous UTF-8, front to back: leading whitespace, the dots (memchr),
        // then trailing whitespace, whose bytes the dot search has just read. Foundation's trimming,
        // String.split and even UTF8View.firstIndex cost a good share of the signature check.
        var text = text
        let (trim, firstDot, secondDot, dotCount) = text.withUTF8 { bytes -> (Range<Int>?, Int?, Int?, Int) in
            let count = bytes.count
            guard count > 0 else { return (0..<0, nil, nil, 0) }
            let base = bytes.baseAddress!
            var start = 0
            while start < count, Self.isSpace(bytes[start]) { start += 1 }
            guard start < count else { return (0..<0, nil, nil, 0) }
            // The first two dots' offsets from `start`, and how many dots there are in all; whitespace
            // after the last byte kept holds no dot, so the search may run to the end.
            func dot(after offset: Int) -> Int? {
                let from = start + offset
                guard from < count, let found = memchr(base + from, Int32(UInt8(ascii: ".")), count - from) else { return nil }
                return base.distance(to: found.assumingMemoryBound(to: UInt8.self)) - start
            }
            let first = dot(after: 0)
            let second = first.flatMap { dot(after: $0 + 1) }
            let third = second.flatMap { dot(after: $0 + 1) }
            var end = count
            while Self.isSpace(bytes[end - 1]) { end -= 1 }
            let trim = start == 0 && end == count ? nil : start..<end
            guard let first else { return (trim, nil, nil, 0) }
            guard let second else { return (trim, first, nil, 1) }
            guard let third else { return (trim, first, second, 2) }
            return (trim, first, second, 3 + bytes[(start + third + 1)..<end].reduce(0) { $0 + ($1 == UInt8(ascii: ".") ? 1 : 0) })
        }
        if let trim {
            guard !trim.isEmpty else { throw .malformedJWS("the text is empty") }
            // Sliced as bytes: a String range would widen to whole grapheme clusters (U+0600 joins a following space).
            text = text.withUTF8 { String(decoding: UnsafeBufferPointer(rebasing: $0[trim]), as: UTF8.self) }
        }
        guard let firstDot else { throw .malformedJWS("expected 3 dot-separated parts, found 1") }
        guard let secondDot else { throw .malformedJWS("expected 3 dot-separated parts, found 2") }
        guard dotCount == 2 else { throw .malformedJWS("expected 3 dot-separated parts, found \(dotCount + 1)") }
        guard firstDot > 0, secondDot > firstDot + 1 else {
            throw .malformedJWS("the header or payload part is empty")
        }
        let utf8 = text.utf8
        let first = utf8.index(utf8.startIndex, offsetBy: firstDot)
        let second = utf8.index(utf8.startIndex, offsetBy: secondDot)
        self.text = text
        self.headerSegment = text[text.startIndex..<first]
        self.payloadSegment = text[utf8.index(after: first)..<second]
        self.signatureSegment = text[utf8.index(after: second)...]
    }

    private static func isSpace(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 }

    var signingInput: Substring {
        text[headerSegment.startIndex..<payloadSegment.endIndex]
    }

    func header() throws(VerificationFailure) -> JWSHeader {
        guard let data = Base64URL.decode(headerSegment) else { throw .malformedJWS("the header is not base64url") }
        do {
            return try AppStoreJSON.decodePayload(JWSHeader.self, from: data)
        } catch {
            throw .malformedJWS("the header is not a JSON object (\(error.reason))")
        }
    }

    func payloadData() throws(VerificationFailure) -> Data {
        guard let data = Base64URL.decode(payloadSegment) else { throw .malformedJWS("the payload is not base64url") }
        return data
    }

    /// The signature as ES256's 64 bytes when the fast base64url path takes it, decoded on the
    /// stack rather than into a Data of its own; nil leaves the segment to `signature()`.
    func es256Signature() -> P256.Signing.ECDSASignature? {
        var segment = signatureSegment
        return segment.withUTF8 { input -> P256.Signing.ECDSASignature? in
            guard Base64URL.unpaddedLength(input.count) == 64 else { return nil }
            return withUnsafeTemporaryAllocation(byteCount: 64, alignment: 1) { bytes in
                guard Base64URL.decodeUnpadded(input, into: bytes) else { return nil }
                return try? P256.Signing.ECDSASignature(rawRepresentation: UnsafeRawBufferPointer(bytes))
            }
        }
    }

    func signature() throws(VerificationFailure) -> Data {
        guard let data = Base64URL.decode(signatureSegment) else { throw .malformedJWS("the signature is not base64url") }
        return data
    }
}
