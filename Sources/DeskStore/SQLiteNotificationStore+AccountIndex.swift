import Foundation
import SQLiteNIO

/// The account index in the SQLite file (schema version 6).
extension SQLiteNotificationStore: AccountIndex {
    static let accountIndexSchema = [
        """
        CREATE TABLE account_index (
            kind TEXT NOT NULL,
            account TEXT NOT NULL,
            original_transaction_id TEXT NOT NULL,
            environment TEXT NOT NULL,
            source TEXT NOT NULL,
            first_seen_ms INTEGER NOT NULL,
            last_seen_ms INTEGER NOT NULL,
            signed_ms INTEGER NOT NULL,
            PRIMARY KEY (kind, account, original_transaction_id, environment)
        )
        """,
    ]

    public func recordAccountLinks(_ links: [AccountLink]) async throws {
        let links = AccountLink.merged(links)
        guard !links.isEmpty else { return }
        try await transaction { try await self.insertAccountLinks(links) }
    }

    /// Inside the caller's transaction: with a batch of deliveries, so a notification and what it
    /// links are stored together.
    func insertAccountLinks(_ links: [AccountLink]) async throws {
        let connection = self.connection
        var start = 0
        while start < links.count {
            let chunk = links[start..<min(links.count, start + Self.rowsPerStatement)]
            var binds: [SQLiteData] = []
            for link in chunk {
                binds += [
                    .text(link.kind.rawValue), .text(link.account), .text(link.originalTransactionId), .text(link.environment),
                    .text(link.source.rawValue), .integer(Self.ms(link.firstSeen)), .integer(Self.ms(link.lastSeen)),
                    .integer(Self.ms(link.signedDate)),
                ]
            }
            _ = try await connection.query(
                """
                INSERT INTO account_index (kind, account, original_transaction_id, environment, source, first_seen_ms, last_seen_ms, signed_ms)
                VALUES \(Self.rows(chunk.count, of: 8))
                ON CONFLICT(kind, account, original_transaction_id, environment) DO UPDATE SET
                    source = CASE WHEN excluded.last_seen_ms >= last_seen_ms THEN excluded.source ELSE source END,
                    first_seen_ms = MIN(first_seen_ms, excluded.first_seen_ms),
                    last_seen_ms = MAX(last_seen_ms, excluded.last_seen_ms),
                    signed_ms = MAX(signed_ms, excluded.signed_ms)
                """, binds)
            start = chunk.endIndex
        }
    }

    public func accountLinks(_ kind: AccountLink.Kind, _ account: String) async throws -> [AccountLink] {
        let rows = try await gate.run {
            try await self.connection.query(
                "SELECT * FROM account_index WHERE kind = ? AND account = ? ORDER BY last_seen_ms DESC, original_transaction_id",
                [.text(kind.rawValue), .text(AccountLink.normalized(account, kind))])
        }
        return rows.compactMap { row in
            guard let original = row.column("original_transaction_id")?.string,
                  let source = AccountLink.Source(rawValue: row.column("source")?.string ?? "")
            else { return nil }
            var link = AccountLink(
                kind: kind, account: row.column("account")?.string ?? account, originalTransactionId: original,
                environment: row.column("environment")?.string, source: source, seen: Self.date(row.column("last_seen_ms")),
                signedDate: Self.date(row.column("signed_ms")))
            link.firstSeen = Self.date(row.column("first_seen_ms"))
            return link
        }
    }

    public func accountIndexSize() async throws -> [AccountLink.Kind: Int] {
        let rows = try await gate.run {
            try await self.connection.query("SELECT kind, COUNT(DISTINCT account) AS accounts FROM account_index GROUP BY kind")
        }
        var sizes: [AccountLink.Kind: Int] = [:]
        for row in rows {
            if let kind = AccountLink.Kind(rawValue: row.column("kind")?.string ?? "") { sizes[kind] = Int(row.column("accounts")?.integer ?? 0) }
        }
        return sizes
    }
}
