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
        // Byte-level scanning: Foundation's trimming and String.split cost more than the signature check.
        let trimmed = Self.trimmingWhitespace(text)
        guard !trimmed.isEmpty else { throw .malformedJWS("the text is empty") }
        let utf8 = trimmed.utf8
        guard let firstDot = utf8.firstIndex(of: UInt8(ascii: ".")) else {
            throw .malformedJWS("expected 3 dot-separated parts, found 1")
        }
        let afterFirst = utf8.index(after: firstDot)
        guard let secondDot = utf8[afterFirst...].firstIndex(of: UInt8(ascii: ".")) else {
            throw .malformedJWS("expected 3 dot-separated parts, found 2")
        }
        let afterSecond = utf8.index(after: secondDot)
        if let extra = utf8[afterSecond...].firstIndex(of: UInt8(ascii: ".")) {
            let count = 3 + utf8[utf8.index(after: extra)...].filter { $0 == UInt8(ascii: ".") }.count
            throw .malformedJWS("expected 3 dot-separated parts, found \(count + 1)")
        }
        guard firstDot > utf8.startIndex, secondDot > afterFirst else {
            throw .malformedJWS("the header or payload part is empty")
        }
        self.text = trimmed
        self.headerSegment = trimmed[trimmed.startIndex..<firstDot]
        self.payloadSegment = trimmed[afterFirst..<secondDot]
        self.signatureSegment = trimmed[afterSecond...]
    }

    private static func trimmingWhitespace(_ text: String) -> String {
        func isSpace(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 }
        let utf8 = text.utf8
        guard let first = utf8.first, let last = utf8.last, isSpace(first) || isSpace(last) else { return text }
        guard let start = utf8.firstIndex(where: { !isSpace($0) }), let end = utf8.lastIndex(where: { !isSpace($0) }) else {
            return ""
        }
        // Sliced as bytes: a String range would widen to whole grapheme clusters (U+0600 joins a following space).
        return String(decoding: utf8[start...end], as: UTF8.self)
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
