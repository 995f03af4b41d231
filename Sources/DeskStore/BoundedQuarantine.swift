import Foundation

/// How much of what the receiver refuses is kept. Refused bodies are kept for diagnosis, not as
/// deliveries: past these limits the oldest are dropped, so that whoever can reach the receiver
/// cannot fill the disk the notifications are stored on.
public struct QuarantineLimits: Sendable, Equatable {
    /// The bodies kept, all rows together, in bytes.
    public var maxBytes = 64 << 20
    /// Rows kept (identical bodies share one row).
    public var maxBodies = 10_000
    /// A body larger than this is kept as its hash, its size and its first `prefixBytes` only.
    public var wholeBodyLimit = 64 << 10
    public var prefixBytes = 4 << 10

    public init() {}

    /// What is kept of `body`, and whether that is all of it.
    public func kept(_ body: Data) -> (Data, cut: Bool) {
        body.count > wholeBodyLimit ? (body.prefix(prefixBytes), true) : (body, false)
    }
}

/// A refused body with the SHA-256 of what was read of it (hex), which identical bodies share.
public struct HashedRefusal: Sendable, Equatable {
    public var refused: RefusedDelivery
    public var bodyHash: String

    public init(_ refused: RefusedDelivery, bodyHash: String) {
        self.refused = refused
        self.bodyHash = bodyHash
    }
}

public struct QuarantineWrite: Sendable, Equatable {
    public struct Kept: Sendable, Equatable {
        public var id: Int64
        /// How many times this body has been refused while kept (1: a new row).
        public var count: Int

        public init(id: Int64, count: Int) {
            self.id = id
            self.count = count
        }
    }

    /// One per body written, in order.
    public var kept: [Kept]
    /// Rows removed, oldest first, to stay within the limits.
    public var dropped: Int

    public init(kept: [Kept], dropped: Int) {
        self.kept = kept
        self.dropped = dropped
    }
}

/// A store whose quarantine is bounded: both stores of iapdesk are.
public protocol BoundedQuarantine: Sendable {
    /// Keeps refused bodies in one transaction: a body identical to one kept (same hash) counts one
    /// more refusal on its row; a body over `limits.wholeBodyLimit` is cut to its prefix; then the
    /// oldest rows are removed until the quarantine is within `limits` again.
    func quarantine(_ bodies: [HashedRefusal], within limits: QuarantineLimits) async throws -> QuarantineWrite
    /// Rows and body bytes the quarantine holds now.
    func quarantineUsage() async throws -> (bodies: Int, bytes: Int)
}
