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

    /// JSON with sorted keys; dates are written by callers as ISO 8601 plus milliseconds.
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

    /// Drops nil values so JSON never carries nulls for absent fields.
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

    /// A date as the JSON pair `name` (ISO 8601) and `nameMs` (epoch milliseconds).
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
