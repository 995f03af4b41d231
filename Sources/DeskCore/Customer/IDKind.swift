import Foundation

/// What a typed ID is, judged by its shape. An app transaction ID has a transaction ID's shape;
/// Apple tells them apart (Get Transaction Info answers 4000048 for it).
public enum IDKind: Sendable, Equatable {
    case orderId(String)
    case transactionId(String)
    /// The UUID the app set as appAccountToken (its own user ID), in lowercase.
    case appAccountToken(String)
    case invalid(String)

    /// "Order ID: MK5TTTVWJH" as pasted from a receipt, or "#2000…": the ID without its label.
    static func withoutLabel(_ text: String) -> String {
        var rest = Substring(text)
        for label in [
            "order id", "order", "app transaction id", "app transaction", "transaction id", "original transaction id", "transaction",
            "app account token", "appaccounttoken", "account token", "account id", "account", "user id", "id",
        ] {
            if rest.lowercased().hasPrefix(label) {
                let after = rest.dropFirst(label.count)
                if after.first == ":" || after.first == " " || after.first == "#" { rest = after; break }
            }
        }
        return String(rest.drop { $0 == ":" || $0 == "#" || $0 == " " }).trimmingCharacters(in: .whitespaces)
    }

    /// A UUID as apps show it: with dashes, in braces, or as 32 hex digits; in lowercase with dashes.
    static func accountToken(_ text: String) -> String? {
        var hex = text
        if hex.hasPrefix("{") && hex.hasSuffix("}") { hex = String(hex.dropFirst().dropLast()) }
        // Digits alone are a transaction ID, however long.
        if hex.count == 32, hex.allSatisfy(\.isHexDigit), hex.contains(where: \.isLetter) {
            let c = Array(hex)
            hex = [c[0..<8], c[8..<12], c[12..<16], c[16..<20], c[20..<32]].map { String($0) }.joined(separator: "-")
        }
        guard hex.count == 36, UUID(uuidString: hex) != nil else { return nil }
        return hex.lowercased()
    }

    /// Order IDs mix capital letters and digits (MK5TTTVWJH); transaction IDs are digits only.
    public static func classify(_ raw: String) -> IDKind {
        let text = withoutLabel(raw.trimmingCharacters(in: .whitespacesAndNewlines))
        guard !text.isEmpty else { return .invalid("Type an order ID (such as MK5TTTVWJH), a transaction ID or the app's account ID (a UUID).") }
        if let token = accountToken(text) { return .appAccountToken(token) }
        let shown: String = text.count > 24 ? String(text.prefix(20)) + "…" : text
        guard text.count <= 40 else {
            return .invalid("\"\(shown)\" is \(text.count) characters: order IDs have 6 to 20, transaction IDs at most 40, account IDs (UUIDs) 36.")
        }
        if text.allSatisfy(\.isASCII), text.allSatisfy(\.isNumber) { return .transactionId(text) }
        let upper = text.uppercased()
        if upper.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber) }) {
            if (6...20).contains(upper.count) { return .orderId(upper) }
            return .invalid("\"\(shown)\" has \(upper.count) letters and digits: an order ID has 6 to 20 (such as MK5TTTVWJH), a transaction ID digits only.")
        }
        return .invalid("\"\(shown)\" has characters no ID has: order IDs are letters and digits (such as MK5TTTVWJH), transaction IDs digits only, account IDs UUIDs.")
    }
}
