import Foundation
import Logging
import NIOPosix
import SQLiteNIO
import Synchronization

/// The embedded store: one SQLite file (sqlite-nio bundles SQLite), WAL journal, `synchronous=FULL`
/// so that every committed write is on disk before `record` returns, created with mode 600 in a
/// folder of mode 700. Deliveries that arrive together are committed together (one fsync for the
/// batch, see GroupCommit); other processes wait on SQLite's lock.
public final class SQLiteNotificationStore: NotificationStore, LedgerStore, NoteStore {
    public let path: String
    let connection: SQLiteConnection
    /// The connection's own thread: SQLite blocks while it waits for another connection's lock, and
    /// on a shared pool two such waits would leave no thread for the connection that holds it.
    private let threadPool: NIOThreadPool
    let gate = SerialGate()
    private let recorder: GroupCommit<NotificationDelivery, RecordOutcome>

    /// The schema, one step per version; `PRAGMA user_version` says how many have been applied.
    static let migrations: [[String]] = [
        [
            """
            CREATE TABLE notifications (
                id INTEGER PRIMARY KEY,
                notification_uuid TEXT NOT NULL UNIQUE,
                notification_type TEXT,
                subtype TEXT,
                environment TEXT,
                bundle_id TEXT,
                app_apple_id INTEGER,
                transaction_id TEXT,
                original_transaction_id TEXT,
                product_id TEXT,
                signed_date_ms INTEGER,
                verdict TEXT NOT NULL,
                verdict_detail TEXT,
                raw_body BLOB NOT NULL,
                decoded_payload TEXT,
                first_received_ms INTEGER NOT NULL,
                last_received_ms INTEGER NOT NULL,
                remote_address TEXT,
                answered_status INTEGER NOT NULL,
                elapsed_ms REAL NOT NULL,
                forward_result TEXT,
                forward_status INTEGER,
                delivery_count INTEGER NOT NULL DEFAULT 1,
                last_delivery_id INTEGER NOT NULL DEFAULT 0
            )
            """,
            """
            CREATE TABLE deliveries (
                id INTEGER PRIMARY KEY,
                notification_id INTEGER NOT NULL REFERENCES notifications(id),
                received_ms INTEGER NOT NULL,
                remote_address TEXT,
                answered_status INTEGER NOT NULL,
                elapsed_ms REAL NOT NULL,
                forward_result TEXT,
                forward_status INTEGER,
                forward_ms REAL
            )
            """,
            """
            CREATE TABLE quarantine (
                id INTEGER PRIMARY KEY,
                reason TEXT NOT NULL,
                detail TEXT NOT NULL,
                body BLOB NOT NULL,
                body_size INTEGER NOT NULL,
                truncated INTEGER NOT NULL,
                notification_uuid TEXT,
                notification_type TEXT,
                received_ms INTEGER NOT NULL,
                remote_address TEXT,
                answered_status INTEGER NOT NULL,
                elapsed_ms REAL NOT NULL
            )
            """,
            "CREATE INDEX notifications_last_received ON notifications(last_received_ms)",
            "CREATE INDEX notifications_last_delivery ON notifications(last_delivery_id)",
            "CREATE INDEX notifications_transaction ON notifications(transaction_id)",
            "CREATE INDEX notifications_original_transaction ON notifications(original_transaction_id)",
            "CREATE INDEX deliveries_notification ON deliveries(notification_id)",
            "CREATE INDEX quarantine_received ON quarantine(received_ms)",
        ],
        // 2: re-posts by `replay` and `recover`, and the window reconcile reads by signed date.
        [
            """
            CREATE TABLE replays (
                id INTEGER PRIMARY KEY,
                notification_uuid TEXT NOT NULL,
                target_url TEXT NOT NULL,
                source TEXT NOT NULL,
                command TEXT NOT NULL,
                sent_ms INTEGER NOT NULL,
                result TEXT NOT NULL,
                status INTEGER,
                elapsed_ms REAL NOT NULL
            )
            """,
            "CREATE INDEX replays_notification ON replays(notification_uuid)",
            "CREATE INDEX notifications_signed_date ON notifications(signed_date_ms)",
        ],
        // 3: the audit ledger of writes, and the JSON-lines ledgers imported into it.
        [
            """
            CREATE TABLE ledger (
                id INTEGER PRIMARY KEY,
                time_ms INTEGER NOT NULL,
                request_identifier TEXT NOT NULL,
                write TEXT NOT NULL,
                path TEXT NOT NULL,
                agent TEXT,
                entry BLOB NOT NULL
            )
            """,
            "CREATE INDEX ledger_path ON ledger(path, time_ms)",
            "CREATE TABLE ledger_imports (source TEXT PRIMARY KEY, lines INTEGER NOT NULL, imported_ms INTEGER NOT NULL)",
        ],
        // 4: case notes, each kept under every ID its customer was known by when it was written.
        [
            "CREATE TABLE notes (id INTEGER PRIMARY KEY, time_ms INTEGER NOT NULL, agent TEXT NOT NULL, text TEXT NOT NULL)",
            "CREATE TABLE note_subjects (note_id INTEGER NOT NULL REFERENCES notes(id), subject TEXT NOT NULL)",
            "CREATE INDEX note_subjects_subject ON note_subjects(subject)",
        ],
        // 5: a bounded quarantine: identical bodies kept once and counted, its size kept up to date.
        quarantineBounds,
        // 6: the account index, from the app's customer IDs to original transaction IDs.
        accountIndexSchema,
        // 7: what `iapdesk watch` found wrong, open or resolved, and whether each change was announced.
        incidentSchema,
        // 8: the consumption policy's per-customer overrides and its claims on refund requests.
        refundPolicySchema,
    ]

    public static var schemaVersion: Int { migrations.count }

    /// `$XDG_DATA_HOME/iapdesk/notifications.sqlite`, else `~/.local/share/iapdesk/notifications.sqlite`.
    public static func defaultPath(environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        if let path = environment["IAPDESK_STORE_PATH"], !path.isEmpty { return path }
        let base: String
        if let data = environment["XDG_DATA_HOME"], data.hasPrefix("/") {
            base = data
        } else {
            base = (environment["HOME"] ?? NSHomeDirectory()) + "/.local/share"
        }
        return base + "/iapdesk/notifications.sqlite"
    }

    /// Opens the store, creating the file (and its folder) when `create` is true, and brings its schema up to date
    /// (up to `schemaVersion` only when given: tests of the migrations make older files with it). A
    /// delivery's write fails once it has waited `writeDeadline`.
    public static func open(
        path: String, create: Bool = true, schemaVersion: Int? = nil, writeDeadline: Duration = WriteDeadline.store
    ) async throws -> SQLiteNotificationStore {
        let fileManager = FileManager.default
        if !fileManager.fileExists(atPath: path) {
            guard create else { throw NotificationStoreError.missing(path: path) }
            let folder = (path as NSString).deletingLastPathComponent
            if !folder.isEmpty && !fileManager.fileExists(atPath: folder) {
                do {
                    try fileManager.createDirectory(atPath: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
                } catch {
                    throw NotificationStoreError.unwritable(path: path, reason: "its folder cannot be made (\(error.localizedDescription))")
                }
            }
            // Made here with mode 600 so SQLite never creates it with the umask's mode; its -wal and
            // -shm files take the database file's mode.
            let descriptor = Foundation.open(path, O_RDWR | O_CREAT | O_EXCL, 0o600)
            if descriptor < 0 && errno != EEXIST {
                throw NotificationStoreError.unwritable(path: path, reason: String(cString: strerror(errno)))
            }
            if descriptor >= 0 { Foundation.close(descriptor) }
        } else if !fileManager.isReadableFile(atPath: path) {
            throw NotificationStoreError.unwritable(path: path, reason: "it is not readable by this user")
        }
        var logger = Logger(label: "iapdesk.store")
        logger.logLevel = .warning
        let connection: SQLiteConnection
        let threadPool = NIOThreadPool(numberOfThreads: 1)
        threadPool.start()
        do {
            connection = try await SQLiteConnection.open(
                storage: .file(path: path), threadPool: threadPool, logger: logger, on: MultiThreadedEventLoopGroup.singleton.any())
        } catch {
            try? await threadPool.shutdownGracefully()
            throw NotificationStoreError.unwritable(path: path, reason: "\(error)")
        }
        let store = SQLiteNotificationStore(path: path, connection: connection, threadPool: threadPool, writeDeadline: writeDeadline)
        do {
            try await store.prepare(upTo: schemaVersion ?? migrations.count)
        } catch {
            try? await store.close()
            if let error = error as? NotificationStoreError { throw error }
            throw NotificationStoreError.unwritable(path: path, reason: "\(error)")
        }
        return store
    }

    private init(path: String, connection: SQLiteConnection, threadPool: NIOThreadPool, writeDeadline: Duration) {
        recorder = GroupCommit(deadline: writeDeadline)
        self.path = path
        self.connection = connection
        self.threadPool = threadPool
    }

    /// A store dropped without `close()` (a caller that failed half-way) still closes its file;
    /// every write it made was committed already.
    deinit {
        let threadPool = self.threadPool
        if connection.isClosed {
            threadPool.shutdownGracefully { _ in }
        } else {
            connection.close().whenComplete { _ in threadPool.shutdownGracefully { _ in } }
        }
    }

    private func prepare(upTo target: Int) async throws {
        try await gate.run {
            _ = try await self.connection.query("PRAGMA journal_mode=WAL")
            _ = try await self.connection.query("PRAGMA synchronous=FULL")
            // A batch's multi-row statements keep a statement journal (to undo a statement that
            // fails half-way); in memory it is not written to a temporary file at every commit.
            _ = try await self.connection.query("PRAGMA temp_store=MEMORY")
            _ = try await self.connection.query("PRAGMA foreign_keys=ON")
            try await self.migrate(upTo: target)
        }
    }

    /// The schema version stored in the file (0 for a new file).
    public func userVersion() async throws -> Int {
        try await gate.run { try await self.readUserVersion() }
    }

    /// The journal mode and synchronous level this connection writes with ("wal", 2 = FULL).
    public func durability() async throws -> (journalMode: String, synchronous: Int) {
        try await gate.run {
            let mode = try await self.connection.query("PRAGMA journal_mode").first?.column("journal_mode")?.string ?? ""
            let level = try await self.connection.query("PRAGMA synchronous").first?.column("synchronous")?.integer ?? -1
            return (mode, Int(level))
        }
    }

    /// Marks the file as made by another schema version (tests of the version check).
    public func setUserVersionForTesting(_ version: Int) async throws {
        try await gate.run { _ = try await self.connection.query("PRAGMA user_version = \(version)") }
    }

    private func readUserVersion() async throws -> Int {
        let rows = try await connection.query("PRAGMA user_version")
        return Int(rows.first?.column("user_version")?.integer ?? 0)
    }

    /// Applies the missing migrations, each in its own transaction with its version number.
    private func migrate(upTo target: Int) async throws {
        // The lock first, so that two processes opening a new file do not both migrate it.
        _ = try await connection.query("BEGIN IMMEDIATE")
        do {
            let version = try await readUserVersion()
            guard version <= Self.migrations.count else {
                throw NotificationStoreError.newerSchema(path: path, version: version, known: Self.migrations.count)
            }
            for (index, steps) in Self.migrations.enumerated() where index >= version && index < target {
                for step in steps { _ = try await connection.query(step) }
                _ = try await connection.query("PRAGMA user_version = \(index + 1)")
            }
            _ = try await connection.query("COMMIT")
        } catch {
            _ = try? await connection.query("ROLLBACK")
            throw error
        }
    }

    /// Runs `body` inside one IMMEDIATE transaction; it is committed (and on disk) when this returns.
    func transaction<T: Sendable>(_ body: @escaping @Sendable () async throws -> T) async throws -> T {
        try await gate.run {
            _ = try await self.connection.query("BEGIN IMMEDIATE")
            do {
                let value = try await body()
                _ = try await self.connection.query("COMMIT")
                return value
            } catch {
                _ = try? await self.connection.query("ROLLBACK")
                throw error
            }
        }
    }

    public func record(_ delivery: NotificationDelivery) async throws -> RecordOutcome {
        try await recorder.submit(delivery) { batch in await self.recordBatch(batch) }
    }

    /// The file can be locked for writing now (a full disk shows only in a write).
    public func checkWritable() async throws {
        do {
            try await transaction {}
        } catch {
            throw NotificationStoreError.unwritable(path: path, reason: "\(error)")
        }
    }

    /// One transaction for a batch of deliveries, written a table at a time (see insertAll). When
    /// that fails, the batch is written again with each delivery in a savepoint of its own: one
    /// that fails is rolled back alone and its caller gets the error; the others are committed together.
    func recordBatch(_ deliveries: [NotificationDelivery]) async -> [Result<RecordOutcome, any Error>] {
        if let outcomes = try? await transaction({ try await self.insertAll(deliveries) }) {
            return outcomes.map { .success($0) }
        }
        return await recordEach(deliveries)
    }

    private func recordEach(_ deliveries: [NotificationDelivery]) async -> [Result<RecordOutcome, any Error>] {
        let connection = self.connection
        do {
            return try await transaction {
                var results: [Result<RecordOutcome, any Error>] = []
                for delivery in deliveries {
                    _ = try await connection.query("SAVEPOINT delivery")
                    do {
                        results.append(.success(try await self.insert(delivery)))
                        try? await self.insertAccountLinks(delivery.accountLinks)
                        _ = try await connection.query("RELEASE delivery")
                    } catch {
                        _ = try await connection.query("ROLLBACK TO delivery")
                        _ = try await connection.query("RELEASE delivery")
                        results.append(.failure(error))
                    }
                }
                return results
            }
        } catch {
            // The commit itself failed: nothing of the batch is stored.
            return deliveries.map { _ in .failure(error) }
        }
    }

    private func insert(_ delivery: NotificationDelivery) async throws -> RecordOutcome {
        let connection = self.connection
        let received = SQLiteData.integer(Self.ms(delivery.receivedAt))
        // The UNIQUE notificationUUID decides: a second delivery only counts.
        let upserted = try await connection.query(
            """
            INSERT INTO notifications (
                notification_uuid, notification_type, subtype, environment, bundle_id, app_apple_id, transaction_id,
                original_transaction_id, product_id, signed_date_ms, verdict, verdict_detail, raw_body, decoded_payload,
                first_received_ms, last_received_ms, remote_address, answered_status, elapsed_ms
            ) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            ON CONFLICT(notification_uuid) DO UPDATE SET
                delivery_count = delivery_count + 1, last_received_ms = excluded.last_received_ms,
                remote_address = excluded.remote_address, answered_status = excluded.answered_status,
                elapsed_ms = excluded.elapsed_ms
            RETURNING id, delivery_count
            """, Self.notificationBinds(delivery))
        guard let row = upserted.first, let id = row.column("id")?.integer, let count = row.column("delivery_count")?.integer else {
            throw NotificationStoreError.unwritable(path: self.path, reason: "the upsert returned no row")
        }
        let inserted = try await connection.query(
            """
            INSERT INTO deliveries (notification_id, received_ms, remote_address, answered_status, elapsed_ms)
            VALUES (?, ?, ?, ?, ?) RETURNING id
            """,
            [
                .integer(id), received, Self.text(delivery.remoteAddress), .integer(SQLiteInt64(delivery.answeredStatus)),
                .float(delivery.elapsedMilliseconds),
            ])
        guard let deliveryId = inserted.first?.column("id")?.integer else {
            throw NotificationStoreError.unwritable(path: self.path, reason: "the delivery was not recorded")
        }
        _ = try await connection.query("UPDATE notifications SET last_delivery_id = ? WHERE id = ?", [.integer(deliveryId), .integer(id)])
        return RecordOutcome(id: Int64(id), deliveryId: Int64(deliveryId), deliveryCount: Int(count))
    }

    public func recordForward(_ forward: ForwardOutcome, delivery: Int64) async throws {
        let connection = self.connection
        try await transaction {
            let status: SQLiteData = forward.status.map { .integer(SQLiteInt64($0)) } ?? .null
            let rows = try await connection.query(
                """
                UPDATE deliveries SET forward_result = ?, forward_status = ?, forward_ms = ?, answered_status = ?, elapsed_ms = ?
                WHERE id = ? RETURNING notification_id
                """,
                [
                    .text(forward.result), status, .float(forward.milliseconds), .integer(SQLiteInt64(forward.answeredStatus)),
                    .float(forward.elapsedMilliseconds), .integer(SQLiteInt64(delivery)),
                ])
            guard let notification = rows.first?.column("notification_id")?.integer else { return }
            // The notification shows its latest delivery's answer and forward.
            _ = try await connection.query(
                """
                UPDATE notifications SET forward_result = ?, forward_status = ?, answered_status = ?, elapsed_ms = ?
                WHERE id = ? AND last_delivery_id = ?
                """,
                [
                    .text(forward.result), status, .integer(SQLiteInt64(forward.answeredStatus)), .float(forward.elapsedMilliseconds),
                    .integer(notification), .integer(SQLiteInt64(delivery)),
                ])
        }
    }

    @discardableResult
    public func quarantine(_ body: RefusedDelivery) async throws -> Int64 {
        let connection = self.connection
        return try await transaction {
            let rows = try await connection.query(
                """
                INSERT INTO quarantine (
                    reason, detail, body, body_size, truncated, notification_uuid, notification_type, received_ms,
                    remote_address, answered_status, elapsed_ms
                ) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id
                """,
                [
                    .text(body.reason), .text(body.detail), .blob(ByteBuffer(bytes: body.body)), .integer(SQLiteInt64(body.bodySize)),
                    .integer(body.truncated ? 1 : 0), Self.text(body.notificationUUID), Self.text(body.notificationType),
                    .integer(Self.ms(body.receivedAt)), Self.text(body.remoteAddress), .integer(SQLiteInt64(body.answeredStatus)),
                    .float(body.elapsedMilliseconds),
                ])
            return Int64(rows.first?.column("id")?.integer ?? 0)
        }
    }

    public func notifications(_ filter: NotificationFilter) async throws -> [StoredNotification] {
        var conditions: [String] = []
        var binds: [SQLiteData] = []
        if let since = filter.since {
            conditions.append("last_received_ms >= ?")
            binds.append(.integer(Self.ms(since)))
        }
        if let type = filter.type {
            conditions.append("notification_type = ?")
            binds.append(.text(type))
        }
        if let transaction = filter.transactionId {
            conditions.append("(transaction_id = ? OR original_transaction_id = ?)")
            binds += [.text(transaction), .text(transaction)]
        }
        if let after = filter.afterDelivery {
            conditions.append("last_delivery_id > ?")
            binds.append(.integer(SQLiteInt64(after)))
        }
        let condition = conditions.isEmpty ? "" : "WHERE " + conditions.joined(separator: " AND ")
        var sql = "SELECT \(filter.bodies ? "*" : Self.columnsWithoutBodies) FROM notifications \(condition) ORDER BY last_delivery_id DESC"
        if let limit = filter.limit { sql += " LIMIT \(max(0, limit))" }
        let rows = try await gate.run { [sql, binds] in try await self.connection.query(sql, binds) }
        return rows.map(Self.notification).reversed()
    }

    public func deliveries(ofNotification id: Int64) async throws -> [StoredDelivery] {
        let rows = try await gate.run {
            try await self.connection.query("SELECT * FROM deliveries WHERE notification_id = ? ORDER BY id", [.integer(SQLiteInt64(id))])
        }
        return rows.map { row in
            StoredDelivery(
                id: Int64(row.column("id")?.integer ?? 0), notificationId: id, receivedAt: Self.date(row.column("received_ms")),
                remoteAddress: row.column("remote_address")?.string, answeredStatus: Int(row.column("answered_status")?.integer ?? 0),
                elapsedMilliseconds: row.column("elapsed_ms")?.double ?? 0, forwardResult: row.column("forward_result")?.string,
                forwardStatus: row.column("forward_status")?.integer.map { Int($0) }, forwardMilliseconds: row.column("forward_ms")?.double)
        }
    }

    public func quarantined(_ filter: QuarantineFilter) async throws -> [QuarantinedDelivery] {
        var conditions: [String] = []
        var binds: [SQLiteData] = []
        if let since = filter.since {
            conditions.append("received_ms >= ?")
            binds.append(.integer(Self.ms(since)))
        }
        if let after = filter.afterId {
            conditions.append("id > ?")
            binds.append(.integer(SQLiteInt64(after)))
        }
        let condition = conditions.isEmpty ? "" : "WHERE " + conditions.joined(separator: " AND ")
        var sql = "SELECT * FROM quarantine \(condition) ORDER BY id DESC"
        if let limit = filter.limit { sql += " LIMIT \(max(0, limit))" }
        let rows = try await gate.run { [sql, binds] in try await self.connection.query(sql, binds) }
        return rows.map { row in
            QuarantinedDelivery(
                id: Int64(row.column("id")?.integer ?? 0), reason: row.column("reason")?.string ?? "",
                detail: row.column("detail")?.string ?? "", body: Self.data(row.column("body")) ?? Data(),
                bodySize: Int(row.column("body_size")?.integer ?? 0), truncated: row.column("truncated")?.integer == 1,
                notificationUUID: row.column("notification_uuid")?.string, notificationType: row.column("notification_type")?.string,
                receivedAt: Self.date(row.column("received_ms")), remoteAddress: row.column("remote_address")?.string,
                answeredStatus: Int(row.column("answered_status")?.integer ?? 0), elapsedMilliseconds: row.column("elapsed_ms")?.double ?? 0)
                .counted(row)
        }.reversed()
    }

    public func close() async throws {
        try await gate.run {
            guard !self.connection.isClosed else { return }
            try await self.connection.close()
        }
    }

    // MARK: Conversions

    static func notification(_ row: SQLiteRow) -> StoredNotification {
        StoredNotification(
            id: Int64(row.column("id")?.integer ?? 0), notificationUUID: row.column("notification_uuid")?.string ?? "",
            notificationType: row.column("notification_type")?.string, subtype: row.column("subtype")?.string,
            environment: row.column("environment")?.string, bundleId: row.column("bundle_id")?.string,
            appAppleId: row.column("app_apple_id")?.integer.map(Int64.init), transactionId: row.column("transaction_id")?.string,
            originalTransactionId: row.column("original_transaction_id")?.string, productId: row.column("product_id")?.string,
            signedDate: row.column("signed_date_ms").flatMap { $0.isNull ? nil : date($0) }, verdict: row.column("verdict")?.string ?? "",
            verdictDetail: row.column("verdict_detail")?.string, rawBody: data(row.column("raw_body")) ?? Data(),
            decodedPayload: row.column("decoded_payload")?.string.map { Data($0.utf8) },
            firstReceivedAt: date(row.column("first_received_ms")), lastReceivedAt: date(row.column("last_received_ms")),
            remoteAddress: row.column("remote_address")?.string, answeredStatus: Int(row.column("answered_status")?.integer ?? 0),
            elapsedMilliseconds: row.column("elapsed_ms")?.double ?? 0, forwardResult: row.column("forward_result")?.string,
            forwardStatus: row.column("forward_status")?.integer.map { Int($0) },
            deliveryCount: Int(row.column("delivery_count")?.integer ?? 0), lastDeliveryId: Int64(row.column("last_delivery_id")?.integer ?? 0))
    }

    /// The 19 values of a notification's row, in the column order of its INSERT.
    static func notificationBinds(_ delivery: NotificationDelivery) -> [SQLiteData] {
        let received = SQLiteData.integer(ms(delivery.receivedAt))
        return [
            .text(delivery.notificationUUID), text(delivery.notificationType), text(delivery.subtype),
            text(delivery.environment), text(delivery.bundleId), delivery.appAppleId.map { .integer(SQLiteInt64($0)) } ?? .null,
            text(delivery.transactionId), text(delivery.originalTransactionId), text(delivery.productId),
            delivery.signedDate.map { .integer(ms($0)) } ?? .null, .text(delivery.verdict), text(delivery.verdictDetail),
            .blob(ByteBuffer(bytes: delivery.rawBody)), delivery.decodedPayload.map { .text(String(decoding: $0, as: UTF8.self)) } ?? .null,
            received, received, text(delivery.remoteAddress), .integer(SQLiteInt64(delivery.answeredStatus)),
            .float(delivery.elapsedMilliseconds),
        ]
    }

    static func ms(_ date: Date) -> SQLiteInt64 { SQLiteInt64((date.timeIntervalSince1970 * 1000).rounded()) }

    static func date(_ data: SQLiteData?) -> Date {
        Date(timeIntervalSince1970: Double(data?.integer ?? 0) / 1000)
    }

    static func text(_ value: String?) -> SQLiteData { value.map { .text($0) } ?? .null }

    static func data(_ value: SQLiteData?) -> Data? {
        guard case .blob(let buffer)? = value else { return nil }
        return Data(buffer.readableBytesView)
    }
}

/// Lets one async body run at a time, in arrival order: a store's transaction spans several
/// statements on one connection, which other tasks must not interleave with.
final class SerialGate: Sendable {
    private struct State {
        var busy = false
        var waiters: [CheckedContinuation<Void, Never>] = []
    }
    private let state = Mutex(State())

    func run<T: Sendable>(_ body: @Sendable () async throws -> T) async throws -> T {
        await acquire()
        do {
            let value = try await body()
            release()
            return value
        } catch {
            release()
            throw error
        }
    }

    private func acquire() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let now = state.withLock { state -> Bool in
                if !state.busy {
                    state.busy = true
                    return true
                }
                state.waiters.append(continuation)
                return false
            }
            if now { continuation.resume() }
        }
    }

    private func release() {
        let next = state.withLock { state -> CheckedContinuation<Void, Never>? in
            if state.waiters.isEmpty {
                state.busy = false
                return nil
            }
            return state.waiters.removeFirst()
        }
        next?.resume()
    }
}
