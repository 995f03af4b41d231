import AppStoreServerAPI
import DeskCore
import Foundation

/// Writes command results: tables for people, stable JSON for scripts.
struct Printer {
    let json: Bool

    func text(_ text: String) {
        guard !json else { return }
        print(text)
    }

    /// The command's document as one JSON object: keys sorted, pretty-printed, slashes as they are.
    /// Optional members are left out when nil (`encodeIfPresent`), so no field is ever `null`;
    /// dates are members of their own, written as `DatePair`s.
    func emit<Document: Encodable>(_ document: Document) {
        guard json else { return }
        print(Self.render(document))
    }

    static func render<Document: Encodable>(_ document: Document) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes]
        guard let data = try? encoder.encode(document) else { return "{}" }
        return String(decoding: data, as: UTF8.self)
    }
}

/// A date as the JSON pair `name` (ISO 8601) and `nameMs` (epoch milliseconds): a record keeps
/// both as members of its own, set together from one date, both absent when the date is.
///
///     (purchaseDate, purchaseDateMs) = DatePair.of(transaction.purchaseDate)
enum DatePair {
    static func of(_ date: Date?) -> (iso: String?, ms: Int64?) {
        guard let date else { return (nil, nil) }
        return (DisplayFormat.iso(date), date.epochMilliseconds)
    }
}

// The untyped documents of the commands not yet written as `Encodable` types.
extension Printer {
    func emit(_ object: [String: Any?]) {
        guard json else { return }
        print(Self.render(object))
    }

    static func render(_ object: [String: Any?]) -> String {
        let cleaned = clean(object)
        guard let data = try? JSONSerialization.data(withJSONObject: cleaned, options: [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes]),
              let text = String(data: data, encoding: .utf8) else { return "{}" }
        return text
    }

    private static func clean(_ value: Any?) -> Any {
        switch value {
        case let dictionary as [String: Any?]:
            var out: [String: Any] = [:]
            for (key, item) in dictionary {
                guard let item else { continue }
                if case Optional<Any>.none = item as Any? { continue }
                out[key] = clean(item)
            }
            return out
        case let array as [Any?]: return array.compactMap { $0 }.map { clean($0) }
        case let date as Date: return DisplayFormat.iso(date)
        case .some(let other): return other
        case .none: return NSNull()
        }
    }

    static func date(_ name: String, _ date: Date?) -> [String: Any?] {
        guard let date else { return [:] }
        return [name: DisplayFormat.iso(date), name + "Ms": date.epochMilliseconds]
    }
}

extension Dictionary where Key == String, Value == Any? {
    mutating func merge(_ other: [String: Any?]) {
        for (key, value) in other { self[key] = value }
    }
}
