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
        #expect(DeliveryHandler.signedPayload(in: Data(body.utf8)) == .success(Self.jws))
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
        #expect(DeliveryHandler.signedPayload(in: data) == Self.parsed(data))
    }

    /// What the JSON parser alone makes of a body.
    static func parsed(_ data: Data) -> Result<String, DeliveryHandler.Refusal> {
        guard let object = try? JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed]) else {
            return .failure(DeliveryHandler.Refusal(reason: "not-json", detail: "The body is not JSON."))
        }
        guard let members = object as? [String: Any] else {
            return .failure(DeliveryHandler.Refusal(reason: "not-json-object", detail: "The body is JSON but not an object like {\"signedPayload\": \"...\"}."))
        }
        guard let jws = members["signedPayload"] as? String, !jws.isEmpty else {
            return .failure(DeliveryHandler.Refusal(reason: "no-signed-payload", detail: "The body has no signedPayload string."))
        }
        return .success(jws)
    }
}
