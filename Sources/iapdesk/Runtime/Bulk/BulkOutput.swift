import AppStoreServerAPI
import ArgumentParser
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// What a bulk run learned about one ID: the command's document, its failure, or both (a listing
/// that stopped part-way is both).
struct BulkAnswer: Sendable {
    struct Failure: Sendable, Equatable {
        var message: String
        var hint: String?
        var status: ExitStatus
        /// Apple's error code, when Apple answered with one.
        var appleCode: Int64?

        init(message: String, hint: String? = nil, status: ExitStatus, appleCode: Int64? = nil) {
            (self.message, self.hint, self.status, self.appleCode) = (message, hint, status, appleCode)
        }

        init(_ error: any Error) {
            if let known = CLIError.known(error) {
                self.init(message: known.message, hint: known.hint, status: known.status, appleCode: known.serverCode?.rawValue)
            } else if let validation = error as? ValidationError {
                self.init(message: validation.message, status: .usage)
            } else {
                self.init(message: String(describing: error), status: .failure)
            }
        }

        /// The status a CSV file's outcome word stands for (an earlier run's record read back).
        static func status(outcome: String) -> ExitStatus {
            ExitStatus.allCases.first { Failure(message: "", status: $0).outcome == outcome } ?? .failure
        }

        /// One word for a CSV cell and the progress line.
        var outcome: String {
            switch status {
            case .notFound: return "not-found"
            case .usage: return "invalid"
            case .unavailable: return "unavailable"
            case .unauthorized: return "unauthorized"
            case .rateLimited: return "rate-limited"
            case .unverified: return "unverified"
            case .rejected: return "rejected"
            case .interrupted: return "interrupted"
            default: return "failed"
            }
        }
    }

    var document: DocumentCapture.Document?
    var failure: Failure?
}

/// How a bulk run's records are written: JSON lines (every field) or CSV (the main columns).
enum BulkFormat: String, CaseIterable {
    case jsonl, csv
}

/// What the records an earlier run wrote say: the input lines they hold and how each ended.
struct EarlierRecords {
    var lines: Set<Int> = []
    var ok = 0
    var failed: [String: Int] = [:]
    var firstFailure: ExitStatus?

    mutating func add(line: Int, failure: ExitStatus?) {
        guard lines.insert(line).inserted else { return }
        guard let failure else { return ok += 1 }
        failed[BulkAnswer.Failure(message: "", status: failure).outcome, default: 0] += 1
        if failure != .notFound, firstFailure == nil { firstFailure = failure }
    }
}

/// Writes one record per input line, in input order, to standard output or a file; reads back a
/// file it wrote before, so `--resume` knows which lines are done and asks Apple only for the rest.
final class BulkOutput {
    let format: BulkFormat
    let columns: [String]
    private let handle: FileHandle
    private let path: String?
    /// Set once a write failed: standard output closed (`| head`), or the file could not be written.
    private(set) var closed = false
    /// Why a write to the file failed (nil for a closed pipe, which is the reader's choice).
    private(set) var writeFailure: String?

    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    private init(format: BulkFormat, columns: [String], handle: FileHandle, path: String?) {
        (self.format, self.columns, self.handle, self.path) = (format, columns, handle, path)
    }

    var header: [String] { ["line", "id", "outcome", "error"] + columns }

    /// Opens the output: standard output, a new file, or (with `resume`) the file of an earlier
    /// run of the same input, giving the input lines it already holds. A file is never overwritten.
    static func open(
        path: String?, format: BulkFormat, columns: [String], resume: Bool, input: BulkInput
    ) throws -> (output: BulkOutput, done: EarlierRecords) {
        guard let path, path != "-" else {
            let output = BulkOutput(format: format, columns: columns, handle: .standardOutput, path: nil)
            if format == .csv { output.write(CSVRows.line(output.header) + "\n") }
            return (output, EarlierRecords())
        }
        let manager = FileManager.default
        let existing = manager.contents(atPath: path)
        if existing?.isEmpty == false && !resume {
            throw Failure(description: "--output \(path) already exists: add --resume to continue the run that wrote it, or choose another file.")
        }
        if existing == nil {
            guard manager.createFile(atPath: path, contents: nil) else {
                throw Failure(description: "--output \(path) cannot be created.")
            }
        }
        guard let handle = FileHandle(forUpdatingAtPath: path) else {
            throw Failure(description: "--output \(path) cannot be written.")
        }
        let output = BulkOutput(format: format, columns: columns, handle: handle, path: path)
        var done = EarlierRecords()
        if let existing, !existing.isEmpty {
            // A run stopped mid-write leaves part of a line: it is dropped and asked again.
            let whole = existing.lastIndex(of: UInt8(ascii: "\n")).map { existing.startIndex...$0 }.map { existing[$0] } ?? Data()
            try handle.truncate(atOffset: UInt64(whole.count))
            done = try output.linesDone(in: String(decoding: whole, as: UTF8.self), input: input)
        }
        try handle.seekToEnd()
        if format == .csv && done.lines.isEmpty && (existing?.isEmpty ?? true) {
            output.write(CSVRows.line(output.header) + "\n")
        }
        return (output, done)
    }

    /// The input lines a file written by an earlier run holds, after checking it was written from
    /// this input in this format.
    private func linesDone(in text: String, input: BulkInput) throws -> EarlierRecords {
        let ids = Dictionary(input.items.map { ($0.line, $0.id) }, uniquingKeysWith: { first, _ in first })
        var done = EarlierRecords()
        func check(_ line: Int, _ id: String, at row: Int, failure: ExitStatus?) throws {
            guard let expected = ids[line] else {
                throw Failure(description: "--output \(path ?? "") line \(row) is for input line \(line), which holds no ID now: the input changed since that run. Choose another --output, or drop --resume to start over in a new file.")
            }
            guard expected == id else {
                throw Failure(description: "--output \(path ?? "") line \(row) says input line \(line) is \(id), but it is \(expected) now: the file was written from other input. Choose another --output for this input.")
            }
            done.add(line: line, failure: failure)
        }
        switch format {
        case .jsonl:
            for (offset, line) in text.split(separator: "\n", omittingEmptySubsequences: true).enumerated() {
                guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                      let number = object["line"] as? Int, let id = object["id"] as? String
                else {
                    throw Failure(description: "--output \(path ?? "") line \(offset + 1) is not a record of a bulk run in JSON lines (was it written as CSV? then add --format csv).")
                }
                let exit = (object["error"] as? [String: Any])?["exit"] as? Int
                let failure = (object["ok"] as? Bool) == true ? nil : ExitStatus(rawValue: Int32(exit ?? 1)) ?? .failure
                try check(number, id, at: offset + 1, failure: failure)
            }
        case .csv:
            let rows = CSVRows.parse(text).filter { !$0.isBlank }
            guard let first = rows.first else { return done }
            guard first.fields == header else {
                throw Failure(description: "--output \(path ?? "") does not start with this command's CSV header (\(header.prefix(4).joined(separator: ",")),…): it was written by another command or as JSON lines.")
            }
            for row in rows.dropFirst() {
                guard row.fields.count >= 3, let number = Int(row.fields[0]) else {
                    throw Failure(description: "--output \(path ?? "") line \(row.line) is not a record of a bulk run.")
                }
                let outcome = row.fields[2]
                try check(number, row.fields[1], at: row.line, failure: outcome == "ok" ? nil : BulkAnswer.Failure.status(outcome: outcome))
            }
        }
        return done
    }

    /// Writes the record of one input line.
    func write(_ item: BulkInput.Item, _ answer: BulkAnswer) {
        switch format {
        case .jsonl: write(Self.jsonLine(item, answer) + "\n")
        case .csv: write(csvLines(item, answer))
        }
    }

    static func jsonLine(_ item: BulkInput.Item, _ answer: BulkAnswer) -> String {
        var members: [String] = []
        if let failure = answer.failure {
            var error = ["\"exit\":\(failure.status.rawValue)", "\"message\":\(quoted(failure.message))", "\"outcome\":\(quoted(failure.outcome))"]
            if let code = failure.appleCode { error.insert("\"appleCode\":\(code)", at: 0) }
            if let hint = failure.hint { error.insert("\"hint\":\(quoted(hint))", at: error.count - 1) }
            members.append("\"error\":{\(error.joined(separator: ","))}")
        }
        members.append("\"id\":\(quoted(item.id))")
        members.append("\"line\":\(item.line)")
        members.append("\"ok\":\(answer.failure == nil)")
        if let document = answer.document { members.append("\"result\":\(document.json)") }
        return "{" + members.joined(separator: ",") + "}"
    }

    private func csvLines(_ item: BulkInput.Item, _ answer: BulkAnswer) -> String {
        let outcome = answer.failure?.outcome ?? "ok"
        let error = (answer.failure?.message ?? "").replacingOccurrences(of: "\n", with: " ")
        let lead = [String(item.line), item.id, outcome, error]
        let rows = answer.document?.csvRows ?? []
        let blank = Array(repeating: "", count: columns.count)
        return (rows.isEmpty ? [blank] : rows).map { CSVRows.line(lead + $0.map { $0.replacingOccurrences(of: "\n", with: " ") }) + "\n" }.joined()
    }

    private static func quoted(_ text: String) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.withoutEscapingSlashes]
        return (try? encoder.encode(text)).map { String(decoding: $0, as: UTF8.self) } ?? "\"\""
    }

    /// Writes all of `text`, or marks the output closed: a reader gone (`| head`) ends the run
    /// quietly, any other failure (a full disk) is said.
    private func write(_ text: String) {
        guard !closed else { return }
        if !StandardStreams.write(handle.fileDescriptor, Data(text.utf8)) {
            if errno != EPIPE { writeFailure = "\(path ?? "standard output") could not be written: \(String(cString: strerror(errno)))" }
            closed = true
        }
    }

    func close() {
        if path != nil { try? handle.close() }
    }
}
