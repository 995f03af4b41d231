import DeskStore
import Foundation
import PostgresNIO
@testable import PostgresStore
import Testing

/// What only the server store does: its migrations, and errors that name the server but never the password.
@Suite struct PostgresStoreTests {
    func delivery(_ uuid: String) -> NotificationDelivery {
        NotificationDelivery(notificationUUID: uuid, rawBody: Data(#"{"signedPayload":"\#(uuid)"}"#.utf8), verdict: "verified", receivedAt: Date())
    }

    @Test func anEmptyDatabaseIsMigratedToTheLatestVersion() async throws {
        let database = try await TestPostgres.database()
        defer { Task { await database.drop() } }
        let store = try await PostgresNotificationStore.open(database.address)
        #expect(try await store.schemaVersion() == PostgresSchema.version)
        #expect(try await store.receiverMayWrite())
        #expect(PostgresSchema.version >= 2)
        #expect(try await store.record(delivery("a")).deliveryCount == 1)
        try await store.close()
        // Opening again changes nothing and keeps what is there.
        let reopened = try await PostgresNotificationStore.open(database.address)
        #expect(try await reopened.notifications(uuids: ["a"]).count == 1)
        try await reopened.close()
    }

    /// The names the server shows for the store's connections (`pg_stat_activity`).
    func connectionNames(_ database: TestDatabase) async throws -> [String] {
        var names: [String] = []
        try await TestPostgres.admin(database.server) { connection in
            let rows = try await connection.query(
                "SELECT application_name FROM pg_stat_activity WHERE datname = \(database.address.database)", logger: PostgresNotificationStore.logger)
            for try await name in rows.decode(String.self) { names.append(name) }
        }
        return names
    }

    @Test func theServerSeesWhichCommandIsConnectedUnlessTheURLNamesIt() async throws {
        let database = try await TestPostgres.database()
        defer { Task { await database.drop() } }
        let receiver = try await PostgresNotificationStore.open(database.address, applicationName: "iapdesk listen")
        _ = try await receiver.record(delivery("named"))
        #expect(try await connectionNames(database).contains("iapdesk listen"))
        try await receiver.close()

        var named = try PostgresAddress(parsing: database.url + (database.url.contains("?") ? "&" : "?") + "application_name=eu-receiver-2")
        named.password = database.address.password
        #expect(named.applicationName == "eu-receiver-2")
        let store = try await PostgresNotificationStore.open(named, applicationName: "iapdesk listen")
        _ = try await store.notifications(uuids: ["named"])
        #expect(try await connectionNames(database).contains("eu-receiver-2"))
        try await store.close()
    }

    @Test func aDatabaseOfThePreviousVersionIsMigratedKeepingItsNotifications() async throws {
        let database = try await TestPostgres.database()
        defer { Task { await database.drop() } }
        let old = try await PostgresNotificationStore.open(database.address, schemaVersion: PostgresSchema.version - 1)
        #expect(try await old.schemaVersion() == PostgresSchema.version - 1)
        _ = try await old.record(delivery("kept"))
        try await old.close()
        let store = try await PostgresNotificationStore.open(database.address)
        #expect(try await store.schemaVersion() == PostgresSchema.version)
        #expect(try await store.notifications(uuids: ["kept"]).count == 1)
        _ = try await store.recordReplay(ReplayAttempt(
            notificationUUID: "kept", targetURL: "http://x", source: .store, command: "replay", sentAt: Date(), result: "HTTP 200", status: 200, milliseconds: 1))
        #expect(try await store.replays(uuids: ["kept"]).count == 1)
        try await store.close()
    }

    @Test func processesStartingTogetherMigrateOnce() async throws {
        let database = try await TestPostgres.database()
        defer { Task { await database.drop() } }
        let stores = try await withThrowingTaskGroup(of: PostgresNotificationStore.self) { group in
            for _ in 0..<4 { group.addTask { try await PostgresNotificationStore.open(database.address) } }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(stores.count == 4)
        for store in stores {
            #expect(try await store.schemaVersion() == PostgresSchema.version)
            try await store.close()
        }
    }

    @Test func aDatabaseOfANewerSchemaIsRefused() async throws {
        let database = try await TestPostgres.database()
        defer { Task { await database.drop() } }
        let store = try await PostgresNotificationStore.open(database.address)
        try await store.setSchemaVersionForTesting(99)
        try await store.close()
        await #expect(throws: NotificationStoreError.newerSchema(path: database.address.redacted, version: 99, known: PostgresSchema.version)) {
            _ = try await PostgresNotificationStore.open(database.address)
        }
    }

    /// docs/team.md's role for agents who may read but not write: it opens a migrated store and
    /// reads it; a write is refused with the server's reason.
    @Test func aReadOnlyRoleReadsButCannotWrite() async throws {
        let database = try await TestPostgres.database()
        defer { Task { await database.drop() } }
        let owner = try await PostgresNotificationStore.open(database.address)
        _ = try await owner.record(delivery("visible"))
        try await owner.close()
        let role = "iapdesk_reader_" + UUID().uuidString.prefix(8).lowercased()
        var onDatabase = database.address
        onDatabase.database = database.address.database
        try await TestPostgres.admin(database.server) { connection in
            try await connection.query(PostgresQuery(unsafeSQL: "CREATE ROLE \(role) LOGIN"), logger: PostgresNotificationStore.logger)
        }
        try await TestPostgres.admin(onDatabase) { connection in
            for statement in [
                "GRANT USAGE ON SCHEMA public TO \(role)", "GRANT SELECT ON ALL TABLES IN SCHEMA public TO \(role)",
            ] {
                try await connection.query(PostgresQuery(unsafeSQL: statement), logger: PostgresNotificationStore.logger)
            }
        }
        var reader = database.address
        reader.username = role
        let store = try await PostgresNotificationStore.open(reader)
        #expect(try await store.receiverMayWrite() == false)
        #expect(try await store.receiverLacks().contains("DELETE ON quarantine"))
        #expect(try await store.notifications(NotificationFilter()).map(\.notificationUUID) == ["visible"])
        // A reader role follows too: the arrivals lock needs no privilege.
        #expect(try await store.notifications(NotificationFilter(afterDelivery: 0)).map(\.notificationUUID) == ["visible"])
        let refused = await #expect(throws: NotificationStoreError.self) { _ = try await store.record(delivery("not-allowed")) }
        #expect("\(refused.map { "\($0)" } ?? "")".contains("permission denied"))
        try await store.close()
        await database.drop()
        try? await TestPostgres.admin(database.server) { connection in
            try await connection.query(PostgresQuery(unsafeSQL: "DROP ROLE IF EXISTS \(role)"), logger: PostgresNotificationStore.logger)
        }
    }

    /// The receiver answers 503 when the store fails; a server gone away must fail a write promptly
    /// (the pool alone keeps retrying for a minute), with words a person reads.
    @Test func aServerGoneAwayFailsAWriteSayingSo() async throws {
        let database = try await TestPostgres.database()
        let store = try await PostgresNotificationStore.open(database.address)
        _ = try await store.record(delivery("before"))
        await database.drop()
        let started = ContinuousClock.now
        let failed = await #expect(throws: NotificationStoreError.self) { _ = try await store.record(delivery("after")) }
        // Within the pool's minute of retries, with room for a loaded machine past the query deadline.
        #expect(ContinuousClock.now - started < .seconds(PostgresNotificationStore.queryDeadline + 40))
        let said = failed.map { "\($0)" } ?? ""
        #expect(said.contains(database.address.redacted))
        #expect(!said.contains("ConnectionPoolError"))
        try await store.close()
    }

    @Test func errorsNameTheServerButNeverThePassword() async throws {
        let server = try await TestPostgres.address()
        // Nothing listens on port 1.
        var unreachable = try PostgresAddress(parsing: "postgres://agent:s3cret-pw@127.0.0.1:1/iapdesk")
        unreachable.tls = .disable
        let refused = await #expect(throws: NotificationStoreError.self) { _ = try await PostgresNotificationStore.open(unreachable) }
        let refusedText = refused.map { "\($0)" } ?? ""
        #expect(refusedText.contains("postgres://agent@127.0.0.1:1/iapdesk"))
        #expect(refusedText.contains("cannot connect"))
        #expect(!refusedText.contains("s3cret"))
        // A database that does not exist: the server's own words.
        var missing = server
        missing.database = "iapdesk_no_such_database"
        missing.password = "s3cret-pw"
        let absent = await #expect(throws: NotificationStoreError.self) { _ = try await PostgresNotificationStore.open(missing) }
        let absentText = absent.map { "\($0)" } ?? ""
        #expect(absentText.contains("iapdesk_no_such_database"))
        #expect(absentText.contains("does not exist"))
        #expect(!absentText.contains("s3cret"))
    }
}

/// Reading `--store`, `IAPDESK_STORE` and the profile's `store`.
@Suite struct StoreLocationTests {
    @Test func aPathIsAFileAndAPostgresURLIsAServer() throws {
        #expect(try StoreLocation(parsing: "/var/lib/iapdesk/n.sqlite") == .file(path: "/var/lib/iapdesk/n.sqlite"))
        #expect(try StoreLocation(parsing: " relative/n.sqlite ") == .file(path: "relative/n.sqlite"))
        let location = try StoreLocation(parsing: "postgres://sam:p%40ss@db.example.com:6432/support?sslmode=require")
        guard case .postgres(let address) = location else {
            Issue.record("not a server: \(location)")
            return
        }
        #expect(address.host == "db.example.com")
        #expect(address.port == 6432)
        #expect(address.username == "sam")
        #expect(address.password == "p@ss")
        #expect(address.database == "support")
        #expect(address.tls == .require)
        #expect(location.description == "postgres://sam@db.example.com:6432/support?sslmode=require")
        #expect(location.isShared)
        #expect(try StoreLocation(parsing: "postgresql://sam@db/support").description == "postgres://sam@db:5432/support")
    }

    @Test func loopbackAndSocketsNeedNoTLSAndThePasswordMayComeFromPGPASSWORD() throws {
        let local = try PostgresAddress(parsing: "postgres://sam@127.0.0.1/support", environment: ["PGPASSWORD": "from-env"])
        #expect(local.tls == .disable)
        #expect(local.password == "from-env")
        let socket = try PostgresAddress(parsing: "postgres://sam@/support?host=/var/run/postgresql", environment: [:])
        #expect(socket.socketFolder == "/var/run/postgresql")
        #expect(socket.host == nil)
        #expect(socket.password == nil)
        #expect(socket.redacted == "postgres://sam@:5432/support?host=/var/run/postgresql&sslmode=disable")
        let loopback6 = try PostgresAddress(parsing: "postgresql://sam:pw@[::1]:5433/support?application_name=receiver-2", environment: [:])
        #expect(loopback6.host == "::1")
        #expect(loopback6.tls == .disable)
        #expect(loopback6.redacted == "postgres://sam@[::1]:5433/support?sslmode=disable&application_name=receiver-2")
    }

    @Test func aWrongStoreSaysWhatIsWrongWithoutEchoingIt() {
        func error(_ text: String) -> String {
            do {
                _ = try StoreLocation(parsing: text)
                return "accepted"
            } catch {
                return error.description
            }
        }
        #expect(error("") == "the store is empty: give a file path or a postgres:// URL")
        #expect(error("mysql://sam:pw@db/support").contains("must start with postgres://"))
        #expect(error("postgres://sam:pw@db.example.com") .contains("names no database"))
        #expect(error("postgres://:pw@db.example.com/support").contains("names no user"))
        #expect(error("postgres://sam:pw@db.example.com:99999/support").contains("port"))
        #expect(error("postgres://sam:pw@db/support?sslmode=maybe").contains("sslmode must be one of"))
        #expect(error("postgres://sam:pw@db/support?timeout=3").contains("unknown parameter timeout"))
        #expect(error("postgres://sam:pw@db/support?timeout=3").contains("application_name"))
        for typo in ["postgres:/sam:hunter2@db/support", "postgresql:sam:hunter2@db/support", "postgres//sam:hunter2@db/support"] {
            let said = error(typo)
            #expect(said.contains("looks like a URL but is not one"), "\(typo): \(said)")
            #expect(!said.contains("hunter2"))
        }
        let unreadable = error("postgres://sam:hunter2@db:abc/support")
        #expect(unreadable.contains("cannot be read"))
        #expect(!unreadable.contains("hunter2"))
    }
}
