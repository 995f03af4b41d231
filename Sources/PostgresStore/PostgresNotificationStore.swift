import DeskStore
import Foundation
import Logging
import PostgresNIO
import Synchronization

/// A team's store on a PostgreSQL server: several agents read it and several `iapdesk listen`
/// processes write it at once. A notification is kept once whatever the order of Apple's retries
/// (the UNIQUE notificationUUID decides, in one upsert); every commit is durable when it returns
/// (the server's synchronous_commit, on by default). Deliveries that arrive together in one
/// process share a transaction, as in the SQLite store.
public final class PostgresNotificationStore: NotificationStore {
    public let address: PostgresAddress
    private let pool: Mutex<Pool>
    private let poolConfiguration: PostgresClient.Configuration
    /// How long a write may take before its caller is told it failed.
    public let writeDeadline: Duration
    private let recorder: GroupCommit<NotificationDelivery, RecordOutcome>
    /// Calls abandoned at their deadline since the pool was last made.
    private let abandonedSinceNewPool = Mutex(0)
    static let logger = Logger(label: "iapdesk.store.postgres", factory: { _ in SwiftLogNoOpLogHandler() })

    /// The URL shown for this store (no password).
    public var location: String { address.redacted }

    /// Connects, brings the schema up to date (up to `schemaVersion` only when given: tests of the
    /// migrations make older databases with it) and opens a pool of `connections`, each named to the
    /// server as the address says, else as `applicationName` (`pg_stat_activity` shows which
    /// receivers and consoles are connected).
    public static func open(
        _ address: PostgresAddress, applicationName: String = "iapdesk", schemaVersion: Int? = nil, connections: Int = 8,
        writeDeadline: Duration = WriteDeadline.store
    ) async throws -> PostgresNotificationStore {
        do {
            let configuration = try PostgresConnectionSettings.connection(address, applicationName: applicationName)
            let connection = try await PostgresConnection.connect(configuration: configuration, id: 1, logger: logger)
            do {
                try await PostgresMigrator(connection: connection, location: address.redacted).migrate(upTo: schemaVersion ?? PostgresSchema.version)
                try await connection.close()
            } catch {
                try? await connection.close()
                throw error
            }
        } catch let error as NotificationStoreError {
            throw error
        } catch {
            throw NotificationStoreError.unwritable(path: address.redacted, reason: PostgresConnectionSettings.describe(error))
        }
        return PostgresNotificationStore(
            address: address, poolConfiguration: PostgresConnectionSettings.pool(address, connections: connections, applicationName: applicationName), writeDeadline: writeDeadline)
    }

    private init(address: PostgresAddress, poolConfiguration: PostgresClient.Configuration, writeDeadline: Duration) {
        self.address = address
        self.poolConfiguration = poolConfiguration
        self.writeDeadline = writeDeadline
        recorder = GroupCommit(deadline: writeDeadline)
        pool = Mutex(Pool(poolConfiguration))
    }

    deinit { pool.withLock { $0.runner.cancel() } }

    /// A pool of connections and the task that runs it.
    private struct Pool {
        let client: PostgresClient
        let runner: Task<Void, Never>
        var closed = false

        init(_ configuration: PostgresClient.Configuration) {
            let client = PostgresClient(configuration: configuration, backgroundLogger: PostgresNotificationStore.logger)
            self.client = client
            runner = Task { await client.run() }
        }
    }

    var client: PostgresClient { pool.withLock { $0.client } }

    /// The schema version the database holds.
    public func schemaVersion() async throws -> Int {
        try await run {
            let rows = try await self.client.query("SELECT version FROM iapdesk_schema")
            for try await version in rows.decode(Int.self) { return version }
            return 0
        }
    }

    /// Whether this role may store what a receiver stores (a reader role may not): asked at start,
    /// so a receiver never answers 503 to everything Apple sends.
    public func receiverMayWrite() async throws -> Bool {
        try await receiverLacks().isEmpty
    }

    /// The privileges a receiver needs that this role lacks, as GRANT names them ("DELETE ON quarantine").
    public func receiverLacks() async throws -> [String] {
        let needed = [
            ("notifications", "INSERT"), ("notifications", "UPDATE"), ("deliveries", "INSERT"), ("deliveries", "UPDATE"),
            ("quarantine", "INSERT"), ("quarantine", "UPDATE"), ("quarantine", "DELETE"),
        ]
        return try await run {
            var lacking: [String] = []
            for (table, privilege) in needed {
                let rows = try await self.client.query("SELECT has_table_privilege(\(table), \(privilege))", logger: Self.logger)
                for try await allowed in rows.decode(Bool.self) where !allowed { lacking.append("\(privilege) ON \(table)") }
            }
            return lacking
        }
    }

    /// Whether a write would succeed now: the server answers within the write deadline and the role may write.
    public func checkWritable() async throws {
        let allowed = try await run(within: writeDeadline) {
            let rows = try await self.client.query(
                "SELECT has_table_privilege('notifications', 'INSERT') AND has_table_privilege('deliveries', 'INSERT')", logger: Self.logger)
            for try await allowed in rows.decode(Bool.self) { return allowed }
            return false
        }
        guard allowed else { throw NotificationStoreError.unwritable(path: address.redacted, reason: "the role \(address.username) may not write") }
    }

    /// Marks the database as made by another schema version (tests of the version check).
    public func setSchemaVersionForTesting(_ version: Int) async throws {
        try await run { _ = try await self.client.query("UPDATE iapdesk_schema SET version = \(version)") }
    }

    // MARK: Writes

    public func record(_ delivery: NotificationDelivery) async throws -> RecordOutcome {
        do {
            return try await recorder.submit(delivery) { batch in await self.recordBatch(batch) }
        } catch {
            throw storeError(error)
        }
    }

    /// A batch in one statement per round, each its own transaction: the server flushes the
    /// commits of several receivers together, and nothing waits on a round trip it need not make.
    /// A round the server refuses (a NUL in a text, ...) goes again a delivery at a time, so that
    /// only the bad one fails; a round already committed stays so.
    private func recordBatch(_ deliveries: [NotificationDelivery]) async -> [Result<RecordOutcome, any Error>] {
        do {
            return try await run(within: writeDeadline) { try await self.writeBatch(deliveries) }
        } catch {
            // The server did not answer: nothing of the batch is known to be stored, so every
            // caller answers 503 and Apple retries.
            let failure = storeError(error)
            return deliveries.map { _ in .failure(failure) }
        }
    }

    private func writeBatch(_ deliveries: [NotificationDelivery]) async throws -> [Result<RecordOutcome, any Error>] {
        try await client.withConnection { connection in
            var results = [Result<RecordOutcome, any Error>?](repeating: nil, count: deliveries.count)
            for round in Self.rounds(deliveries) {
                do {
                    for (index, outcome) in zip(round, try await Self.insertRound(round.map { deliveries[$0] }, on: connection)) {
                        results[index] = .success(outcome)
                    }
                } catch {
                    for index in round {
                        do {
                            let stored = try await Self.insertRound([deliveries[index]], on: connection)
                            results[index] = stored.first.map { .success($0) } ?? .failure(StoreFailure("the delivery was not recorded"))
                        } catch {
                            results[index] = .failure(self.storeError(error))
                        }
                    }
                }
            }
            let stored = zip(deliveries, results).compactMap { delivery, result -> NotificationDelivery? in
                if case .success = result { return delivery } else { return nil }
            }
            await Self.indexAccounts(of: stored, on: connection)
            return results.map { $0 ?? .failure(StoreFailure("the delivery was not recorded")) }
        }
    }

    /// The batch's links in one statement of its own, after the notifications are committed. The
    /// index only saves a later lookup (`iapdesk index` fills it from the stored notifications): a
    /// failure to write it never costs a notification its 200, a back-fill holding its rows is
    /// waited for briefly, and its commit is not waited for on disk.
    private static func indexAccounts(of deliveries: [NotificationDelivery], on connection: PostgresConnection) async {
        let links = AccountLink.merged(deliveries.flatMap(\.accountLinks))
        guard !links.isEmpty else { return }
        try? await insertAccountLinks(links, on: connection, asIndexOfArrivals: true)
    }

    /// Taken by a transaction that adds deliveries or refused bodies, before it draws their IDs.
    static func holdArrivals(_ connection: PostgresConnection) async throws {
        try await connection.query(
            "SELECT pg_advisory_xact_lock_shared(\(PostgresSchema.Lock.namespace), \(PostgresSchema.Lock.arrivals))", logger: logger)
    }

    /// The newest delivery and refused-body IDs that no write in flight can come before. Taken
    /// under the arrivals lock alone, which waits until every transaction holding it has committed
    /// or rolled back (and keeps new ones waiting for the two lookups): every ID up to these is
    /// then visible or gone for good. IDs drawn later are higher, so a read bounded by them, and a
    /// cursor moved to its last row, misses nothing a slower receiver commits afterwards.
    func settledIDs() async throws -> (deliveries: Int64, quarantine: Int64) {
        try await client.withTransaction(logger: Self.logger) { connection in
            try await connection.query(
                "SELECT pg_advisory_xact_lock(\(PostgresSchema.Lock.namespace), \(PostgresSchema.Lock.arrivals))", logger: Self.logger)
            let rows = try await connection.query(
                "SELECT (SELECT coalesce(max(id), 0) FROM deliveries), (SELECT coalesce(max(id), 0) FROM quarantine)", logger: Self.logger)
            for try await bounds in rows.decode((Int64, Int64).self) { return bounds }
            throw StoreFailure("the newest IDs could not be read")
        }
    }

    public func recordForward(_ forward: ForwardOutcome, delivery: Int64) async throws {
        try await run(within: writeDeadline) {
            try await self.client.withTransaction(logger: Self.logger) { connection in
                let rows = try await connection.query(
                    """
                    UPDATE deliveries SET forward_result = \(forward.result), forward_status = \(forward.status),
                        forward_ms = \(forward.milliseconds), answered_status = \(forward.answeredStatus),
                        elapsed_ms = \(forward.elapsedMilliseconds)
                    WHERE id = \(delivery) RETURNING notification_id
                    """, logger: Self.logger)
                var notification: Int64?
                for try await value in rows.decode(Int64.self) { notification = value }
                guard let notification else { return }
                // The notification shows its latest delivery's answer and forward.
                try await connection.query(
                    """
                    UPDATE notifications SET forward_result = \(forward.result), forward_status = \(forward.status),
                        answered_status = \(forward.answeredStatus), elapsed_ms = \(forward.elapsedMilliseconds)
                    WHERE id = \(notification) AND last_delivery_id = \(delivery)
                    """, logger: Self.logger)
            }
        }
    }

    @discardableResult
    public func quarantine(_ body: RefusedDelivery) async throws -> Int64 {
        try await run(within: writeDeadline) {
            try await self.client.withTransaction(logger: Self.logger) { connection in
                try await Self.holdArrivals(connection)
                let rows = try await connection.query(
                    """
                    INSERT INTO quarantine (
                        reason, detail, body, body_size, truncated, notification_uuid, notification_type, received,
                        remote_address, answered_status, elapsed_ms
                    ) VALUES (
                        \(body.reason), \(body.detail), \(body.body), \(body.bodySize), \(body.truncated), \(body.notificationUUID),
                        \(body.notificationType), \(Self.rounded(body.receivedAt)), \(body.remoteAddress), \(body.answeredStatus),
                        \(body.elapsedMilliseconds)
                    ) RETURNING id
                    """, logger: Self.logger)
                var id: Int64 = 0
                for try await value in rows.decode(Int64.self) { id = value }
                return id
            }
        }
    }

    @discardableResult
    public func recordReplay(_ replay: ReplayAttempt) async throws -> Int64 {
        try await run {
            let rows = try await self.client.query(
                """
                INSERT INTO replays (notification_uuid, target_url, source, command, sent, result, status, elapsed_ms)
                VALUES (
                    \(replay.notificationUUID), \(replay.targetURL), \(replay.source.rawValue), \(replay.command),
                    \(Self.rounded(replay.sentAt)), \(replay.result), \(replay.status), \(replay.milliseconds)
                ) RETURNING id
                """, logger: Self.logger)
            var id: Int64 = 0
            for try await value in rows.decode(Int64.self) { id = value }
            return id
        }
    }

    // MARK: Reads

    public func notifications(_ filter: NotificationFilter) async throws -> [StoredNotification] {
        var query = FilteredQuery("SELECT \(filter.bodies ? "*" : Self.columnsWithoutBodies) FROM notifications WHERE TRUE")
        if filter.onlySettled {
            let settled = try await run { try await self.settledIDs().deliveries }
            query.sql += " AND last_delivery_id <= \(query.bind(settled))"
        }
        if let since = filter.since { query.sql += " AND last_received >= \(query.bind(Self.rounded(since)))" }
        if let type = filter.type { query.sql += " AND notification_type = \(query.bind(type))" }
        if let transaction = filter.transactionId {
            let mark = query.bind(transaction)
            query.sql += " AND (transaction_id = \(mark) OR original_transaction_id = \(mark))"
        }
        if let after = filter.afterDelivery { query.sql += " AND last_delivery_id > \(query.bind(after))" }
        query.sql += " ORDER BY last_delivery_id DESC"
        if let limit = filter.limit { query.sql += " LIMIT \(max(0, limit))" }
        return try await rows(query.postgres, Self.notification).reversed()
    }

    public func deliveries(ofNotification id: Int64) async throws -> [StoredDelivery] {
        try await rows("SELECT * FROM deliveries WHERE notification_id = \(id) ORDER BY id") { row in
            StoredDelivery(
                id: try row["id"].decode(Int64.self), notificationId: id, receivedAt: Self.rounded(try row["received"].decode(Date.self)),
                remoteAddress: try row["remote_address"].decode(String?.self), answeredStatus: try row["answered_status"].decode(Int.self),
                elapsedMilliseconds: try row["elapsed_ms"].decode(Double.self), forwardResult: try row["forward_result"].decode(String?.self),
                forwardStatus: try row["forward_status"].decode(Int?.self), forwardMilliseconds: try row["forward_ms"].decode(Double?.self))
        }
    }

    public func quarantined(_ filter: QuarantineFilter) async throws -> [QuarantinedDelivery] {
        var query = FilteredQuery("SELECT * FROM quarantine WHERE TRUE")
        if filter.onlySettled {
            let settled = try await run { try await self.settledIDs().quarantine }
            query.sql += " AND id <= \(query.bind(settled))"
        }
        if let since = filter.since { query.sql += " AND received >= \(query.bind(Self.rounded(since)))" }
        if let after = filter.afterId { query.sql += " AND id > \(query.bind(after))" }
        query.sql += " ORDER BY id DESC"
        if let limit = filter.limit { query.sql += " LIMIT \(max(0, limit))" }
        return try await rows(query.postgres) { row in
            try QuarantinedDelivery(
                id: try row["id"].decode(Int64.self), reason: try row["reason"].decode(String.self), detail: try row["detail"].decode(String.self),
                body: try row["body"].decode(Data.self), bodySize: try row["body_size"].decode(Int.self),
                truncated: try row["truncated"].decode(Bool.self), notificationUUID: try row["notification_uuid"].decode(String?.self),
                notificationType: try row["notification_type"].decode(String?.self), receivedAt: Self.rounded(try row["received"].decode(Date.self)),
                remoteAddress: try row["remote_address"].decode(String?.self), answeredStatus: try row["answered_status"].decode(Int.self),
                elapsedMilliseconds: try row["elapsed_ms"].decode(Double.self))
                .counted(row)
        }.reversed()
    }

    public func notifications(uuids: Set<String>) async throws -> [StoredNotification] {
        guard !uuids.isEmpty else { return [] }
        return try await rows("SELECT * FROM notifications WHERE notification_uuid = ANY(\(uuids.sorted())) ORDER BY id", Self.notification)
    }

    public func count(concerning transactionIds: Set<String>) async throws -> Int {
        guard !transactionIds.isEmpty else { return 0 }
        let ids = transactionIds.sorted()
        return try await run {
            let rows = try await self.client.query(
                "SELECT count(*) FROM notifications WHERE transaction_id = ANY(\(ids)) OR original_transaction_id = ANY(\(ids))",
                logger: Self.logger)
            for try await count in rows.decode(Int.self) { return count }
            return 0
        }
    }

    public func notifications(signedIn window: Range<Date>, bodies: Bool) async throws -> [StoredNotification] {
        let lower = Self.rounded(window.lowerBound)
        let upper = Self.rounded(window.upperBound)
        return try await rows(
            """
            SELECT \(unescaped: bodies ? "*" : Self.columnsWithoutBodies) FROM notifications
            WHERE (signed_date >= \(lower) AND signed_date < \(upper))
               OR (signed_date IS NULL AND first_received >= \(lower) AND first_received < \(upper))
            ORDER BY COALESCE(signed_date, first_received), id
            """, Self.notification)
    }

    public func replays(uuids: Set<String>) async throws -> [StoredReplay] {
        guard !uuids.isEmpty else { return [] }
        return try await rows("SELECT * FROM replays WHERE notification_uuid = ANY(\(uuids.sorted())) ORDER BY id") { row in
            StoredReplay(
                id: try row["id"].decode(Int64.self),
                attempt: ReplayAttempt(
                    notificationUUID: try row["notification_uuid"].decode(String.self), targetURL: try row["target_url"].decode(String.self),
                    source: ReplayAttempt.Source(rawValue: try row["source"].decode(String.self)) ?? .store,
                    command: try row["command"].decode(String.self), sentAt: Self.rounded(try row["sent"].decode(Date.self)),
                    result: try row["result"].decode(String.self), status: try row["status"].decode(Int?.self),
                    milliseconds: try row["elapsed_ms"].decode(Double.self)))
        }
    }

    public func close() async throws {
        let runner = pool.withLock { pool in
            pool.closed = true
            return pool.runner
        }
        runner.cancel()
        await runner.value
    }

    // MARK: Support

    /// Runs a query's rows through `make`, with the store's errors.
    func rows<T: Sendable>(_ query: PostgresQuery, _ make: @escaping @Sendable (PostgresRandomAccessRow) throws -> T) async throws -> [T] {
        try await run {
            var values: [T] = []
            for try await row in try await self.client.query(query, logger: Self.logger) {
                values.append(try make(row.makeRandomAccess()))
            }
            return values
        }
    }

    /// Runs `body` within `deadline`, turning the driver's errors (whose own text hides everything)
    /// into the store's. A server that stops answering (down, unreachable, a dropped database) is
    /// said as such at the deadline rather than after the pool's own minute of retries: the receiver
    /// then answers 503 and Apple retries, which stores the notification once when the server is back.
    /// A call still running then is abandoned, never waited for (a query on a connection whose server
    /// went silent ignores cancellation); when calls keep being abandoned, the pool is made anew.
    func run<T: Sendable>(within deadline: Duration = .seconds(PostgresNotificationStore.queryDeadline), _ body: @escaping @Sendable () async throws -> T) async throws -> T {
        do {
            return try await withinDeadline(deadline) { try await body() }
        } catch let error as DeadlinePassed {
            discardPoolIfStuck()
            throw NotificationStoreError.unwritable(path: address.redacted, reason: "the server did not answer within \(WriteDeadline.words(error.deadline))")
        } catch {
            throw storeError(error)
        }
    }

    /// Calls abandoned at their deadline hold the pool's connections (or wait for one) until the
    /// server answers or the connection breaks, which a silent server may never let happen: past
    /// two of them the pool is closed, which fails them, and a new one takes the next calls.
    private func discardPoolIfStuck() {
        let renew = abandonedSinceNewPool.withLock { count -> Bool in
            count += 1
            guard count >= Self.abandonedCallsBeforeNewPool else { return false }
            count = 0
            return true
        }
        guard renew else { return }
        let old = pool.withLock { pool -> Pool? in
            guard !pool.closed else { return nil }
            defer { pool = Pool(poolConfiguration) }
            return pool
        }
        old?.runner.cancel()
    }

    static let abandonedCallsBeforeNewPool = 2

    /// How long one query or transaction may take before the server is said not to answer.
    public static let queryDeadline: Double = 10

    func storeError(_ error: any Error) -> any Error {
        if error is NotificationStoreError { return error }
        if let error = error as? PSQLError, error.code == .poolClosed { return NotificationStoreError.closed }
        return NotificationStoreError.unwritable(path: address.redacted, reason: PostgresConnectionSettings.describe(error))
    }

    static func notification(_ row: PostgresRandomAccessRow) throws -> StoredNotification {
        StoredNotification(
            id: try row["id"].decode(Int64.self), notificationUUID: try row["notification_uuid"].decode(String.self),
            notificationType: try row["notification_type"].decode(String?.self), subtype: try row["subtype"].decode(String?.self),
            environment: try row["environment"].decode(String?.self), bundleId: try row["bundle_id"].decode(String?.self),
            appAppleId: try row["app_apple_id"].decode(Int64?.self), transactionId: try row["transaction_id"].decode(String?.self),
            originalTransactionId: try row["original_transaction_id"].decode(String?.self), productId: try row["product_id"].decode(String?.self),
            signedDate: try row["signed_date"].decode(Date?.self).map(Self.rounded), verdict: try row["verdict"].decode(String.self),
            verdictDetail: try row["verdict_detail"].decode(String?.self), rawBody: try row["raw_body"].decode(Data.self),
            decodedPayload: try row["decoded_payload"].decode(String?.self).map { Data($0.utf8) },
            firstReceivedAt: Self.rounded(try row["first_received"].decode(Date.self)), lastReceivedAt: Self.rounded(try row["last_received"].decode(Date.self)),
            remoteAddress: try row["remote_address"].decode(String?.self), answeredStatus: try row["answered_status"].decode(Int.self),
            elapsedMilliseconds: try row["elapsed_ms"].decode(Double.self), forwardResult: try row["forward_result"].decode(String?.self),
            forwardStatus: try row["forward_status"].decode(Int?.self), deliveryCount: try row["delivery_count"].decode(Int.self),
            lastDeliveryId: try row["last_delivery_id"].decode(Int64.self))
    }

    /// Every column `notification(_:)` reads, the raw body and decoded payload left empty.
    static let columnsWithoutBodies = """
        id, notification_uuid, notification_type, subtype, environment, bundle_id, app_apple_id, transaction_id, original_transaction_id,
        product_id, signed_date, verdict, verdict_detail, ''::bytea AS raw_body, NULL::text AS decoded_payload, first_received, last_received,
        remote_address, answered_status, elapsed_ms, forward_result, forward_status, delivery_count, last_delivery_id
        """

    /// Times are kept to the millisecond, as the SQLite store keeps them; read back through the same
    /// arithmetic, so that a time comes back equal to the one written.
    static func rounded(_ date: Date) -> Date {
        Date(timeIntervalSince1970: (date.timeIntervalSince1970 * 1000).rounded() / 1000)
    }
}

/// A query whose conditions depend on a filter: SQL with numbered placeholders and their values.
struct FilteredQuery {
    var sql: String
    var binds = PostgresBindings()

    init(_ sql: String) { self.sql = sql }

    /// Adds a value and gives its placeholder.
    mutating func bind<Value: PostgresDynamicTypeEncodable>(_ value: Value) -> String {
        binds.append(value)
        return "$\(binds.count)"
    }

    var postgres: PostgresQuery { PostgresQuery(unsafeSQL: sql, binds: binds) }
}

struct StoreFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
