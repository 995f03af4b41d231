import DeskStore
import Foundation

/// Where the console reads the notifications that arrived at a receiver: the store that
/// `iapdesk listen` (or this console's own receiver) writes. Opened on first use and again after
/// a failure, so a store made later by another process is picked up.
public final class ReceivedNotifications: Sendable {
    /// What the Live pane says about where its rows come from.
    public let source: LiveSource
    private let connection: StoreConnection
    private let replayer: Replayer?

    /// Re-posts a stored notification's body to a URL and records the outcome in the store.
    public typealias Replayer = @Sendable (any NotificationStore, StoredNotification, URL) async -> ReplayOutcome

    /// `open` gives the store; it throws `NotificationStoreError.missing` while none exists.
    /// `replay` re-posts a stored notification's body to a URL (nil: replays are not offered).
    public init(
        source: LiveSource, open: @escaping @Sendable () async throws -> any NotificationStore,
        replay: Replayer? = nil
    ) {
        self.source = source
        self.connection = StoreConnection(open: open)
        self.replayer = replay
    }

    public func store() async throws -> any NotificationStore { try await connection.store() }

    public var canReplay: Bool { replayer != nil }

    public func replay(_ notification: StoredNotification, to url: URL) async -> ReplayOutcome {
        guard let replayer else { return ReplayOutcome(result: "replays are not available here", status: nil, milliseconds: 0) }
        do {
            return await replayer(try await store(), notification, url)
        } catch {
            return ReplayOutcome(result: "not sent: the store cannot be opened (\(error))", status: nil, milliseconds: 0)
        }
    }

    public func close() async { await connection.close() }
}

/// Where the Live pane's notifications come from, in words for its header.
public struct LiveSource: Sendable, Equatable {
    public var storePath: String
    /// The receiver running inside this console, when there is one.
    public var receiverURL: URL?
    /// Where `r` replays a notification to.
    public var forwardURL: URL?

    public init(storePath: String, receiverURL: URL? = nil, forwardURL: URL? = nil) {
        self.storePath = storePath
        self.receiverURL = receiverURL
        self.forwardURL = forwardURL
    }
}

/// What re-posting a stored notification gave.
public struct ReplayOutcome: Sendable, Equatable {
    /// "HTTP 200", "timed out after 10 s", "not delivered: cannot connect".
    public var result: String
    public var status: Int?
    public var milliseconds: Double

    public init(result: String, status: Int?, milliseconds: Double) {
        self.result = result
        self.status = status
        self.milliseconds = milliseconds
    }

    public var succeeded: Bool { status.map { (200...299).contains($0) } ?? false }
}

/// Opens the store once and keeps it; a failed open is tried again on the next call.
actor StoreConnection {
    private let open: @Sendable () async throws -> any NotificationStore
    private var opened: (any NotificationStore)?

    init(open: @escaping @Sendable () async throws -> any NotificationStore) { self.open = open }

    func store() async throws -> any NotificationStore {
        if let opened { return opened }
        let store = try await open()
        opened = store
        return store
    }

    func close() async {
        try? await opened?.close()
        opened = nil
    }
}
