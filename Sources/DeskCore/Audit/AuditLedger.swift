import AppStoreServerAPI
import DeskStore
import Foundation

/// The append-only record of every write, from the console and the command line alike: the intent
/// is written and flushed to disk before the request, each re-send before it goes, the outcome
/// after. Lines are only ever added; a write's state is read by folding its lines in order.
public final class AuditLedger: Sendable {
    /// What a line records.
    public enum Event: String, Codable, Sendable {
        /// About to send for the first time.
        case intent
        /// About to send again with the same request identifier.
        case resend
        /// What the send ended with.
        case outcome
        /// Someone checked and closed a write whose outcome was unknown.
        case resolved
    }

    /// How a send ended, as far as this tool can know.
    public enum OutcomeStatus: String, Codable, Sendable {
        /// Apple answered success.
        case applied
        /// Apple answered an error: nothing was changed.
        case refused
        /// Not sent (the ledger, the key or the input stopped it before the network).
        case notSent = "not-sent"
        /// No answer that says either way: it may have been applied.
        case unknown
    }

    public struct Entry: Codable, Sendable, Equatable {
        public var time: Date
        public var event: Event
        /// Apple's requestIdentifier for extensions; a write ID of ours for the others.
        public var requestIdentifier: String
        /// extend, mass-extend, consumption, app-account-token.
        public var write: String
        public var method: String
        public var path: String
        public var body: String?
        public var account: WriteAccount?
        /// The customer or object the write is for, in the words shown when it was confirmed.
        public var subject: String?
        public var source: WriteSource?
        public var agent: String?
        public var outcome: OutcomeStatus?
        public var detail: String?

        public init(
            time: Date, event: Event, requestIdentifier: String, write: String, method: String, path: String, body: String?,
            account: WriteAccount, subject: String?, source: WriteSource, agent: String, outcome: OutcomeStatus? = nil, detail: String? = nil
        ) {
            self.time = time
            self.event = event
            self.requestIdentifier = requestIdentifier
            self.write = write
            self.method = method
            self.path = path
            self.body = body
            self.account = account
            self.subject = subject
            self.source = source
            self.agent = agent
            self.outcome = outcome
            self.detail = detail
        }

        enum CodingKeys: String, CodingKey {
            case time, event, requestIdentifier, write, method, path, body, account, subject, source, agent, outcome, detail
            // Lines written before writes were keyed by account.
            case profile, environment
        }

        public init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: CodingKeys.self)
            time = try c.decode(Date.self, forKey: .time)
            event = try c.decode(Event.self, forKey: .event)
            requestIdentifier = try c.decode(String.self, forKey: .requestIdentifier)
            method = try c.decode(String.self, forKey: .method)
            path = try c.decode(String.self, forKey: .path)
            write = try c.decodeIfPresent(String.self, forKey: .write) ?? WriteKind(method: method, path: path).rawValue
            body = try c.decodeIfPresent(String.self, forKey: .body)
            account = try c.decodeIfPresent(WriteAccount.self, forKey: .account)
            subject = try c.decodeIfPresent(String.self, forKey: .subject)
            source = try c.decodeIfPresent(WriteSource.self, forKey: .source)
            agent = try c.decodeIfPresent(String.self, forKey: .agent)
            detail = try c.decodeIfPresent(String.self, forKey: .detail)
            if let status = try? c.decodeIfPresent(OutcomeStatus.self, forKey: .outcome) {
                outcome = status
            } else if let legacy = try? c.decodeIfPresent(String.self, forKey: .outcome) {
                // An earlier format kept the outcome as text only; "re-sent" was written before the
                // re-send was answered, so it proves nothing.
                outcome = legacy.hasPrefix("success") ? .applied : (legacy.hasPrefix("error: HTTP 4") ? .refused : .unknown)
                detail = detail ?? legacy
            }
            if account == nil, let profile = try c.decodeIfPresent(String.self, forKey: .profile) {
                // Legacy lines name a profile and an environment but no server, app or key: they match no session.
                detail = detail ?? "written before entries named their account (profile \(profile))"
                subject = subject ?? "legacy entry of profile \(profile)"
            }
        }

        public func encode(to encoder: any Encoder) throws {
            var c = encoder.container(keyedBy: CodingKeys.self)
            try c.encode(time, forKey: .time)
            try c.encode(event, forKey: .event)
            try c.encode(requestIdentifier, forKey: .requestIdentifier)
            try c.encode(write, forKey: .write)
            try c.encode(method, forKey: .method)
            try c.encode(path, forKey: .path)
            try c.encodeIfPresent(body, forKey: .body)
            try c.encodeIfPresent(account, forKey: .account)
            try c.encodeIfPresent(subject, forKey: .subject)
            try c.encodeIfPresent(source, forKey: .source)
            try c.encodeIfPresent(agent, forKey: .agent)
            try c.encodeIfPresent(outcome, forKey: .outcome)
            try c.encodeIfPresent(detail, forKey: .detail)
        }
    }

    /// Where the lines are kept.
    public enum Backing: Sendable {
        /// A JSON-lines file: the ledger before the store held it, and the demo's own.
        case file(path: String)
        /// The store: one agent's SQLite file, or a team's server shared by every agent.
        case store(any LedgerStore, location: String)
    }

    public let backing: Backing

    /// The ledger in a JSON-lines file, made (with its folder) when missing.
    public convenience init(path: String) throws {
        let folder = (path as NSString).deletingLastPathComponent
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let fd = open(path, O_WRONLY | O_CREAT | O_APPEND, 0o600)
        guard fd >= 0 else { throw LedgerError("cannot create the audit ledger at \(path): \(String(cString: strerror(errno)))") }
        close(fd)
        self.init(.file(path: path))
    }

    public init(_ backing: Backing) {
        self.backing = backing
    }

    /// The ledger in the store; a JSON-lines ledger kept before (`importing`) is copied into it the
    /// first time, line for line, and left as it was. An import that fails (a role that may only
    /// read, a file that cannot be read) leaves the file for a later start and is said, never
    /// keeping the ledger from being read.
    public static func inStore(_ store: any LedgerStore, location: String, importing legacyPath: String?) async -> (ledger: AuditLedger, importProblem: String?) {
        let ledger = AuditLedger(.store(store, location: location))
        guard let legacyPath, FileManager.default.fileExists(atPath: legacyPath) else { return (ledger, nil) }
        guard let data = FileManager.default.contents(atPath: legacyPath) else {
            return (ledger, "the audit ledger at \(legacyPath) cannot be read, so it was not imported into \(location)")
        }
        let lines = data.split(separator: 0x0A).filter { !$0.isEmpty }.map { Self.storeLine(Data($0)) }
        do {
            _ = try await store.importLedgerLines(lines, source: legacyPath)
            return (ledger, nil)
        } catch {
            return (ledger, "the audit ledger at \(legacyPath) was not imported into \(location) (\(error)); it is left as it was and tried again at the next start")
        }
    }

    /// Where the ledger is, for messages.
    public var location: String {
        switch backing {
        case .file(let path): return path
        case .store(_, let location): return location
        }
    }

    /// Appends one line, durable before this returns: an intent must survive a crash that happens
    /// while its request is on the wire.
    public func append(_ entry: Entry) async throws {
        let line = try Self.encode(entry)
        switch backing {
        case .file(let path):
            try Self.appendLine(line, to: path)
        case .store(let store, let location):
            do {
                try await store.appendLedgerLine(Self.storeLine(line, entry: entry))
            } catch {
                throw LedgerError("the audit ledger in \(location) could not be written: \(error)")
            }
        }
    }

    static func encode(_ entry: Entry) throws -> Data {
        let encoder = JSONEncoder()
        // Milliseconds: two agents' writes a moment apart must compare in the right order.
        encoder.dateEncodingStrategy = .custom { date, encoder in
            var container = encoder.singleValueContainer()
            try container.encode(InternetTime.string(from: date, fractional: true))
        }
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return try encoder.encode(entry)
    }

    /// A line for the store, with the fields it selects on read from the entry (or, for a line
    /// that is not an entry, left empty: it is kept as it was all the same).
    static func storeLine(_ line: Data, entry known: Entry? = nil) -> LedgerLine {
        let entry = known ?? (try? decoder().decode(Entry.self, from: line))
        return LedgerLine(
            time: entry?.time ?? Date(timeIntervalSince1970: 0), requestIdentifier: entry?.requestIdentifier ?? "", write: entry?.write ?? "",
            path: entry?.path ?? "", agent: entry?.agent, entry: line)
    }

    static func decoder() -> JSONDecoder {
        let decoder = JSONDecoder()
        // Lines of earlier versions have whole seconds.
        decoder.dateDecodingStrategy = .custom { decoder in
            let text = try decoder.singleValueContainer().decode(String.self)
            guard let date = InternetTime.date(from: text) else {
                throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "not an ISO 8601 time: \(text)"))
            }
            return date
        }
        return decoder
    }

    /// One write(2) on an O_APPEND descriptor under an exclusive lock, so the console and a
    /// command running beside it never interleave lines; flushed before returning.
    private static func appendLine(_ encoded: Data, to path: String) throws {
        var line = encoded
        line.append(0x0A)
        let fd = open(path, O_RDWR | O_APPEND)
        guard fd >= 0 else { throw LedgerError("cannot open the audit ledger at \(path): \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        guard flock(fd, LOCK_EX) == 0 else { throw LedgerError("cannot lock the audit ledger at \(path)") }
        defer { flock(fd, LOCK_UN) }
        // A line cut short by a crash would swallow this one: start on a line of its own.
        if Self.endsMidLine(fd) { line.insert(0x0A, at: 0) }
        let written = line.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        guard written == line.count else { throw LedgerError("the audit ledger at \(path) could not be written (disk full?)") }
        guard fsync(fd) == 0 else { throw LedgerError("the audit ledger at \(path) could not be flushed to disk") }
    }

    private static func endsMidLine(_ fd: Int32) -> Bool {
        var status = stat()
        guard fstat(fd, &status) == 0, status.st_size > 0 else { return false }
        var last: UInt8 = 0
        return pread(fd, &last, 1, status.st_size - 1) == 1 && last != 0x0A
    }

    /// Runs `body` holding the lock of `key` (what a write writes to) against every other process
    /// on this ledger: other agents' too when the ledger is a team's.
    public func exclusively<T: Sendable>(_ key: String, _ body: @Sendable () async throws -> T) async throws -> T {
        switch backing {
        case .file(let path): return try await FileLock.withLock(path + ".lock", body)
        case .store(let store, _): return try await store.withWriteLock(key, body)
        }
    }

    /// Every readable line, in order; `unreadable` counts lines that are not entries (a line cut
    /// short by a crash while it was written).
    public func read() async throws -> (entries: [Entry], unreadable: Int) {
        let lines: [Data]
        switch backing {
        case .file(let path):
            guard let data = FileManager.default.contents(atPath: path) else { return ([], 0) }
            lines = data.split(separator: 0x0A).filter { !$0.isEmpty }.map { Data($0) }
        case .store(let store, let location):
            do {
                lines = try await store.ledgerLines().map(\.entry)
            } catch {
                throw LedgerError("the audit ledger in \(location) cannot be read: \(error)")
            }
        }
        let decoder = Self.decoder()
        var entries: [Entry] = []
        var unreadable = 0
        for line in lines {
            if let entry = try? decoder.decode(Entry.self, from: line) { entries.append(entry) } else { unreadable += 1 }
        }
        return (entries, unreadable)
    }

    public func entries() async throws -> [Entry] { try await read().entries }

    /// Every write, with its lines folded into its present state, oldest first.
    public func writes() async throws -> [WriteRecord] {
        WriteRecord.fold(try await entries())
    }

    /// Writes whose outcome is not known: sent (or being sent) with no answer that says either way.
    public func unresolved() async throws -> [WriteRecord] {
        try await writes().filter { !$0.isResolved }
    }
}

public struct LedgerError: Error, CustomStringConvertible, Sendable {
    public let description: String
    public init(_ description: String) { self.description = description }
}

/// The kinds of write iapdesk makes.
public enum WriteKind: String, Sendable, CaseIterable {
    case extend
    case massExtend = "mass-extend"
    case consumption
    case appAccountToken = "app-account-token"
    case finishTransaction = "finish-transaction"
    /// Retention Messaging: images, messages, default messages, the realtime URL, performance tests.
    case retention
    /// One of the Advanced Commerce API's server actions (cancel, revoke, refund, metadata, price, migrate).
    case advancedCommerce = "advanced-commerce"
    case other

    init(method: String, path: String) {
        if path.hasPrefix("/inApps/v1/subscriptions/extend/mass") { self = .massExtend }
        else if path.hasPrefix("/inApps/v1/subscriptions/extend/") { self = .extend }
        else if path.contains("/transactions/consumption/") { self = .consumption }
        else if path.hasSuffix("/appAccountToken") { self = .appAccountToken }
        else if path.hasPrefix("/inApps/v1/transactions/") && path.hasSuffix("/finish") { self = .finishTransaction }
        else if path.hasPrefix("/inApps/v1/messaging/") { self = .retention }
        else if path.hasPrefix("/advancedCommerce/") { self = .advancedCommerce }
        else { self = .other }
    }
}
