import Foundation
import Synchronization

/// A command's `--json` document that also reads as rows of a CSV file, for bulk runs written
/// as CSV: one row per record it lists (a transaction, a subscription), none when it lists none.
protocol CSVRecords {
    static var csvColumns: [String] { get }
    var csvRows: [[String]] { get }
}

/// Keeps the document a command emits for one ID of a bulk run, as a compact JSON object and,
/// when the document has them, its CSV rows.
final class DocumentCapture: Sendable {
    struct Document: Sendable {
        var json: String
        var csvRows: [[String]]?
    }

    private let documents = Mutex<[Document]>([])

    func keep<Document: Encodable>(_ document: Document) {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let json = (try? encoder.encode(document)).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
        let rows = (document as? any CSVRecords)?.csvRows
        documents.withLock { $0.append(DocumentCapture.Document(json: json, csvRows: rows)) }
    }

    /// The last document kept (a command emits one).
    var last: Document? { documents.withLock { $0.last } }
}
