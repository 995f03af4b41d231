import Foundation

/// Where the audit ledger of writes is kept when it lives in the store: one agent's SQLite file,
/// or a team's server where every agent sees every other's writes. Lines are only ever added.
public protocol LedgerStore: WriteLocking {
    /// Adds one line; durable when this returns (the line of an intent must survive a crash while
    /// its request is on the wire).
    func appendLedgerLine(_ line: LedgerLine) async throws
    /// Every line, in the order they were added.
    func ledgerLines() async throws -> [LedgerLine]
    /// Adds the lines of a JSON-lines ledger kept before the store held it, once per `source`
    /// (its path): nil when that source was imported already, else how many lines were added.
    func importLedgerLines(_ lines: [LedgerLine], source: String) async throws -> Int?
}

/// One line of the audit ledger: the entry as the ledger encoded it, and the fields other
/// queries select on.
public struct LedgerLine: Sendable, Equatable {
    public var time: Date
    public var requestIdentifier: String
    /// extend, mass-extend, consumption, ...
    public var write: String
    /// The endpoint's path: it names the subscription or transaction written to.
    public var path: String
    public var agent: String?
    /// The entry's JSON exactly as written (a line that could not be read is kept as it was).
    public var entry: Data

    public init(time: Date, requestIdentifier: String, write: String, path: String, agent: String?, entry: Data) {
        self.time = time
        self.requestIdentifier = requestIdentifier
        self.write = write
        self.path = path
        self.agent = agent
        self.entry = entry
    }
}

/// Held only around one write's send, so two agents cannot send a write to the same subscription
/// at the same moment: the second waits, then reads what the first did before it decides.
public protocol WriteLocking: Sendable {
    func withWriteLock<T: Sendable>(_ key: String, _ body: @Sendable () async throws -> T) async throws -> T
}
