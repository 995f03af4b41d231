import Foundation

/// Where received App Store Server Notifications are kept. The receiver answers Apple 200 only
/// after `record` returns, so an implementation must make the write durable before returning.
/// The embedded SQLite file implements it today; a shared server database implements it next.
public protocol NotificationStore: Sendable {
    /// Stores a verified notification, or counts one more delivery of a notificationUUID already
    /// stored (Apple's retries repeat it). Two concurrent deliveries of one UUID are stored once.
    func record(_ delivery: NotificationDelivery) async throws -> RecordOutcome
    /// Adds what the forward of a stored delivery gave, and the status finally answered.
    func recordForward(_ forward: ForwardOutcome, delivery: Int64) async throws
    /// Keeps a body that was refused (400), with the reason, so that nothing sent is lost.
    @discardableResult func quarantine(_ body: RefusedDelivery) async throws -> Int64
    /// Stored notifications, newest delivery last.
    func notifications(_ filter: NotificationFilter) async throws -> [StoredNotification]
    /// Every delivery of one stored notification, oldest first.
    func deliveries(ofNotification id: Int64) async throws -> [StoredDelivery]
    /// Quarantined bodies, oldest first.
    func quarantined(_ filter: QuarantineFilter) async throws -> [QuarantinedDelivery]
    /// The stored notifications among these notificationUUIDs (`reconcile` joins Apple's history with them).
    func notifications(uuids: Set<String>) async throws -> [StoredNotification]
    /// How many stored notifications concern any of these transactions (their own or original
    /// transaction ID): a customer's arrivals.
    func count(concerning transactionIds: Set<String>) async throws -> Int
    /// Stored notifications signed in `window` (its lower bound included, its upper one not), as Apple's
    /// history selects them; one that carries no signedDate counts by its first arrival.
    /// With `bodies` false each row comes without its raw body and decoded payload (empty): the
    /// join of a whole window needs neither, and a day of a busy app's bodies is hundreds of megabytes.
    func notifications(signedIn window: Range<Date>, bodies: Bool) async throws -> [StoredNotification]
    /// Keeps what one re-post by `replay` or `recover` gave.
    @discardableResult func recordReplay(_ replay: ReplayAttempt) async throws -> Int64
    /// Every re-post of these notificationUUIDs, oldest first.
    func replays(uuids: Set<String>) async throws -> [StoredReplay]
    func close() async throws
    /// Throws when a write would fail now, writing nothing: the receiver asks while the store is down,
    /// to learn when to let writes through again.
    func checkWritable() async throws
}

extension NotificationStore {
    /// A store that cannot tell without writing says yes: the next write then tells.
    public func checkWritable() async throws {}

    public func notifications(signedIn window: Range<Date>) async throws -> [StoredNotification] {
        try await notifications(signedIn: window, bodies: true)
    }
}

/// One arrival of a notification that verified (or that the receiver chose to keep as such), as
/// the intake hands it to the store: before the store gave it an ID or counted it as a repeat, and
/// with the app's account IDs, which go to the account index rather than the notification's row.
public struct NotificationDelivery: Sendable, Equatable {
    public var notificationUUID: String
    public var rawBody: Data
    /// The notification's payload JSON exactly as signed.
    public var decodedPayload: Data?
    /// "verified", or the failure's status name; `verdictDetail` says what was checked or why not.
    public var verdict: String
    public var verdictDetail: String?
    public var notificationType: String?
    public var subtype: String?
    public var environment: String?
    public var bundleId: String?
    public var appAppleId: Int64?
    public var transactionId: String?
    public var originalTransactionId: String?
    public var productId: String?
    public var signedDate: Date?
    public var receivedAt: Date
    public var remoteAddress: String?
    /// The status the receiver answers once the write returns (200).
    public var answeredStatus: Int
    /// Milliseconds from the request's arrival to the durable write.
    public var elapsedMilliseconds: Double
    /// The app's customer IDs in its transaction and renewal info, kept in the store's account index.
    public var appAccountToken: String?
    public var appTransactionId: String?

    public init(notificationUUID: String, rawBody: Data, verdict: String, receivedAt: Date, answeredStatus: Int = 200, elapsedMilliseconds: Double = 0) {
        self.notificationUUID = notificationUUID
        self.rawBody = rawBody
        self.verdict = verdict
        self.receivedAt = receivedAt
        self.answeredStatus = answeredStatus
        self.elapsedMilliseconds = elapsedMilliseconds
    }
}

extension NotificationDelivery {
    /// What this delivery adds to the account index: seen by `listen` when it arrived.
    public var accountLinks: [AccountLink] {
        AccountLink.links(
            appAccountToken: appAccountToken, appTransactionId: appTransactionId, originalTransactionId: originalTransactionId,
            environment: environment, source: .listen, seen: receivedAt, signedDate: signedDate)
    }
}

public struct RecordOutcome: Sendable, Equatable {
    /// The stored notification's row.
    public var id: Int64
    /// This delivery's row.
    public var deliveryId: Int64
    /// 1 for the first delivery of this notificationUUID, more for a repeat.
    public var deliveryCount: Int

    public init(id: Int64, deliveryId: Int64, deliveryCount: Int) {
        self.id = id
        self.deliveryId = deliveryId
        self.deliveryCount = deliveryCount
    }

    public var isDuplicate: Bool { deliveryCount > 1 }
}

/// What forwarding a stored notification to the app's own endpoint gave.
public struct ForwardOutcome: Sendable, Equatable {
    /// "HTTP 200", "timed out after 10 s", "cannot connect: ...".
    public var result: String
    /// The forward's HTTP status, when it answered.
    public var status: Int?
    public var milliseconds: Double
    /// The status answered to the sender after the forward (differs from 200 with --mirror-status).
    public var answeredStatus: Int
    /// Milliseconds from the request's arrival to the answer, the forward included.
    public var elapsedMilliseconds: Double

    public init(result: String, status: Int?, milliseconds: Double, answeredStatus: Int, elapsedMilliseconds: Double) {
        self.result = result
        self.status = status
        self.milliseconds = milliseconds
        self.answeredStatus = answeredStatus
        self.elapsedMilliseconds = elapsedMilliseconds
    }
}

/// A body answered 400 (or 408), kept with why: the raw bytes, perhaps cut short, and no verified
/// payload, so none of a notification's fields but the UUID and type its claims gave.
public struct RefusedDelivery: Sendable, Equatable {
    /// A short machine-readable reason: not-json, no-signed-payload, too-large, not-verified, ...
    public var reason: String
    /// The text answered in `{"error": ...}`.
    public var detail: String
    /// The body as received, cut at the store's cap; `bodySize` is what arrived (at least).
    public var body: Data
    public var bodySize: Int
    public var truncated: Bool
    public var notificationUUID: String?
    public var notificationType: String?
    public var receivedAt: Date
    public var remoteAddress: String?
    public var answeredStatus: Int
    public var elapsedMilliseconds: Double

    public init(reason: String, detail: String, body: Data, bodySize: Int, truncated: Bool, receivedAt: Date, answeredStatus: Int = 400) {
        self.reason = reason
        self.detail = detail
        self.body = body
        self.bodySize = bodySize
        self.truncated = truncated
        self.receivedAt = receivedAt
        self.answeredStatus = answeredStatus
        self.elapsedMilliseconds = 0
    }
}

public struct NotificationFilter: Sendable, Equatable {
    /// Last delivered at or after this date.
    public var since: Date?
    public var type: String?
    /// Concerning this transaction (its own or its original transaction ID).
    public var transactionId: String?
    /// Only notifications delivered again or for the first time after this delivery ID (`--follow`).
    public var afterDelivery: Int64?
    /// The newest this many.
    public var limit: Int?
    /// Only deliveries that no write still in flight can come before, so that a cursor moved to the
    /// last of them (the Live pane, `--follow`) misses nothing committed later by another receiver.
    /// Always so with `afterDelivery`; a read that starts a cursor asks for it.
    public var settled: Bool
    /// False when the reader needs neither the raw bodies nor the decoded payloads (the Live pane's
    /// table): the store then leaves them out of the read (empty body, no payload).
    public var bodies = true

    public init(
        since: Date? = nil, type: String? = nil, transactionId: String? = nil, afterDelivery: Int64? = nil, limit: Int? = nil,
        settled: Bool = false, bodies: Bool = true
    ) {
        self.since = since
        self.type = type
        self.transactionId = transactionId
        self.afterDelivery = afterDelivery
        self.limit = limit
        self.settled = settled
        self.bodies = bodies
    }

    /// Whether the rows must stop where a cursor may safely stand.
    public var onlySettled: Bool { settled || afterDelivery != nil }
}

public struct QuarantineFilter: Sendable, Equatable {
    public var since: Date?
    public var afterId: Int64?
    public var limit: Int?
    /// As `NotificationFilter.settled`, for a cursor along refused bodies.
    public var settled: Bool

    public init(since: Date? = nil, afterId: Int64? = nil, limit: Int? = nil, settled: Bool = false) {
        self.since = since
        self.afterId = afterId
        self.limit = limit
        self.settled = settled
    }

    public var onlySettled: Bool { settled || afterId != nil }
}

/// A notification as the store keeps it: one row per notificationUUID across all its deliveries
/// (first and last arrival, how many, the last forward), where a `NotificationDelivery` is one of them.
public struct StoredNotification: Sendable, Equatable {
    public var id: Int64
    public var notificationUUID: String
    public var notificationType: String?
    public var subtype: String?
    public var environment: String?
    public var bundleId: String?
    public var appAppleId: Int64?
    public var transactionId: String?
    public var originalTransactionId: String?
    public var productId: String?
    public var signedDate: Date?
    public var verdict: String
    public var verdictDetail: String?
    public var rawBody: Data
    public var decodedPayload: Data?
    public var firstReceivedAt: Date
    public var lastReceivedAt: Date
    public var remoteAddress: String?
    public var answeredStatus: Int
    public var elapsedMilliseconds: Double
    public var forwardResult: String?
    public var forwardStatus: Int?
    public var deliveryCount: Int
    /// The ID of its latest delivery: the cursor `--follow` moves along.
    public var lastDeliveryId: Int64

    public init(
        id: Int64, notificationUUID: String, notificationType: String?, subtype: String?, environment: String?, bundleId: String?,
        appAppleId: Int64?, transactionId: String?, originalTransactionId: String?, productId: String?, signedDate: Date?, verdict: String,
        verdictDetail: String?, rawBody: Data, decodedPayload: Data?, firstReceivedAt: Date, lastReceivedAt: Date, remoteAddress: String?,
        answeredStatus: Int, elapsedMilliseconds: Double, forwardResult: String?, forwardStatus: Int?, deliveryCount: Int, lastDeliveryId: Int64
    ) {
        self.id = id
        self.notificationUUID = notificationUUID
        self.notificationType = notificationType
        self.subtype = subtype
        self.environment = environment
        self.bundleId = bundleId
        self.appAppleId = appAppleId
        self.transactionId = transactionId
        self.originalTransactionId = originalTransactionId
        self.productId = productId
        self.signedDate = signedDate
        self.verdict = verdict
        self.verdictDetail = verdictDetail
        self.rawBody = rawBody
        self.decodedPayload = decodedPayload
        self.firstReceivedAt = firstReceivedAt
        self.lastReceivedAt = lastReceivedAt
        self.remoteAddress = remoteAddress
        self.answeredStatus = answeredStatus
        self.elapsedMilliseconds = elapsedMilliseconds
        self.forwardResult = forwardResult
        self.forwardStatus = forwardStatus
        self.deliveryCount = deliveryCount
        self.lastDeliveryId = lastDeliveryId
    }
}

public struct StoredDelivery: Sendable, Equatable {
    public var id: Int64
    public var notificationId: Int64
    public var receivedAt: Date
    public var remoteAddress: String?
    public var answeredStatus: Int
    public var elapsedMilliseconds: Double
    public var forwardResult: String?
    public var forwardStatus: Int?
    public var forwardMilliseconds: Double?

    public init(
        id: Int64, notificationId: Int64, receivedAt: Date, remoteAddress: String?, answeredStatus: Int, elapsedMilliseconds: Double,
        forwardResult: String?, forwardStatus: Int?, forwardMilliseconds: Double?
    ) {
        self.id = id
        self.notificationId = notificationId
        self.receivedAt = receivedAt
        self.remoteAddress = remoteAddress
        self.answeredStatus = answeredStatus
        self.elapsedMilliseconds = elapsedMilliseconds
        self.forwardResult = forwardResult
        self.forwardStatus = forwardStatus
        self.forwardMilliseconds = forwardMilliseconds
    }
}

/// A refused body as the quarantine keeps it: the `RefusedDelivery` it was given, with the row's
/// ID, how many times the same body came, and its hash. Its fields are the refusal's
/// (`entry.reason`, `entry.body`, ...): the row adds to what was refused, it does not restate it.
@dynamicMemberLookup
public struct QuarantinedDelivery: Sendable, Equatable {
    public var id: Int64
    /// The body and why it was refused, as it first arrived.
    public var refused: RefusedDelivery
    /// How many times this body was refused (identical bodies are kept once), and when last.
    public var count = 1
    public var lastReceivedAt: Date?
    /// The SHA-256 of what was read of the body (hex); nil for rows kept before bodies were hashed.
    public var bodyHash: String?

    public init(id: Int64, refused: RefusedDelivery) {
        self.id = id
        self.refused = refused
    }

    public init(
        id: Int64, reason: String, detail: String, body: Data, bodySize: Int, truncated: Bool, notificationUUID: String?,
        notificationType: String?, receivedAt: Date, remoteAddress: String?, answeredStatus: Int, elapsedMilliseconds: Double
    ) {
        var refused = RefusedDelivery(
            reason: reason, detail: detail, body: body, bodySize: bodySize, truncated: truncated, receivedAt: receivedAt,
            answeredStatus: answeredStatus)
        refused.notificationUUID = notificationUUID
        refused.notificationType = notificationType
        refused.remoteAddress = remoteAddress
        refused.elapsedMilliseconds = elapsedMilliseconds
        self.init(id: id, refused: refused)
    }

    @inlinable
    public subscript<Value>(dynamicMember field: WritableKeyPath<RefusedDelivery, Value>) -> Value {
        get { refused[keyPath: field] }
        set { refused[keyPath: field] = newValue }
    }
}

public enum NotificationStoreError: Error, Sendable, Equatable, CustomStringConvertible {
    /// `received` on a store that `listen` never created.
    case missing(path: String)
    case unwritable(path: String, reason: String)
    /// Made by a newer iapdesk: its schema is unknown here.
    case newerSchema(path: String, version: Int, known: Int)
    case closed

    public var description: String {
        switch self {
        case .missing(let path): return "No notifications stored yet at \(path): start iapdesk listen."
        case .unwritable(let path, let reason): return "The notification store at \(path) cannot be opened: \(reason)."
        case .newerSchema(let path, let version, let known):
            return "The notification store at \(path) has schema version \(version), newer than this iapdesk knows (\(known)): update iapdesk."
        case .closed: return "The notification store is closed."
        }
    }
}

extension StoredNotification {
    /// A stored notification as a caller builds one (tests of what reads the store); the store
    /// makes its own from its rows.
    public init(
        id: Int64, notificationUUID: String, verdict: String = "verified", rawBody: Data = Data(), firstReceivedAt: Date,
        deliveryCount: Int = 1, answeredStatus: Int = 200
    ) {
        self.init(
            id: id, notificationUUID: notificationUUID, notificationType: nil, subtype: nil, environment: nil, bundleId: nil, appAppleId: nil,
            transactionId: nil, originalTransactionId: nil, productId: nil, signedDate: nil, verdict: verdict, verdictDetail: nil,
            rawBody: rawBody, decodedPayload: nil, firstReceivedAt: firstReceivedAt, lastReceivedAt: firstReceivedAt, remoteAddress: nil,
            answeredStatus: answeredStatus, elapsedMilliseconds: 0, forwardResult: nil, forwardStatus: nil, deliveryCount: deliveryCount,
            lastDeliveryId: id)
    }
}
