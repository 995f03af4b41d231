import Foundation

/// An append-only record of every write: the intent is written and flushed to disk before the
/// request, the outcome after it. An intent without an outcome means the process died in between.
public final class AuditLedger: @unchecked Sendable {
    public struct Entry: Codable, Sendable, Equatable {
        public var time: Date
        public var event: String
        public var requestIdentifier: String
        public var method: String
        public var path: String
        public var body: String?
        public var profile: String
        public var environment: String
        public var outcome: String?
    }

    public let path: String
    private let lock = NSLock()

    public init(path: String) throws {
        self.path = path
        let folder = (path as NSString).deletingLastPathComponent
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        if !FileManager.default.fileExists(atPath: path) {
            guard FileManager.default.createFile(atPath: path, contents: nil, attributes: [.posixPermissions: 0o600]) else {
                throw LedgerError("cannot create the audit ledger at \(path)")
            }
        }
    }

    public func recordIntent(_ entry: Entry) throws {
        var intent = entry
        intent.event = "intent"
        intent.outcome = nil
        try append(intent)
    }

    public func recordOutcome(_ entry: Entry, outcome: String) throws {
        var done = entry
        done.event = "outcome"
        done.outcome = outcome
        done.time = Date()
        try append(done)
    }

    private func append(_ entry: Entry) throws {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        var line = try encoder.encode(entry)
        line.append(0x0A)
        lock.lock()
        defer { lock.unlock() }
        guard let handle = FileHandle(forWritingAtPath: path) else { throw LedgerError("cannot open the audit ledger at \(path)") }
        defer { try? handle.close() }
        try handle.seekToEnd()
        try handle.write(contentsOf: line)
        // The intent must survive a crash before the request is sent.
        try handle.synchronize()
    }

    public func entries() -> [Entry] {
        guard let data = FileManager.default.contents(atPath: path) else { return [] }
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return data.split(separator: 0x0A).compactMap { try? decoder.decode(Entry.self, from: Data($0)) }
    }

    /// Intents that never got an outcome.
    public func unfinished() -> [Entry] {
        let all = entries()
        let finished = Set(all.filter { $0.event == "outcome" }.map(\.requestIdentifier))
        return all.filter { $0.event == "intent" && !finished.contains($0.requestIdentifier) }
    }
}

public struct LedgerError: Error, CustomStringConvertible, Sendable {
    public let description: String
    public init(_ description: String) { self.description = description }
}
