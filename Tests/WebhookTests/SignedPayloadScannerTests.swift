import Foundation
import Testing
@testable import WebhookReceiver

/// The scanner takes only bodies whose value it reads exactly as the JSON parser does; it passes
/// every other body to the parser.
@Suite struct SignedPayloadScannerTests {
    static let jws = "eyJhbGciOiJFUzI1NiJ9.eyJub3RpZmljYXRpb25UeXBlIjoiVEVTVCJ9.c2lnbmF0dXJl-_"

    @Test(arguments: [
        #"{"signedPayload":"\#(jws)"}"#, #" {"signedPayload" : "\#(jws)" }"#, "\t{\r\n\"signedPayload\":\n\"\(jws)\"}\n",
    ])
    func applesShapeIsRead(body: String) {
        #expect(SignedPayloadScanner.signedPayload(in: Data(body.utf8)) == Self.jws)
        #expect(NotificationIntake.signedPayload(in: Data(body.utf8)) == .success(Self.jws))
    }

    @Test(arguments: [
        "", "{}", #"{"signedPayload":""}"#, #"{"signedPayload":"a\/b"}"#, #"{"signedPayload":"\u0061"}"#, #"{"signedPayload":"é"}"#,
        #"{"signedPayload":"a","other":1}"#, #"{"other":1,"signedPayload":"a"}"#, #"{"signedPayload":"a"} x"#, #"{"signedPayload":"a""#,
        #"{"signedPayload":"a"}}"#, #"["signedPayload"]"#, #"{"signedPayload":1}"#, "{\"signedPayload\":\"a\tb\"}", "\u{FEFF}{\"signedPayload\":\"a\"}",
        #"{"signedPayload":"a","signedPayload":"b"}"#,
    ])
    func anythingElseGoesToTheParserWithTheSameOutcome(body: String) {
        let data = Data(body.utf8)
        #expect(SignedPayloadScanner.signedPayload(in: data) == nil)
        #expect(NotificationIntake.signedPayload(in: data) == Self.parsed(data))
    }

    /// What the JSON parser alone makes of a body.
    static func parsed(_ data: Data) -> Result<String, NotificationIntake.Refused> {
        guard let object = try? JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed]) else {
            return .failure(NotificationIntake.Refused(reason: "not-json", detail: "The body is not JSON."))
        }
        guard let members = object as? [String: Any] else {
            return .failure(NotificationIntake.Refused(reason: "not-json-object", detail: "The body is JSON but not an object like {\"signedPayload\": \"...\"}."))
        }
        guard let jws = members["signedPayload"] as? String, !jws.isEmpty else {
            return .failure(NotificationIntake.Refused(reason: "no-signed-payload", detail: "The body has no signedPayload string."))
        }
        return .success(jws)
    }
}

/// The scanner reads the value eight bytes at a time: a word passes only when each of its bytes would.
@Suite struct SignedPayloadScannerWordTests {
    static func plain(_ byte: UInt8) -> Bool { byte >= 0x20 && byte <= 0x7E && byte != UInt8(ascii: "\"") && byte != UInt8(ascii: "\\") }

    static func word(_ bytes: [UInt8]) -> UInt64 {
        bytes.withUnsafeBytes { $0.loadUnaligned(as: UInt64.self) }
    }

    @Test func everyByteInEveryPlaceAmongPlainOnes() {
        for background in [UInt8(ascii: "A"), 0x20, 0x7E, UInt8(ascii: "!"), UInt8(ascii: "]")] {
            for place in 0..<8 {
                for value in 0...255 {
                    var bytes = [UInt8](repeating: background, count: 8)
                    bytes[place] = UInt8(value)
                    #expect(SignedPayloadScanner.allPlain(Self.word(bytes)) == Self.plain(UInt8(value)), "\(bytes)")
                }
            }
        }
    }

    @Test func twoBytesInEveryPairOfPlaces() {
        // The bytes next to each boundary of the plain range, two at a time, so that a borrow or
        // carry out of one byte meets the other.
        let edges: [UInt8] = [0x00, 0x01, 0x1F, 0x20, 0x21, 0x22, 0x23, 0x5B, 0x5C, 0x5D, 0x7E, 0x7F, 0x80, 0x9F, 0xA0, 0xDF, 0xE0, 0xFE, 0xFF]
        for first in 0..<8 {
            for second in 0..<8 where second != first {
                for a in edges {
                    for b in edges {
                        var bytes = [UInt8](repeating: UInt8(ascii: "x"), count: 8)
                        bytes[first] = a
                        bytes[second] = b
                        #expect(SignedPayloadScanner.allPlain(Self.word(bytes)) == (Self.plain(a) && Self.plain(b)))
                    }
                }
            }
        }
    }

    @Test func aLongValueIsReadWhereverItsOtherByteIs() {
        let value = String(repeating: "abcdefgh-_.0123", count: 40)
        #expect(SignedPayloadScanner.signedPayload(in: Data(#"{"signedPayload":"\#(value)"}"#.utf8)) == value)
        for place in [0, 1, 7, 8, 9, 15, 16, 300, value.utf8.count - 9, value.utf8.count - 1] {
            for other in [UInt8(ascii: "\\"), 0x09, 0x7F, 0xC3, 0x00] {
                var bytes = Array(value.utf8)
                bytes[place] = other
                let body = Data(#"{"signedPayload":""#.utf8) + bytes + Data(#""}"#.utf8)
                #expect(SignedPayloadScanner.signedPayload(in: body) == nil)
            }
        }
    }
}
