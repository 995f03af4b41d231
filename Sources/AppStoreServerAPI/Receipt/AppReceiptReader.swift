import Foundation
import SwiftASN1

/// Why a receipt could not be read: each says what was found instead.
public enum AppReceiptError: Error, Equatable, Sendable, CustomStringConvertible {
    case empty
    /// The text is not base64 (nor the raw DER of a receipt): the first character that cannot be.
    case notBase64(character: Character, offset: Int)
    case tooLarge(bytes: Int)
    /// The bytes end inside an ASN.1 field: the receipt was cut short (a log line's limit, a paste).
    case truncated(bytes: Int)
    /// Not a PKCS#7 container (ContentInfo) at all.
    case notPKCS7(String)
    /// PKCS#7, but not SignedData, or SignedData without the receipt inside.
    case notSignedData(String)
    /// SignedData whose content is not a receipt's set of fields.
    case notAReceipt(String)

    public var description: String {
        switch self {
        case .empty:
            return "The receipt is empty."
        case .notBase64(let character, let offset):
            return "This is not a base64 receipt: \(Self.shown(character)) at character \(offset + 1) cannot be base64 (a receipt is base64 text starting with \"MI\", or its raw DER bytes)."
        case .tooLarge(let bytes):
            return "The receipt is \(bytes) bytes: more than the \(AppReceiptReader.maximumBytes) an app receipt can be."
        case .truncated(let bytes):
            return "The receipt is cut short: its \(bytes) bytes end inside a field (copied in part, or cut by a log's line limit)."
        case .notPKCS7(let found):
            return "This is not a PKCS#7 receipt container: \(found)."
        case .notSignedData(let found):
            return "This PKCS#7 container holds no receipt: \(found)."
        case .notAReceipt(let found):
            return "The PKCS#7 container does not hold an app receipt: \(found)."
        }
    }

    static func shown(_ character: Character) -> String {
        character.unicodeScalars.allSatisfy { $0.value >= 0x21 && $0.value < 0x7F } ? "\"\(character)\"" : "U+" + String(format: "%04X", character.unicodeScalars.first!.value)
    }
}

/// Reads a legacy app receipt: base64 text (as apps send it and logs keep it, line breaks and a
/// `"receipt-data"` JSON wrapper allowed) or its raw DER/BER bytes; a PKCS#7 SignedData whose
/// content is the receipt's SET of fields (Xcode's receipts wrap it once more in an OCTET STRING).
///
/// Nothing is verified: not the PKCS#7 signature, not Apple's certificate, not the device hash.
public enum AppReceiptReader {
    /// Apple's receipts are a few kilobytes, a long subscriber's some hundreds; anything far larger is not one.
    public static let maximumBytes = 8 << 20

    static let signedData: ASN1ObjectIdentifier = [1, 2, 840, 113_549, 1, 7, 2]
    static let data: ASN1ObjectIdentifier = [1, 2, 840, 113_549, 1, 7, 1]

    /// A receipt from a file's bytes or standard input: raw DER when it starts as one, base64 text otherwise.
    public static func read(_ input: Data) throws(AppReceiptError) -> AppReceipt {
        if input.first == 0x30 { return try read(der: Array(input)) }
        return try read(text: String(decoding: input, as: UTF8.self))
    }

    /// A receipt pasted or logged as text.
    public static func read(text: String) throws(AppReceiptError) -> AppReceipt {
        let bytes = try base64Bytes(text)
        // Every PKCS#7 container is a SEQUENCE: base64 that decodes to anything else is other text.
        guard bytes.first == 0x30 else {
            throw .notPKCS7("its base64 decodes to \(bytes.count) bytes starting \(hex(bytes.prefix(4))), not to a PKCS#7 SEQUENCE (a receipt's base64 starts with \"MI\")")
        }
        return try read(der: bytes)
    }

    /// Whether pasted text looks like a base64 receipt (the console reads it as one): long, and
    /// starting with the base64 of a PKCS#7 SEQUENCE ("MI"), or a verifyReceipt body holding one.
    public static func looksLikeReceipt(_ text: String) -> Bool {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        if trimmed.hasPrefix("{") { return trimmed.contains("\"receipt-data\"") }
        return trimmed.count >= 200 && trimmed.hasPrefix("MI") && !trimmed.contains(".")
    }

    /// The bytes of base64 text: whitespace and line breaks skipped, the URL-safe alphabet and
    /// missing padding accepted, a `{"receipt-data": "…"}` body unwrapped.
    static func base64Bytes(_ text: String) throws(AppReceiptError) -> [UInt8] {
        var text = text.trimmingCharacters(in: .whitespacesAndNewlines)
        if text.hasPrefix("{"), let body = try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any],
           let inner = (body["receipt-data"] ?? body["receiptData"] ?? body["receipt_data"]) as? String {
            text = inner
        }
        guard !text.isEmpty else { throw .empty }
        if text.hasPrefix("eyJ"), text.contains(".") {
            throw .notPKCS7("it is a JWS (App Store signed data: a transaction, renewal info or notification), not a receipt")
        }
        var clean = ""
        clean.reserveCapacity(text.utf8.count)
        var offset = 0
        for character in text {
            defer { offset += 1 }
            if character.isWhitespace { continue }
            switch character {
            case "A"..."Z", "a"..."z", "0"..."9", "+", "/", "=": clean.append(character)
            case "-": clean.append("+")
            case "_": clean.append("/")
            default:
                // A JSON-escaped slash ("\/") as log lines keep it.
                if character == "\\" { continue }
                throw .notBase64(character: character, offset: offset)
            }
        }
        guard clean.count <= maximumBytes / 3 * 4 + 4 else { throw .tooLarge(bytes: clean.count / 4 * 3) }
        let unpadded = clean.trimmingCharacters(in: CharacterSet(charactersIn: "="))
        guard !unpadded.isEmpty else { throw .empty }
        let padded = unpadded + String(repeating: "=", count: (4 - unpadded.count % 4) % 4)
        guard let bytes = Data(base64Encoded: padded) else {
            // Letters only, yet not base64: a length no base64 has, or "=" inside.
            throw .notBase64(character: "=", offset: text.firstIndex(of: "=").map { text.distance(from: text.startIndex, to: $0) } ?? text.count - 1)
        }
        return Array(bytes)
    }

    /// A receipt from its DER (or BER, as Xcode writes it) bytes.
    public static func read(der bytes: [UInt8]) throws(AppReceiptError) -> AppReceipt {
        guard !bytes.isEmpty else { throw .empty }
        guard bytes.count <= maximumBytes else { throw .tooLarge(bytes: bytes.count) }
        let root: ASN1Node
        do {
            root = try BER.parse(bytes)
        } catch {
            if isTruncation(error) { throw .truncated(bytes: bytes.count) }
            throw .notPKCS7("the bytes are not ASN.1 (\(bytes.count) bytes starting \(hex(bytes.prefix(4))))")
        }
        // ContentInfo ::= SEQUENCE { contentType OID, content [0] EXPLICIT ANY }
        guard root.identifier == .sequence, case .constructed(let info) = root.content else {
            throw .notPKCS7("it is one ASN.1 \(name(root.identifier)), not a SEQUENCE")
        }
        var parts = info.makeIterator()
        guard let typeNode = parts.next(), let type = try? ASN1ObjectIdentifier(berEncoded: typeNode) else {
            throw .notPKCS7("its SEQUENCE does not start with a content type")
        }
        guard type == signedData else { throw .notSignedData("its content type is \(type), not SignedData (\(signedData))") }
        guard let explicit = parts.next(), explicit.identifier == ASN1Identifier(tagWithNumber: 0, tagClass: .contextSpecific),
              case .constructed(let wrapped) = explicit.content, let signed = wrapped.first(where: { _ in true }),
              signed.identifier == .sequence, case .constructed(let fields) = signed.content else {
            throw .notSignedData("the SignedData itself is missing")
        }
        // SignedData ::= SEQUENCE { version, digestAlgorithms SET, encapContentInfo, [0] certificates, [1] crls, signerInfos SET }
        var receipt = AppReceipt()
        var content: [UInt8]?
        var index = 0
        for field in fields {
            defer { index += 1 }
            if index == 2 {
                content = try encapsulatedContent(field)
            } else if field.identifier == ASN1Identifier(tagWithNumber: 0, tagClass: .contextSpecific), case .constructed(let certificates) = field.content {
                receipt.certificateCount = certificates.reduce(0) { count, _ in count + 1 }
            } else if index > 2, field.identifier == .set, case .constructed(let signers) = field.content {
                receipt.signerCount = signers.reduce(0) { count, _ in count + 1 }
            }
        }
        guard let content else { throw .notSignedData("the SignedData has no encapsulated content") }
        try readFields(content, into: &receipt)
        return receipt
    }

    /// EncapsulatedContentInfo ::= SEQUENCE { eContentType OID, eContent [0] EXPLICIT OCTET STRING OPTIONAL }
    static func encapsulatedContent(_ node: ASN1Node) throws(AppReceiptError) -> [UInt8] {
        guard node.identifier == .sequence, case .constructed(let parts) = node.content else {
            throw .notSignedData("its encapsulated content is not a SEQUENCE")
        }
        var iterator = parts.makeIterator()
        guard let typeNode = iterator.next(), let type = try? ASN1ObjectIdentifier(berEncoded: typeNode) else {
            throw .notSignedData("its encapsulated content has no type")
        }
        guard type == data else { throw .notSignedData("its encapsulated content is of type \(type), not data (\(data))") }
        guard let explicit = iterator.next(), case .constructed(let wrapped) = explicit.content, let octets = wrapped.first(where: { _ in true }),
              let value = try? ASN1OctetString(berEncoded: octets) else {
            throw .notSignedData("the content is detached: the container carries no receipt")
        }
        return Array(value.bytes)
    }

    /// The receipt: SET OF SEQUENCE { type INTEGER, version INTEGER, value OCTET STRING }.
    static func readFields(_ bytes: [UInt8], into receipt: inout AppReceipt) throws(AppReceiptError) {
        var node: ASN1Node
        do {
            node = try BER.parse(bytes)
            // Xcode's receipts wrap the SET in one more OCTET STRING.
            if node.identifier == .octetString, let inner = try? ASN1OctetString(berEncoded: node) { node = try BER.parse(inner.bytes) }
        } catch {
            if isTruncation(error) { throw .truncated(bytes: bytes.count) }
            throw .notAReceipt("its content (\(bytes.count) bytes) is not ASN.1")
        }
        guard node.identifier == .set, case .constructed(let attributes) = node.content else {
            throw .notAReceipt("its content is an ASN.1 \(name(node.identifier)), not the SET of a receipt's fields")
        }
        var count = 0
        for attribute in attributes {
            count += 1
            guard let (type, value) = field(attribute) else {
                throw .notAReceipt("field \(count) is not a receipt field (type, version, value)")
            }
            do {
                switch type {
                case 0: receipt.receiptType = try string(value)
                case 1: receipt.appItemId = try integer(value)
                case 2: receipt.bundleId = try string(value)
                case 3: receipt.applicationVersion = try string(value)
                case 4: receipt.opaqueValue = Data(value)
                case 5: receipt.sha1Hash = Data(value)
                case 12: receipt.creationDate = try date(value)
                case 17: receipt.inAppPurchases.append(try inAppPurchase(value, index: receipt.inAppPurchases.count + 1, problems: &receipt.problems))
                case 18: receipt.originalPurchaseDate = try date(value)
                case 19: receipt.originalApplicationVersion = try string(value)
                case 21: receipt.expirationDate = try date(value)
                default: receipt.otherFieldTypes.append(type)
                }
            } catch let problem as FieldProblem {
                receipt.problems.append("field \(type) (\(fieldName(type))): \(problem.text)")
            } catch let error as AppReceiptError {
                throw error
            } catch {
                receipt.problems.append("field \(type) (\(fieldName(type))): \(error)")
            }
        }
    }

    static func inAppPurchase(_ bytes: ArraySlice<UInt8>, index: Int, problems: inout [String]) throws -> InAppPurchaseReceipt {
        guard let node = try? BER.parse(bytes), node.identifier == .set, case .constructed(let attributes) = node.content else {
            throw FieldProblem("in-app purchase \(index) is not a SET of fields")
        }
        var purchase = InAppPurchaseReceipt()
        for attribute in attributes {
            guard let (type, value) = field(attribute) else { throw FieldProblem("in-app purchase \(index) has an entry that is not a receipt field") }
            do {
                switch type {
                case 1701: purchase.quantity = try integer(value)
                case 1702: purchase.productId = try string(value)
                case 1703: purchase.transactionId = try string(value)
                case 1704: purchase.purchaseDate = try date(value)
                case 1705: purchase.originalTransactionId = try string(value)
                case 1706: purchase.originalPurchaseDate = try date(value)
                case 1708: purchase.expiresDate = try date(value)
                case 1711: purchase.webOrderLineItemId = try integer(value).map(String.init)
                case 1712: purchase.cancellationDate = try date(value)
                case 1713: purchase.isTrialPeriod = try integer(value).map { $0 != 0 }
                case 1719: purchase.isInIntroOfferPeriod = try integer(value).map { $0 != 0 }
                case 1721: purchase.promotionalOfferId = try string(value)
                default: purchase.otherFieldTypes.append(type)
                }
            } catch let problem as FieldProblem {
                problems.append("in-app purchase \(index), field \(type) (\(fieldName(type))): \(problem.text)")
            }
        }
        return purchase
    }

    /// The type and the value's bytes of one attribute SEQUENCE.
    static func field(_ node: ASN1Node) -> (type: Int, value: ArraySlice<UInt8>)? {
        guard node.identifier == .sequence, case .constructed(let parts) = node.content else { return nil }
        var iterator = parts.makeIterator()
        guard let typeNode = iterator.next(), let type = try? Int(berEncoded: typeNode), let versionNode = iterator.next(),
              (try? Int(berEncoded: versionNode)) != nil, let valueNode = iterator.next(),
              let value = try? ASN1OctetString(berEncoded: valueNode) else { return nil }
        return (type, value.bytes)
    }

    struct FieldProblem: Error {
        let text: String
        init(_ text: String) { self.text = text }
    }

    /// A UTF8String (or IA5String); nil for an empty one.
    static func string(_ bytes: ArraySlice<UInt8>) throws -> String? {
        guard let node = try? BER.parse(bytes) else { throw FieldProblem("not ASN.1") }
        let text: String
        if node.identifier == .utf8String, let value = try? ASN1UTF8String(berEncoded: node) {
            text = String(decoding: value.bytes, as: UTF8.self)
        } else if node.identifier == .ia5String, let value = try? ASN1IA5String(berEncoded: node) {
            text = String(decoding: value.bytes, as: UTF8.self)
        } else {
            throw FieldProblem("an ASN.1 \(name(node.identifier)) where a string belongs")
        }
        return text.isEmpty ? nil : text
    }

    static func integer(_ bytes: ArraySlice<UInt8>) throws -> Int64? {
        guard let node = try? BER.parse(bytes), node.identifier == .integer else { throw FieldProblem("not an INTEGER") }
        guard let value = try? Int64(berEncoded: node) else { throw FieldProblem("an INTEGER too large for 64 bits") }
        return value
    }

    /// An IA5String of RFC 3339 ("2013-08-01T07:00:00Z", fractions allowed); nil for an empty one.
    static func date(_ bytes: ArraySlice<UInt8>) throws -> Date? {
        guard let node = try? BER.parse(bytes), node.identifier == .ia5String, let value = try? ASN1IA5String(berEncoded: node) else {
            throw FieldProblem("not an IA5String date")
        }
        let text = String(decoding: value.bytes, as: UTF8.self)
        if text.isEmpty { return nil }
        let plain = ISO8601DateFormatter()
        let fractional = ISO8601DateFormatter()
        fractional.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        guard let date = plain.date(from: text) ?? fractional.date(from: text) else { throw FieldProblem("\"\(text.prefix(40))\" is not an RFC 3339 date") }
        return date
    }

    static func fieldName(_ type: Int) -> String {
        switch type {
        case 0: return "receipt type"
        case 1: return "app item ID"
        case 2: return "bundle ID"
        case 3: return "app version"
        case 4: return "opaque value"
        case 5: return "SHA-1 hash"
        case 12: return "receipt creation date"
        case 17: return "in-app purchase receipt"
        case 18: return "original purchase date"
        case 19: return "original app version"
        case 21: return "expiration date"
        case 1701: return "quantity"
        case 1702: return "product ID"
        case 1703: return "transaction ID"
        case 1704: return "purchase date"
        case 1705: return "original transaction ID"
        case 1706: return "original purchase date"
        case 1708: return "subscription expiration date"
        case 1711: return "web order line item ID"
        case 1712: return "cancellation date"
        case 1713: return "trial period"
        case 1719: return "introductory offer period"
        case 1721: return "promotional offer ID"
        default: return "not read"
        }
    }

    static func isTruncation(_ error: any Error) -> Bool {
        (error as? ASN1Error)?.code == .truncatedASN1Field
    }

    static func name(_ identifier: ASN1Identifier) -> String {
        switch identifier {
        case .sequence: return "SEQUENCE"
        case .set: return "SET"
        case .integer: return "INTEGER"
        case .octetString: return "OCTET STRING"
        case .objectIdentifier: return "OBJECT IDENTIFIER"
        case .utf8String: return "UTF8String"
        case .ia5String: return "IA5String"
        case .null: return "NULL"
        case .boolean: return "BOOLEAN"
        default: return "field with tag \(identifier.tagNumber)"
        }
    }

    static func hex(_ bytes: ArraySlice<UInt8>) -> String {
        bytes.map { String(format: "%02X", $0) }.joined(separator: " ")
    }
}
