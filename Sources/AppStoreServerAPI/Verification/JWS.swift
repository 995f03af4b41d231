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
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !trimmed.isEmpty else { throw .malformedJWS("the text is empty") }
        let parts = trimmed.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3 else { throw .malformedJWS("expected 3 dot-separated parts, found \(parts.count)") }
        guard !parts[0].isEmpty, !parts[1].isEmpty else { throw .malformedJWS("the header or payload part is empty") }
        self.text = trimmed
        self.headerSegment = parts[0]
        self.payloadSegment = parts[1]
        self.signatureSegment = parts[2]
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
