import AppStoreServerAPI
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

    public let path: String

    public init(path: String) throws {
        self.path = path
        let folder = (path as NSString).deletingLastPathComponent
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let fd = open(path, O_WRONLY | O_CREAT | O_APPEND, 0o600)
        guard fd >= 0 else { throw LedgerError("cannot create the audit ledger at \(path): \(String(cString: strerror(errno)))") }
        close(fd)
    }

    /// Appends one line and flushes it to disk before returning: an intent must survive a crash
    /// that happens while its request is on the wire. One write(2) on an O_APPEND descriptor under
    /// an exclusive lock, so the console and a command running beside it never interleave lines.
    public func append(_ entry: Entry) throws {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        var line = try encoder.encode(entry)
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

    /// Every readable line, in order; `unreadable` counts lines that are not entries (a line cut
    /// short by a crash while it was written).
    public func read() -> (entries: [Entry], unreadable: Int) {
        guard let data = FileManager.default.contents(atPath: path) else { return ([], 0) }
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        var entries: [Entry] = []
        var unreadable = 0
        for line in data.split(separator: 0x0A) where !line.isEmpty {
            if let entry = try? decoder.decode(Entry.self, from: Data(line)) { entries.append(entry) } else { unreadable += 1 }
        }
        return (entries, unreadable)
    }

    public func entries() -> [Entry] { read().entries }

    /// Every write, with its lines folded into its present state, oldest first.
    public func writes() -> [WriteRecord] {
        WriteRecord.fold(entries())
    }

    /// Writes whose outcome is not known: sent (or being sent) with no answer that says either way.
    public func unresolved() -> [WriteRecord] {
        writes().filter { !$0.isResolved }
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
    case other

    init(method: String, path: String) {
        if path.hasPrefix("/inApps/v1/subscriptions/extend/mass") { self = .massExtend }
        else if path.hasPrefix("/inApps/v1/subscriptions/extend/") { self = .extend }
        else if path.contains("/transactions/consumption/") { self = .consumption }
        else if path.hasSuffix("/appAccountToken") { self = .appAccountToken }
        else if path.hasPrefix("/inApps/v1/transactions/") && path.hasSuffix("/finish") { self = .finishTransaction }
        else { self = .other }
    }
}
