import Foundation

/// One JSON object on one line, keys sorted: what `listen --json` and `received --follow --json` print per arrival.
enum JSONLine {
    static func render(_ object: [String: Any]) -> String {
        guard let data = try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes]) else { return "{}" }
        return String(decoding: data, as: UTF8.self)
    }
}
