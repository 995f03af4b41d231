import Foundation
import SQLiteNIO

/// The audit ledger in the SQLite file (schema version 3).
extension SQLiteNotificationStore {
    public func appendLedgerLine(_ line: LedgerLine) async throws {
        let connection = self.connection
        try await transaction { try await Self.insert(line, on: connection) }
    }

    public func ledgerLines() async throws -> [LedgerLine] {
        let rows = try await gate.run { try await self.connection.query("SELECT * FROM ledger ORDER BY id") }
        return rows.map { row in
            LedgerLine(
                time: Self.date(row.column("time_ms")), requestIdentifier: row.column("request_identifier")?.string ?? "",
                write: row.column("write")?.string ?? "", path: row.column("path")?.string ?? "", agent: row.column("agent")?.string,
                entry: Self.data(row.column("entry")) ?? Data())
        }
    }

    public func importLedgerLines(_ lines: [LedgerLine], source: String) async throws -> Int? {
        let connection = self.connection
        return try await transaction {
            let done = try await connection.query("SELECT lines FROM ledger_imports WHERE source = ?", [.text(source)])
            guard done.isEmpty else { return nil }
            for line in lines { try await Self.insert(line, on: connection) }
            _ = try await connection.query(
                "INSERT INTO ledger_imports (source, lines, imported_ms) VALUES (?, ?, ?)",
                [.text(source), .integer(SQLiteInt64(lines.count)), .integer(Self.ms(Date()))])
            return lines.count
        }
    }

    private static func insert(_ line: LedgerLine, on connection: SQLiteConnection) async throws {
        _ = try await connection.query(
            "INSERT INTO ledger (time_ms, request_identifier, write, path, agent, entry) VALUES (?, ?, ?, ?, ?, ?)",
            [
                .integer(ms(line.time)), .text(line.requestIdentifier), .text(line.write), .text(line.path), text(line.agent),
                .blob(ByteBuffer(bytes: line.entry)),
            ])
    }
}

/// One agent's processes on one machine share the file: a lock file beside it is enough.
extension SQLiteNotificationStore: WriteLocking {
    public func withWriteLock<T: Sendable>(_ key: String, _ body: @Sendable () async throws -> T) async throws -> T {
        try await FileLock.withLock(path + ".write-lock", body)
    }
}
