import Foundation

/// A signed string found in pasted text.
public struct LocatedJWS: Sendable, Equatable {
    /// Where it was, as a JSON path: "$" for the text itself, "$.signedPayload",
    /// "$.data[0].lastTransactions[1].signedRenewalInfo".
    public let path: String
    /// The member it was found under ("signedRenewalInfo"), which tells what it holds.
    public let field: String?
    public let text: String
}

/// Finds the signed strings in whatever a user pastes: a bare JWS, a webhook body
/// `{"signedPayload": ...}`, or any JSON holding signed fields (an API response, a history page).
public enum SignedDataLocator {
    public enum Found: Sendable, Equatable {
        case signed([LocatedJWS])
        /// Nothing to verify, and why.
        case nothing(String)
    }

    public static func locate(_ text: String) -> Found {
        let trimmed = trimmed(text)
        guard let first = trimmed.utf8.first else { return .nothing("Nothing was pasted.") }
        // JSON starts with one of these; a JWS never does.
        guard first == UInt8(ascii: "{") || first == UInt8(ascii: "[") || first == UInt8(ascii: "\"") else {
            return .signed([LocatedJWS(path: "$", field: nil, text: trimmed)])
        }
        let document: JSONValue
        do {
            document = try JSONValue.parse(Data(trimmed.utf8))
        } catch {
            return .nothing("Not a JWS, and not valid JSON: \(error.reason).")
        }
        var found: [LocatedJWS] = []
        collect(document, path: "$", field: nil, into: &found)
        guard !found.isEmpty else {
            return .nothing("The JSON holds no signed data: no JWS string, and no member named signed… holding a string.")
        }
        return .signed(found)
    }

    /// Strings under a `signed…` member (Apple's names for signed data) or shaped like a compact JWS.
    private static func collect(_ value: JSONValue, path: String, field: String?, into found: inout [LocatedJWS]) {
        switch value {
        case .string(let text):
            if field?.hasPrefix("signed") == true || looksLikeJWS(text) {
                found.append(LocatedJWS(path: path, field: field, text: text))
            }
        case .array(let items):
            // Items of signedTransactions are transactions: they keep the array's member name.
            for (index, item) in items.enumerated() {
                collect(item, path: "\(path)[\(index)]", field: field, into: &found)
            }
        case .object(let members):
            for member in members {
                collect(member.value, path: path + component(member.key), field: member.key, into: &found)
            }
        case .null, .bool, .number:
            break
        }
    }

    private static func component(_ key: String) -> String {
        let plain = !key.isEmpty && key.unicodeScalars.allSatisfy { $0.isASCII && ($0.properties.isAlphabetic || $0.properties.numericType != nil || $0 == "_") }
        return plain ? "." + key : "[" + JSONValue.quote(key) + "]"
    }

    /// Three non-empty base64url parts, the first a JSON object ("eyJ" is base64 of `{"`).
    static func looksLikeJWS(_ text: String) -> Bool {
        var parts = 1
        var partLength = 0
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "."):
                guard partLength > 0 else { return false }
                parts += 1
                partLength = 0
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                 UInt8(ascii: "-"), UInt8(ascii: "_"):
                partLength += 1
            default:
                return false
            }
        }
        return parts == 3 && partLength > 0 && text.utf8.starts(with: "eyJ".utf8)
    }

    /// Without surrounding whitespace; byte by byte, as pastes can be large.
    private static func trimmed(_ text: String) -> String {
        func isSpace(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 }
        let utf8 = text.utf8
        guard let start = utf8.firstIndex(where: { !isSpace($0) }), let end = utf8.lastIndex(where: { !isSpace($0) }) else { return "" }
        return String(text[start...end])
    }
}
