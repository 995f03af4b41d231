import DeskStore
import Foundation
import PostgresNIO

/// The account index on the team's server (schema version 6): what any agent's lookup or any
/// receiver saw, every agent finds.
extension PostgresNotificationStore: AccountIndex {
    static let accountIndexSchema = [
        """
        CREATE TABLE account_index (
            kind TEXT NOT NULL,
            account TEXT NOT NULL,
            original_transaction_id TEXT NOT NULL,
            environment TEXT NOT NULL,
            source TEXT NOT NULL,
            first_seen TIMESTAMPTZ NOT NULL,
            last_seen TIMESTAMPTZ NOT NULL,
            signed TIMESTAMPTZ NOT NULL,
            PRIMARY KEY (kind, account, original_transaction_id, environment)
        )
        """,
    ]

    public func recordAccountLinks(_ links: [AccountLink]) async throws {
        // Merged first: one statement may not touch a row twice.
        let links = AccountLink.merged(links)
        guard !links.isEmpty else { return }
        try await run {
            try await self.client.withTransaction(logger: Self.logger) { connection in
                try await Self.insertAccountLinks(links, on: connection)
            }
        }
    }

    /// In one statement whatever the number of links (arrays unnested: times as epoch milliseconds,
    /// which the driver sends as arrays). As the index of arrivals, the statement is a transaction of
    /// its own that waits at most 250 ms for a row another holds and does not wait for its commit to
    /// reach the disk (settings made inside the statement, before it touches a row, to spare round trips).
    static func insertAccountLinks(_ links: [AccountLink], on connection: PostgresConnection, asIndexOfArrivals: Bool = false) async throws {
        guard !links.isEmpty else { return }
        func ms(_ date: Date) -> Int64 { Int64((date.timeIntervalSince1970 * 1000).rounded()) }
        let kinds = links.map(\.kind.rawValue), accounts = links.map(\.account), originals = links.map(\.originalTransactionId)
        let environments = links.map(\.environment), sources = links.map(\.source.rawValue)
        let firstSeen = links.map { ms($0.firstSeen) }, lastSeen = links.map { ms($0.lastSeen) }, signed = links.map { ms($0.signedDate) }
        let settings = asIndexOfArrivals
            ? "(SELECT set_config('lock_timeout', '250ms', true) || set_config('synchronous_commit', 'off', true) AS made)"
            : "(SELECT '' AS made)"
        try await connection.query(
            """
            INSERT INTO account_index (kind, account, original_transaction_id, environment, source, first_seen, last_seen, signed)
            SELECT k, a, o, e, s, to_timestamp(f / 1000.0), to_timestamp(l / 1000.0), to_timestamp(g / 1000.0)
            FROM \(unescaped: settings) AS settings, unnest(\(kinds)::text[], \(accounts)::text[], \(originals)::text[], \(environments)::text[], \(sources)::text[],
                        \(firstSeen)::bigint[], \(lastSeen)::bigint[], \(signed)::bigint[]) AS link(k, a, o, e, s, f, l, g)
            WHERE settings.made IS NOT NULL
            ON CONFLICT (kind, account, original_transaction_id, environment) DO UPDATE SET
                source = CASE WHEN excluded.last_seen >= account_index.last_seen THEN excluded.source ELSE account_index.source END,
                first_seen = LEAST(account_index.first_seen, excluded.first_seen),
                last_seen = GREATEST(account_index.last_seen, excluded.last_seen),
                signed = GREATEST(account_index.signed, excluded.signed)
            """, logger: logger)
    }

    public func accountLinks(_ kind: AccountLink.Kind, _ account: String) async throws -> [AccountLink] {
        let account = AccountLink.normalized(account, kind)
        return try await rows(
            """
            SELECT account, original_transaction_id, environment, source, first_seen, last_seen, signed FROM account_index
            WHERE kind = \(kind.rawValue) AND account = \(account) ORDER BY last_seen DESC, original_transaction_id
            """
        ) { row -> AccountLink? in
            guard let source = AccountLink.Source(rawValue: try row["source"].decode(String.self)) else { return nil }
            var link = AccountLink(
                kind: kind, account: try row["account"].decode(String.self), originalTransactionId: try row["original_transaction_id"].decode(String.self),
                environment: try row["environment"].decode(String.self), source: source, seen: Self.rounded(try row["last_seen"].decode(Date.self)),
                signedDate: Self.rounded(try row["signed"].decode(Date.self)))
            link.firstSeen = Self.rounded(try row["first_seen"].decode(Date.self))
            return link
        }.compactMap { $0 }
    }

    public func accountIndexSize() async throws -> [AccountLink.Kind: Int] {
        let counted = try await rows("SELECT kind, COUNT(DISTINCT account) FROM account_index GROUP BY kind") { row in
            (try row[0].decode(String.self), try row[1].decode(Int.self))
        }
        var sizes: [AccountLink.Kind: Int] = [:]
        for (kind, count) in counted { if let kind = AccountLink.Kind(rawValue: kind) { sizes[kind] = count } }
        return sizes
    }
}
