import Foundation
import NIOCore
import Testing
@testable import WebhookReceiver

/// The error answer's body is written by hand: the same JSON that JSONSerialization writes, and the
/// message read back unchanged whatever it contains.
@Suite struct ErrorAnswerTests {
    static let messages: [String] = [
        "", "The notification did not verify: invalidSignature", "Nothing here: notifications are POSTed to /notifications/v2.",
        #"quote " backslash \ slash / end"#, "\u{0}\u{1}\u{7}\u{8}\u{9}\u{A}\u{B}\u{C}\u{D}\u{E}\u{F}\u{10}\u{1B}\u{1F} \u{7F}",
        "é ü 日本 🙂 \u{2028}\u{2029} \u{FEFF}", #"{"error":"nested"}"#, "\\u0041 is not an escape here",
        String(repeating: "long message with \"escapes\"\n", count: 200),
    ]

    @Test(arguments: messages)
    func readsBackAsTheMessage(message: String) throws {
        let data = Data(ErrorAnswer.body(message).readableBytesView)
        let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        #expect(object.count == 1)
        #expect(object["error"] as? String == message)
    }

    @Test(arguments: messages)
    func isWhatJSONSerializationWrote(message: String) throws {
        let written = try JSONSerialization.data(withJSONObject: ["error": message], options: [.sortedKeys, .withoutEscapingSlashes])
        #expect(Data(ErrorAnswer.body(message).readableBytesView) == written)
    }
}
