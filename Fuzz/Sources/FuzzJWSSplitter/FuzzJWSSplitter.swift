@testable import AppStoreServerAPI
import Foundation
import FuzzSupport

/// The JWS splitter against a byte-level reference: the same verdict, the same three parts, and the
/// parts joined again give the trimmed text. Base64url: whatever decodes re-encodes to the same bytes.
@main enum FuzzJWSSplitter {
    static func main() {
        Fuzz.run { data in
            let text = String(decoding: data, as: UTF8.self)
            checkSplit(text)
            for segment in text.split(separator: ".", omittingEmptySubsequences: false) {
                checkBase64URL(segment)
            }
        }
    }

    static func checkSplit(_ text: String) {
        let reference = ReferenceSplit(text)
        do {
            let jws = try CompactJWS(text)
            guard let parts = reference.parts else {
                invariant(false, "accepted \(text.debugDescription); the reference refuses it: \(reference.refusal)")
                return
            }
            invariant(Array(jws.text.utf8) == reference.trimmed, "trimmed to \(jws.text.debugDescription)")
            invariant(Array(jws.headerSegment.utf8) == parts[0], "header \(jws.headerSegment.debugDescription)")
            invariant(Array(jws.payloadSegment.utf8) == parts[1], "payload \(jws.payloadSegment.debugDescription)")
            invariant(Array(jws.signatureSegment.utf8) == parts[2], "signature \(jws.signatureSegment.debugDescription)")
            invariant(Array(jws.signingInput.utf8) == parts[0] + [UInt8(ascii: ".")] + parts[1], "signing input")
        } catch {
            invariant(reference.parts == nil, "refused \(text.debugDescription) (\(error)); the reference splits it")
            if case .malformedJWS(let why) = error, why.hasPrefix("expected 3 dot-separated parts") {
                invariant(why.hasSuffix("found \(reference.partCount)"), "\(why) for \(reference.partCount) parts")
            }
        }
    }

    static func checkBase64URL(_ segment: Substring) {
        guard let decoded = Base64URL.decode(segment) else { return }
        let encoded = Base64URL.encode(decoded)
        invariant(!encoded.contains(where: { "+/=".contains($0) }), "not base64url: \(encoded)")
        invariant(Base64URL.decode(Substring(encoded)) == decoded, "\(encoded) does not decode back")
    }
}

/// What splitting a compact JWS means, written plainly over bytes.
struct ReferenceSplit {
    let trimmed: [UInt8]
    let partCount: Int
    /// Header, payload, signature; nil when the text is not three parts with header and payload non-empty.
    let parts: [[UInt8]]?
    let refusal: String

    init(_ text: String) {
        let isSpace: (UInt8) -> Bool = { [0x20, 0x0A, 0x0D, 0x09].contains($0) }
        var bytes = Array(text.utf8)[...]
        while let first = bytes.first, isSpace(first) { bytes.removeFirst() }
        while let last = bytes.last, isSpace(last) { bytes.removeLast() }
        trimmed = Array(bytes)
        let split = trimmed.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false).map { Array($0) }
        partCount = split.count
        if trimmed.isEmpty {
            (parts, refusal) = (nil, "empty")
        } else if split.count != 3 {
            (parts, refusal) = (nil, "\(split.count) parts")
        } else if split[0].isEmpty || split[1].isEmpty {
            (parts, refusal) = (nil, "empty header or payload")
        } else {
            (parts, refusal) = (split, "")
        }
    }
}
