@testable import AppStoreServerAPI
import Foundation
import SwiftASN1
import Testing

/// Legacy app receipts: Apple's Xcode receipts (the fixtures of Apple's ReceiptUtility tests), a
/// receipt built here field by field with swift-asn1, and every kind of bad input.
@Suite struct AppReceiptTests {
    @Test func xcodeReceiptWithATransactionGivesItsFieldsAndTransactionID() throws {
        let receipt = try AppReceiptReader.read(Fixture.data("apple/xcode/xcode-app-receipt-with-transaction"))
        #expect(receipt.receiptType == "Xcode")
        #expect(receipt.appItemId == 0)
        #expect(receipt.bundleId == "com.example.naturelab.backyardbirds.example")
        #expect(receipt.applicationVersion == "1")
        #expect(receipt.creationDate == ISO8601DateFormatter().date(from: "2023-10-19T01:45:40Z"))
        #expect(receipt.opaqueValue?.count == 8 && receipt.sha1Hash?.count == 20)
        #expect(receipt.certificateCount == 1 && receipt.signerCount == 1)
        #expect(receipt.inAppPurchases.count == 1)
        let purchase = try #require(receipt.inAppPurchases.first)
        #expect(purchase.transactionId == "0")
        #expect(purchase.productId == "pass.premium")
        #expect(purchase.quantity == 1)
        #expect(purchase.purchaseDate == ISO8601DateFormatter().date(from: "2023-10-19T01:45:36Z"))
        #expect(purchase.expiresDate == ISO8601DateFormatter().date(from: "2023-11-19T01:45:36Z"))
        // Apple's ReceiptUtility answers "0" for this receipt: the ID a lookup needs.
        #expect(receipt.originalTransactionIds == ["0"])
        #expect(receipt.problems.isEmpty)
    }

    @Test func xcodeReceiptWithoutPurchasesHasNone() throws {
        let receipt = try AppReceiptReader.read(Fixture.data("apple/xcode/xcode-app-receipt-empty"))
        #expect(receipt.bundleId == "com.example.naturelab.backyardbirds.example")
        #expect(receipt.inAppPurchases.isEmpty)
        #expect(receipt.originalTransactionIds.isEmpty)
    }

    @Test func everyDocumentedFieldIsReadWithItsType() throws {
        let bytes = try TestReceipt.container(TestReceipt.fullReceipt)
        for input in [Data(bytes), Data(Data(bytes).base64EncodedString().utf8)] {
            let receipt = try AppReceiptReader.read(input)
            #expect(receipt.receiptType == "ProductionSandbox")
            #expect(receipt.appItemId == 1_600_000_042)
            #expect(receipt.bundleId == "com.iapdesk.demo")
            #expect(receipt.applicationVersion == "2.4.1")
            #expect(receipt.opaqueValue == Data([1, 2, 3, 4]))
            #expect(receipt.sha1Hash == Data(repeating: 0xAB, count: 20))
            #expect(receipt.creationDate == TestReceipt.date("2026-05-11T19:30:00Z"))
            #expect(receipt.originalPurchaseDate == TestReceipt.date("2025-10-03T19:30:17Z"))
            #expect(receipt.originalApplicationVersion == "1.0")
            #expect(receipt.expirationDate == nil, "an empty date is no date")
            #expect(receipt.otherFieldTypes == [44])
            #expect(receipt.inAppPurchases.count == 2)
            let renewal = try #require(receipt.inAppPurchases.first { $0.transactionId == "2000000400000044" })
            #expect(renewal.quantity == 1)
            #expect(renewal.productId == "com.iapdesk.demo.pro.monthly")
            #expect(renewal.originalTransactionId == "2000000400000001")
            #expect(renewal.purchaseDate == TestReceipt.date("2026-11-07T19:30:00Z"))
            #expect(renewal.originalPurchaseDate == TestReceipt.date("2026-05-11T19:30:00Z"))
            #expect(renewal.expiresDate == TestReceipt.date("2026-12-07T19:30:00Z"))
            #expect(renewal.webOrderLineItemId == "2000000123456789")
            #expect(renewal.cancellationDate == nil)
            #expect(renewal.isTrialPeriod == false)
            #expect(renewal.isInIntroOfferPeriod == true)
            #expect(renewal.promotionalOfferId == "WINBACK1")
            let refunded = try #require(receipt.inAppPurchases.first { $0.transactionId == "2000000400000002" })
            #expect(refunded.cancellationDate == TestReceipt.fractional("2026-05-12T08:00:00.250Z"))
            #expect(refunded.quantity == 3)
            #expect(refunded.otherFieldTypes == [1707])
            // The newest purchase first; each original transaction once.
            #expect(receipt.newestFirst.map(\.transactionId) == ["2000000400000044", "2000000400000002"])
            #expect(receipt.originalTransactionIds == ["2000000400000001", "2000000400000002"])
        }
    }

    @Test func xcodeStyleDoubleWrappedContentAndBERAreRead() throws {
        let receipt = try AppReceiptReader.read(der: try TestReceipt.container(TestReceipt.fullReceipt, wrapTwice: true))
        #expect(receipt.bundleId == "com.iapdesk.demo")
        #expect(receipt.inAppPurchases.count == 2)
    }

    @Test func aFieldOfTheWrongTypeIsNamedAndTheRestIsRead() throws {
        let receipt = try AppReceiptReader.read(der: try TestReceipt.container([
            (2, .integer(7)), (3, .utf8("1.0")), (12, .ia5("yesterday")),
            (17, .set([(1703, .integer(5)), (1705, .utf8("2000000400000001")), (1704, .utf8("2026-05-11T19:30:00Z"))])),
        ]))
        #expect(receipt.bundleId == nil)
        #expect(receipt.applicationVersion == "1.0")
        #expect(receipt.problems == [
            "field 2 (bundle ID): an ASN.1 INTEGER where a string belongs",
            "field 12 (receipt creation date): \"yesterday\" is not an RFC 3339 date",
            "in-app purchase 1, field 1703 (transaction ID): an ASN.1 INTEGER where a string belongs",
            "in-app purchase 1, field 1704 (purchase date): not an IA5String date",
        ])
        #expect(receipt.originalTransactionIds == ["2000000400000001"])
    }

    @Test func textAsLogsAndAPIBodiesKeepIt() throws {
        let base64 = Fixture.text("apple/xcode/xcode-app-receipt-with-transaction")
        let wrapped = stride(from: 0, to: base64.count, by: 76).map { start in
            String(base64.dropFirst(start).prefix(76))
        }.joined(separator: "\r\n")
        let urlSafe = base64.replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
        let body = #"{"receipt-data": ""# + base64.replacingOccurrences(of: "/", with: "\\/") + #"", "password": "x"}"#
        for text in [wrapped, urlSafe, body, "  \n" + base64 + "\n"] {
            #expect(try AppReceiptReader.read(text: text).inAppPurchases.first?.transactionId == "0", "\(text.prefix(30))")
        }
        #expect(AppReceiptReader.looksLikeReceipt(base64))
        #expect(AppReceiptReader.looksLikeReceipt(body))
        #expect(!AppReceiptReader.looksLikeReceipt(#"{"signedPayload": "eyJ.a.b"}"#))
        #expect(!AppReceiptReader.looksLikeReceipt("MK5TTTVWJH"))
        #expect(!AppReceiptReader.looksLikeReceipt(Fixture.text("apple/xcode/xcode-signed-transaction")))
    }

    @Test func eachKindOfBadInputHasItsOwnError() throws {
        #expect(throws: AppReceiptError.empty) { try AppReceiptReader.read(text: " \n ") }
        #expect(throws: AppReceiptError.notBase64(character: "!", offset: 3)) { try AppReceiptReader.read(text: "MII!abc") }
        guard case .notPKCS7(let jws)? = Self.failure(Data(Fixture.text("apple/xcode/xcode-signed-transaction").utf8)) else {
            Issue.record("a JWS is not a receipt")
            return
        }
        #expect(jws.contains("it is a JWS"))
        guard case .notPKCS7(let text)? = Self.failure(Data("hello world".utf8)) else { Issue.record("plain text"); return }
        #expect(text.contains("not to a PKCS#7 SEQUENCE"))
        // A SEQUENCE that is no ContentInfo; a ContentInfo of another type; SignedData without content.
        var integers = DER.Serializer()
        try integers.appendConstructedNode(identifier: .sequence) { try $0.serialize(1); try $0.serialize(2) }
        guard case .notPKCS7? = Self.failure(Data(integers.serializedBytes)) else { Issue.record("a SEQUENCE of integers"); return }
        guard case .notSignedData(let data)? = Self.failure(Data(try TestReceipt.contentInfo(type: AppReceiptReader.data) { _ in })) else {
            Issue.record("PKCS#7 data")
            return
        }
        #expect(data.contains("not SignedData (1.2.840.113549.1.7.2)"))
        guard case .notSignedData(let detached)? = Self.failure(Data(try TestReceipt.container(nil))) else { Issue.record("detached"); return }
        #expect(detached.contains("detached"))
        var notASet = DER.Serializer()
        try notASet.serialize(ASN1UTF8String("not a receipt"))
        guard case .notAReceipt(let content)? = Self.failure(Data(try TestReceipt.container(content: notASet.serializedBytes))) else {
            Issue.record("content that is not a SET")
            return
        }
        #expect(content.contains("UTF8String, not the SET"))
        guard case .truncated? = Self.failure(Fixture.data("apple/xcode/xcode-app-receipt-with-transaction").prefix(600)) else {
            Issue.record("cut base64")
            return
        }
        #expect(throws: AppReceiptError.tooLarge(bytes: AppReceiptReader.maximumBytes + 1)) {
            try AppReceiptReader.read(der: [0x30] + [UInt8](repeating: 0, count: AppReceiptReader.maximumBytes))
        }
        #expect(AppReceiptError.truncated(bytes: 225).description == "The receipt is cut short: its 225 bytes end inside a field (copied in part, or cut by a log's line limit).")
    }

    /// Every prefix of a real receipt, every byte of it changed, and random bytes: each is read or
    /// refused with an `AppReceiptError`; nothing traps.
    @Test func truncatedMutatedAndRandomReceiptsNeverCrash() throws {
        let der = Array(try #require(Data(base64Encoded: Fixture.text("apple/xcode/xcode-app-receipt-with-transaction"))))
        var truncations = 0
        for length in 0..<der.count {
            do {
                _ = try AppReceiptReader.read(der: Array(der.prefix(length)))
                Issue.record("a receipt cut to \(length) of \(der.count) bytes was read")
            } catch .truncated {
                truncations += 1
            } catch {}
        }
        #expect(truncations > der.count * 9 / 10, "cut receipts are said to be cut: \(truncations) of \(der.count)")
        for index in der.indices {
            for change: UInt8 in [0x00, 0xFF, 0x80] {
                var mutated = der
                mutated[index] ^= change == 0 ? 0x01 : change
                _ = try? AppReceiptReader.read(der: mutated)
            }
        }
        var generator = SeededGenerator(seed: 20_261_127)
        for length in [1, 2, 5, 64, 700, 4_000] {
            for _ in 0..<50 {
                let bytes = (0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) }
                _ = try? AppReceiptReader.read(der: [0x30] + bytes)
                _ = try? AppReceiptReader.read(Data(bytes))
                _ = try? AppReceiptReader.read(text: Data(bytes).base64EncodedString())
            }
        }
        // Deep nesting stops at the parser's depth limit instead of the stack.
        let deep = [UInt8](repeating: 0x30, count: 2_000) + [UInt8](repeating: 0x80, count: 1) + [UInt8](repeating: 0, count: 4_000)
        #expect(throws: AppReceiptError.self) { try AppReceiptReader.read(der: deep) }
    }

    static func failure(_ input: Data) -> AppReceiptError? {
        do {
            _ = try AppReceiptReader.read(input)
            return nil
        } catch {
            return error
        }
    }
}

/// A receipt as Apple writes one, built with swift-asn1: a PKCS#7 SignedData whose content is the
/// receipt's SET of (type, version, value) fields.
enum TestReceipt {
    indirect enum Value {
        case utf8(String), ia5(String), integer(Int64), bytes([UInt8]), set([(Int, Value)])
    }

    static let fullReceipt: [(Int, Value)] = [
        (0, .utf8("ProductionSandbox")), (1, .integer(1_600_000_042)), (2, .utf8("com.iapdesk.demo")), (3, .utf8("2.4.1")),
        (4, .bytes([1, 2, 3, 4])), (5, .bytes([UInt8](repeating: 0xAB, count: 20))), (12, .ia5("2026-05-11T19:30:00Z")),
        (17, .set([
            (1701, .integer(1)), (1702, .utf8("com.iapdesk.demo.pro.monthly")), (1703, .utf8("2000000400000044")),
            (1704, .ia5("2026-11-07T19:30:00Z")), (1705, .utf8("2000000400000001")), (1706, .ia5("2026-05-11T19:30:00Z")),
            (1708, .ia5("2026-12-07T19:30:00Z")), (1711, .integer(2_000_000_123_456_789)), (1712, .ia5("")), (1713, .integer(0)),
            (1719, .integer(1)), (1721, .utf8("WINBACK1")),
        ])),
        (17, .set([
            (1701, .integer(3)), (1702, .utf8("com.iapdesk.demo.coins.100")), (1703, .utf8("2000000400000002")),
            (1704, .ia5("2026-05-11T19:31:00Z")), (1705, .utf8("2000000400000002")), (1707, .integer(0)),
            (1712, .ia5("2026-05-12T08:00:00.250Z")),
        ])),
        (18, .ia5("2025-10-03T19:30:17Z")), (19, .utf8("1.0")), (21, .ia5("")), (44, .utf8("not read")),
    ]

    static func date(_ text: String) -> Date? { ISO8601DateFormatter().date(from: text) }

    static func fractional(_ text: String) -> Date? {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter.date(from: text)
    }

    static func encoded(_ value: Value) throws -> [UInt8] {
        var serializer = DER.Serializer()
        switch value {
        case .utf8(let text): try serializer.serialize(ASN1UTF8String(text))
        case .ia5(let text): try serializer.serialize(try ASN1IA5String(text))
        case .integer(let number): try serializer.serialize(number)
        case .bytes(let bytes): return bytes
        case .set(let fields): return try self.fields(fields)
        }
        return serializer.serializedBytes
    }

    /// The SET of fields.
    static func fields(_ fields: [(Int, Value)]) throws -> [UInt8] {
        var serializer = DER.Serializer()
        try serializer.appendConstructedNode(identifier: .set) { set in
            for (type, value) in fields {
                let bytes = try encoded(value)
                try set.appendConstructedNode(identifier: .sequence) { field in
                    try field.serialize(type)
                    try field.serialize(1)
                    try field.serialize(ASN1OctetString(contentBytes: bytes[...]))
                }
            }
        }
        return serializer.serializedBytes
    }

    /// ContentInfo of `type` around what `content` writes inside its [0].
    static func contentInfo(type: ASN1ObjectIdentifier, content: (inout DER.Serializer) throws -> Void) throws -> [UInt8] {
        var serializer = DER.Serializer()
        try serializer.appendConstructedNode(identifier: .sequence) { info in
            try info.serialize(type)
            try info.appendConstructedNode(identifier: ASN1Identifier(tagWithNumber: 0, tagClass: .contextSpecific)) { try content(&$0) }
        }
        return serializer.serializedBytes
    }

    /// SignedData carrying `fields` (nil: detached content), or `content` bytes as they are.
    static func container(_ fields: [(Int, Value)]?, wrapTwice: Bool = false) throws -> [UInt8] {
        guard let fields else { return try container(content: nil) }
        var payload = try self.fields(fields)
        if wrapTwice {
            var wrapper = DER.Serializer()
            try wrapper.serialize(ASN1OctetString(contentBytes: payload[...]))
            payload = wrapper.serializedBytes
        }
        return try container(content: payload)
    }

    static func container(content: [UInt8]?) throws -> [UInt8] {
        try contentInfo(type: AppReceiptReader.signedData) { outer in
            try outer.appendConstructedNode(identifier: .sequence) { signed in
                try signed.serialize(1)
                signed.appendConstructedNode(identifier: .set) { _ in }
                try signed.appendConstructedNode(identifier: .sequence) { encapsulated in
                    try encapsulated.serialize(AppReceiptReader.data)
                    if let content {
                        try encapsulated.appendConstructedNode(identifier: ASN1Identifier(tagWithNumber: 0, tagClass: .contextSpecific)) {
                            try $0.serialize(ASN1OctetString(contentBytes: content[...]))
                        }
                    }
                }
                signed.appendConstructedNode(identifier: .set) { _ in }
            }
        }
    }
}

/// Random bytes that are the same on every run.
struct SeededGenerator: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
