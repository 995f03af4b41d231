import AppStoreServerAPI
import DeskCore
import Foundation

/// Writes command results: tables for people, stable JSON for scripts.
struct Printer {
    let json: Bool
    /// Where a bulk run keeps each ID's document instead of printing it (text is left out).
    var capture: DocumentCapture?

    init(json: Bool, capture: DocumentCapture? = nil) {
        self.json = json
        self.capture = capture
    }

    /// Written at once, not through stdio's buffer: into a file or a pipe, a Ctrl-C (which ends a
    /// command at once outside its long work) would otherwise take lines already printed with it,
    /// such as the token of a test notification that was requested.
    func text(_ text: String) {
        guard !json, capture == nil else { return }
        StandardStreams.output(Data((text + "\n").utf8))
    }

    /// The command's document as one JSON object: keys sorted, pretty-printed, slashes as they are.
    /// Optional members are left out when nil (`encodeIfPresent`), so no field is ever `null`;
    /// dates are members of their own, written as `DatePair`s.
    func emit<Document: Encodable>(_ document: Document) {
        if let capture { return capture.keep(document) }
        guard json else { return }
        StandardStreams.output(Data((Self.render(document) + "\n").utf8))
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

