import DeskStore
import PostgresNIO

/// Brings a database's schema up to date at start. A database already up to date is only read, so
/// an agent whose role may not create tables opens it all the same.
struct PostgresMigrator {
    let connection: PostgresConnection
    let location: String

    func migrate(upTo target: Int) async throws {
        let logger = PostgresNotificationStore.logger
        if let version = try await currentVersion(), version >= target {
            guard version <= PostgresSchema.version else { throw newer(version) }
            return
        }
        // Two processes starting on a new database: the second waits here, then finds it made.
        try await connection.query(
            "SELECT pg_advisory_lock(\(PostgresSchema.Lock.namespace), \(PostgresSchema.Lock.migration))", logger: logger)
        do {
            try await applyMissing(upTo: target)
            try await connection.query(
                "SELECT pg_advisory_unlock(\(PostgresSchema.Lock.namespace), \(PostgresSchema.Lock.migration))", logger: logger)
        } catch {
            _ = try? await connection.query(
                "SELECT pg_advisory_unlock(\(PostgresSchema.Lock.namespace), \(PostgresSchema.Lock.migration))", logger: logger)
            throw error
        }
    }

    private func applyMissing(upTo target: Int) async throws {
        let logger = PostgresNotificationStore.logger
        if try await currentVersion() == nil {
            try await connection.query("CREATE TABLE IF NOT EXISTS iapdesk_schema (version INTEGER NOT NULL)", logger: logger)
            try await connection.query(
                "INSERT INTO iapdesk_schema (version) SELECT 0 WHERE NOT EXISTS (SELECT 1 FROM iapdesk_schema)", logger: logger)
        }
        let version = try await currentVersion() ?? 0
        guard version <= PostgresSchema.version else { throw newer(version) }
        for (index, steps) in PostgresSchema.migrations.enumerated() where index >= version && index < target {
            try await connection.query("BEGIN", logger: logger)
            do {
                for step in steps { try await connection.query(PostgresQuery(unsafeSQL: step), logger: logger) }
                try await connection.query("UPDATE iapdesk_schema SET version = \(index + 1)", logger: logger)
                try await connection.query("COMMIT", logger: logger)
            } catch {
                _ = try? await connection.query("ROLLBACK", logger: logger)
                throw error
            }
        }
    }

    /// The version recorded, or nil when the database has no iapdesk tables yet.
    private func currentVersion() async throws -> Int? {
        let logger = PostgresNotificationStore.logger
        let exists = try await connection.query("SELECT to_regclass('iapdesk_schema') IS NOT NULL", logger: logger)
        var found = false
        for try await value in exists.decode(Bool.self) { found = value }
        guard found else { return nil }
        let rows = try await connection.query("SELECT version FROM iapdesk_schema", logger: logger)
        for try await version in rows.decode(Int.self) { return version }
        return nil
    }

    private func newer(_ version: Int) -> NotificationStoreError {
        .newerSchema(path: location, version: version, known: PostgresSchema.version)
    }
}
