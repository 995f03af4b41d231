import Foundation

/// One JSON object on one line, keys sorted: what `listen --json` and `received --follow --json` print per arrival.
/// Optional members are left out when nil, as in the documents.
enum JSONLine {
    static func render<Line: Encodable>(_ line: Line) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        guard let data = try? encoder.encode(line) else { return "{}" }
        return String(decoding: data, as: UTF8.self)
    }
}
