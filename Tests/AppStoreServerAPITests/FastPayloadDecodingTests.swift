@testable import AppStoreServerAPI
import Foundation
import Testing

/// The byte reader the verifier decodes payloads with must give exactly what JSONDecoder gives, or
/// give up so that JSONDecoder decides (values and errors alike).
@Suite struct FastPayloadDecodingTests {
    /// How many documents the fast reader decoded itself, per type.
    final class Tally: @unchecked Sendable {
        var fast: [String: Int] = [:]
    }

    /// Checks every payload type on `data`; returns the types the fast reader decoded itself.
    @discardableResult
    func compareAll(_ data: Data, _ label: String, _ tally: Tally? = nil) -> [String] {
        var fast: [String] = []
        func compare<T: FastJSONDecodable & Decodable & Equatable>(_ type: T.Type) {
            let reference = Result { () throws(JSONDecodeFailure) -> T in try AppStoreJSON.decode(T.self, from: data) }
            let combined = Result { () throws(JSONDecodeFailure) -> T in try AppStoreJSON.decodePayload(T.self, from: data) }
            #expect(combined == reference, "\(T.self) of \(label)")
            if let value = T.fastDecode(data) {
                #expect(Result.success(value) == reference, "fast \(T.self) of \(label)")
                fast.append(String(describing: T.self))
                tally?.fast[String(describing: T.self), default: 0] += 1
            }
        }
        compare(TransactionPayload.self)
        compare(RenewalInfoPayload.self)
        compare(AppTransactionPayload.self)
        compare(NotificationPayload.self)
        compare(NotificationData.self)
        compare(NotificationSummary.self)
        compare(ExternalPurchaseToken.self)
        compare(NotificationAppData.self)
        compare(JWSHeader.self)
        return fast
    }

    /// Every JSON file, and the payload of every JWS found in any file, under `root`.
    static func documents(under root: URL) -> [(String, Data)] {
        guard let files = FileManager.default.enumerator(at: root, includingPropertiesForKeys: nil) else { return [] }
        var documents: [(String, Data)] = []
        let jwsPattern = try! NSRegularExpression(pattern: "eyJ[A-Za-z0-9_-]*\\.[A-Za-z0-9_-]+\\.[A-Za-z0-9_-]*")
        for case let url as URL in files {
            guard let data = try? Data(contentsOf: url), let text = String(data: data, encoding: .utf8) else { continue }
            if url.pathExtension == "json" { documents.append((url.lastPathComponent, data)) }
            for match in jwsPattern.matches(in: text, range: NSRange(text.startIndex..., in: text)) {
                let jws = Substring(text[Range(match.range, in: text)!])
                let parts = jws.split(separator: ".", omittingEmptySubsequences: false)
                if let payload = Base64URL.decode(parts[1]) { documents.append(("\(url.lastPathComponent) JWS", payload)) }
                if let header = Base64URL.decode(parts[0]) { documents.append(("\(url.lastPathComponent) JWS header", header)) }
            }
        }
        return documents
    }

    /// All of Apple's test resources (Fixtures/apple/PROVENANCE.md), in the test target: the check
    /// runs wherever the tests do.
    @Test func agreesOnTheProjectsFixtures() {
        let documents = Self.documents(under: Fixture.url(""))
        #expect(documents.count >= 90)
        // Apple's Advanced Commerce, realtime and message models too, not only the App Store Server API's.
        #expect(documents.filter { $0.0.hasPrefix("advancedCommerce") }.count >= 30)
        #expect(documents.contains { $0.0 == "decodedRealtimeRequest.json" })
        let tally = Tally()
        for (label, data) in documents { compareAll(data, label, tally) }
        // The fast reader must really be in use on Apple's own samples, not always give up.
        #expect(tally.fast["TransactionPayload", default: 0] > 10)
        #expect(tally.fast["RenewalInfoPayload", default: 0] > 5)
        #expect(tally.fast["NotificationPayload", default: 0] > 5)
        #expect(tally.fast["AppTransactionPayload", default: 0] > 5)
        // Advanced Commerce objects are left to JSONDecoder.
        #expect(!compareAll(Fixture.model("signedTransaction"), "signedTransaction").contains("TransactionPayload"))
        #expect(!compareAll(Fixture.model("signedRenewalInfo"), "signedRenewalInfo").contains("RenewalInfoPayload"))
        #expect(compareAll(Fixture.model("appTransaction"), "appTransaction").contains("AppTransactionPayload"))
        #expect(compareAll(Fixture.model("signedNotification"), "signedNotification").contains("NotificationPayload"))
        #expect(compareAll(Fixture.model("signedSummaryNotification"), "signedSummaryNotification").contains("NotificationPayload"))
    }

    /// Inputs meant to find a difference: escapes, surrogates, duplicates, unknown nesting, numbers
    /// JSONDecoder reads differently from plain integers, nulls, wrong types, broken JSON.
    static let adversarial: [String] = [
        #"{"bundleId":"com.\"ex\\am\/ple\b\f\n\r\t"}"#,
        #"{"productId":"caf\u00e9 \u4E2D \u0041"}"#,
        #"{"productId":"\ud83d\ude00 smile"}"#,
        #"{"productId":"\ud83d"}"#,
        #"{"productId":"\ude00"}"#,
        #"{"productId":"\ud83d\u0041"}"#,
        #"{"productId":"\ud83dx"}"#,
        #"{"productId":"nul\u0000byte"}"#,
        #"{"productId":"\x"}"#,
        #"{"productId":"\u12"}"#,
        #"{"productId":"café 😀 中"}"#,
        "{\"productId\":\"tab\there\"}",
        #"{"bundleId":"a","bundleId":"b"}"#,
        #"{"bundleId":null,"bundleId":"b"}"#,
        #"{"other":1,"other":"two","bundleId":"b"}"#,
        #"{"bundle\u0049d":"escaped key"}"#,
        #"{"x":{"a":[1,2.5,{"b":null,"c":[true,false]}],"d":"\u0041\n"},"bundleId":"b","y":[]}"#,
        #"{"x":{}, "z": [ ] , "bundleId" : "spaced" }"#,
        String(repeating: #"{"a":"#, count: 100) + "1" + String(repeating: "}", count: 100),
        #"{"deep":"# + String(repeating: "[", count: 100) + String(repeating: "]", count: 100) + #","price":5}"#,
        #"{"price":1e3}"#,
        #"{"price":1E3}"#,
        #"{"purchaseDate":1.75e12}"#,
        #"{"purchaseDate":1750000000000.9}"#,
        #"{"purchaseDate":-1750000000000.9}"#,
        #"{"quantity":1.0}"#,
        #"{"price":-0}"#,
        #"{"price":-5}"#,
        #"{"price":0}"#,
        #"{"price":01}"#,
        #"{"price":-}"#,
        #"{"price":9223372036854775807}"#,
        #"{"price":9223372036854775808}"#,
        #"{"price":-9223372036854775808}"#,
        #"{"price":123456789012345678}"#,
        #"{"quantity":2147483647}"#,
        #"{"quantity":2147483648}"#,
        #"{"purchaseDate":-62135596800000}"#,
        #"{"purchaseDate":315569520000000}"#,
        #"{"purchaseDate":315569520000001}"#,
        #"{"unknown":1e400,"price":1}"#,
        #"{"unknown":-0.0e-0,"price":1}"#,
        #"{"unknown":1.,"price":1}"#,
        #"{"unknown":.5}"#,
        #"{"unknown":+1}"#,
        #"{"bundleId":null,"price":null,"type":null,"data":null,"summary":null,"eligibleWinBackOfferIds":null}"#,
        #"{"transactionId":123}"#,
        #"{"price":"9990"}"#,
        #"{"isUpgraded":1}"#,
        #"{"isUpgraded":true,"isInBillingRetryPeriod":false}"#,
        #"{"type":"NEW_TYPE","environment":"Sandbox","revocationReason":7,"offerType":2}"#,
        #"{"revocationReason":"1"}"#,
        #"{"offerType":99999999999}"#,
        #"{"eligibleWinBackOfferIds":["a","b\n",""]}"#,
        #"{"eligibleWinBackOfferIds":["a",null]}"#,
        #"{"eligibleWinBackOfferIds":[]}"#,
        #"{"data":{"bundleId":"x","status":1,"appAppleId":1234}}"#,
        #"{"data":{"bundleId":"x","bundleId":"y"}}"#,
        #"{"data":{"unknown":{"deeper":[{}]}}}"#,
        #"{"summary":{"storefrontCountryCodes":["USA","CAN"],"succeededCount":5,"failedCount":0}}"#,
        #"{"summary":{"storefrontCountryCodes":["USA",null]}}"#,
        #"{"externalPurchaseToken":{"externalPurchaseId":"SANDBOX_1","tokenCreationDate":1698148900000}}"#,
        #"{"advancedCommerceInfo":{"requestReferenceId":"x"}}"#,
        #"{"advancedCommerceInfo":null,"commitmentInfo":null,"price":3}"#,
        #"{"a":1,}"#,
        #"{"a" 1}"#,
        #"{"a":1"#,
        #"{"#,
        "",
        "   ",
        "[]",
        "null",
        "1",
        #""text""#,
        #"{"a":tru}"#,
        #"{"a":nul}"#,
        #"{} x"#,
        #"{}{}"#,
        "{}",
        " \t\n{ \"bundleId\" : \"x\" }\r\n ",
        "\u{FEFF}{\"bundleId\":\"bom\"}",
        #"{"bundleId":"x"}"# + "\u{0}",
        #"{'bundleId':'x'}"#,
        #"{bundleId:"x"}"#,
        #"{"bundleId":"x" /* comment */}"#,
    ]

    @Test func readsAJWSHeaderItself() throws {
        let authority = try SigningCertificateAuthority.test()
        let jws = authority.signer.sign(json: Data("{}".utf8))
        let header = try #require(Base64URL.decode(jws.split(separator: ".")[0]))
        #expect(compareAll(header, "a signer's header").contains("JWSHeader"))
        #expect(JWSHeader.fastDecode(header)?.x5c == authority.signer.x5c)
        let withKid = Data(#"{"kid":"k1","alg":"ES256","x5c":["AAAA","BB\/B"],"typ":null}"#.utf8)
        #expect(compareAll(withKid, "a header with kid, an escape and a null").contains("JWSHeader"))
    }

    @Test func agreesOnAdversarialInputs() {
        var fastCount = 0
        for input in Self.adversarial {
            fastCount += compareAll(Data(input.utf8), input).isEmpty ? 0 : 1
        }
        // Invalid UTF-8 inside a string and inside an unknown value's string.
        compareAll(Data(#"{"bundleId":"a"#.utf8) + Data([0xFF, 0xFE]) + Data(#""}"#.utf8), "invalid UTF-8")
        compareAll(Data(#"{"x":"a"#.utf8) + Data([0xC3]) + Data(#"","price":1}"#.utf8), "truncated UTF-8 in an unknown value")
        compareAll(Data(#"{"x\#u{FF}":1}"#.utf8), "non-ASCII key")
        #expect(fastCount > 30)
    }

    @Test func readsTheBenchmarkTransactionItself() throws {
        let json = Data(#"""
            {"transactionId":"2000000100000001","originalTransactionId":"2000000100000000","bundleId":"com.example",\#
            "purchaseDate":1750000000000,"quantity":1,"type":"Auto-Renewable Subscription","signedDate":1750000000123,\#
            "environment":"Sandbox","price":9990,"currency":"USD","revocationReason":1}
            """#.utf8)
        let fast = try #require(TransactionPayload.fastDecode(json))
        #expect(fast == (try AppStoreJSON.decode(TransactionPayload.self, from: json)))
        #expect(fast.signedDate?.epochMilliseconds == 1_750_000_000_123)
        #expect(fast.price == 9990)
        #expect(fast.revocationReason == RevocationReason(1))
    }

    /// The one-pass base64 decoder accepts exactly what Foundation's accepted, with the same bytes.
    @Test func base64AgreesWithFoundation() {
        var inputs = ["", "QQ", "QUE", "QUFB", "QR", "QUF", "QUG", "QQ==", "QQ=", "Q", "QUFBQ", "QU FB", "QUF\n", "-_-_", "+/+/", "-/+_",
                      "QUFB*", "ÀÀÀÀ", "eyJhbGciOiJFUzI1NiJ9", "AAEC", "_w", "_x"]
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<300 {
            let bytes = (0..<Int.random(in: 0..<40, using: &generator)).map { _ in UInt8.random(in: 0...255, using: &generator) }
            let encoded = Base64URL.encode(bytes)
            inputs.append(encoded)
            // A character changed, possibly to one outside the alphabet.
            if !encoded.isEmpty {
                var changed = Array(encoded.utf8)
                changed[Int.random(in: 0..<changed.count, using: &generator)] = UInt8.random(in: 32...126, using: &generator)
                inputs.append(String(decoding: changed, as: UTF8.self))
            }
        }
        for input in inputs {
            #expect(Base64URL.decode(Substring(input)) == Base64URL.decodeThroughFoundation(Substring(input)), "\(input)")
        }
        #expect(Base64URL.decodeUnpadded("QUFB") == Data("AAA".utf8))
        #expect(Base64URL.decodeUnpadded("QR") == nil)
    }
}
