import DeskStore
import Foundation
import PostgresNIO

/// The audit ledger on the team's server (schema version 3): every agent's writes in one table.
extension PostgresNotificationStore: LedgerStore {
    public func appendLedgerLine(_ line: LedgerLine) async throws {
        try await run { _ = try await self.client.query(Self.insert(line), logger: Self.logger) }
    }

    public func ledgerLines() async throws -> [LedgerLine] {
        try await rows("SELECT * FROM ledger ORDER BY id") { row in
            LedgerLine(
                time: Self.rounded(try row["time"].decode(Date.self)), requestIdentifier: try row["request_identifier"].decode(String.self),
                write: try row["write"].decode(String.self), path: try row["path"].decode(String.self),
                agent: try row["agent"].decode(String?.self), entry: try row["entry"].decode(Data.self))
        }
    }

    public func importLedgerLines(_ lines: [LedgerLine], source: String) async throws -> Int? {
        try await run {
            try await self.client.withTransaction(logger: Self.logger) { connection in
                // Two agents starting at once on one server: the second waits, then finds it done.
                let claimed = try await connection.query(
                    """
                    INSERT INTO ledger_imports (source, lines, imported) VALUES (\(source), \(lines.count), \(Date()))
                    ON CONFLICT (source) DO NOTHING RETURNING source
                    """, logger: Self.logger)
                var fresh = false
                for try await _ in claimed.decode(String.self) { fresh = true }
                guard fresh else { return nil }
                for line in lines { try await connection.query(Self.insert(line), logger: Self.logger) }
                return lines.count
            }
        }
    }

    private static func insert(_ line: LedgerLine) throws -> PostgresQuery {
        try """
        INSERT INTO ledger (time, request_identifier, write, path, agent, entry)
        VALUES (\(rounded(line.time)), \(line.requestIdentifier), \(line.write), \(line.path), \(line.agent), \(line.entry))
        """
    }
}

/// A session advisory lock on a connection of its own, held only while `body` runs; a process
/// that dies drops its connection and with it the lock.
extension PostgresNotificationStore: WriteLocking {
    public func withWriteLock<T: Sendable>(_ key: String, _ body: @Sendable () async throws -> T) async throws -> T {
        let namespace = PostgresSchema.Lock.writes
        do {
            return try await client.withConnection { connection in
                try await connection.query("SELECT pg_advisory_lock(\(namespace), hashtext(\(key)))", logger: Self.logger)
                do {
                    let value = try await body()
                    _ = try? await connection.query("SELECT pg_advisory_unlock(\(namespace), hashtext(\(key)))", logger: Self.logger)
                    return value
                } catch {
                    _ = try? await connection.query("SELECT pg_advisory_unlock(\(namespace), hashtext(\(key)))", logger: Self.logger)
                    throw error
                }
            }
        } catch let error as PSQLError {
            throw storeError(error)
        }
    }
}
