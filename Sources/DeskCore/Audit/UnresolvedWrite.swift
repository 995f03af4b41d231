import Foundation

/// A write of an earlier session of this account with no known outcome.
public struct UnresolvedWrite: Sendable, Equatable {
    public var record: WriteRecord
    /// An extension can be re-sent from the console with its request identifier; other writes
    /// are re-run from the command line.
    public var extend: ExtendTarget?

    public init(record: WriteRecord, extend: ExtendTarget?) {
        self.record = record
        self.extend = extend
    }
}
