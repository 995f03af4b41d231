import Foundation
import SQLiteNIO

/// The consumption policy's overrides and claims in the SQLite file (schema version 8).
extension SQLiteNotificationStore: RefundPolicyStore {
    static let refundPolicySchema = [
        """
        CREATE TABLE refund_overrides (
            id INTEGER PRIMARY KEY,
            time_ms INTEGER NOT NULL,
            agent TEXT NOT NULL,
            kind TEXT NOT NULL,
            account TEXT NOT NULL,
            refund_preference TEXT,
            note TEXT
        )
        """,
        """
        CREATE TABLE policy_answers (
            notification_uuid TEXT PRIMARY KEY,
            claimant TEXT NOT NULL,
            state TEXT NOT NULL,
            detail TEXT,
            claimed_ms INTEGER NOT NULL,
            until_ms INTEGER NOT NULL,
            updated_ms INTEGER NOT NULL
        )
        """,
    ]

    public func recordRefundOverride(_ change: RefundOverride) async throws {
        let connection = self.connection
        try await transaction {
            _ = try await connection.query(
                "INSERT INTO refund_overrides (time_ms, agent, kind, account, refund_preference, note) VALUES (?, ?, ?, ?, ?, ?)",
                [
                    .integer(Self.ms(change.time)), .text(change.agent), .text(change.kind.rawValue), .text(change.account),
                    Self.text(change.refundPreference), Self.text(change.note),
                ])
        }
    }

    public func refundOverrideChanges() async throws -> [RefundOverride] {
        let rows = try await gate.run { try await self.connection.query("SELECT * FROM refund_overrides ORDER BY id") }
        return rows.compactMap { row in
            guard let kind = RefundOverride.Kind(rawValue: row.column("kind")?.string ?? "") else { return nil }
            return RefundOverride(
                kind: kind, account: row.column("account")?.string ?? "", refundPreference: row.column("refund_preference")?.string,
                note: row.column("note")?.string, agent: row.column("agent")?.string ?? "", time: Self.date(row.column("time_ms")))
        }
    }

    public func claimPolicyAnswer(_ notificationUUID: String, claimant: String, now: Date, until: Date, replacing: String?) async throws -> PolicyClaimResult {
        let connection = self.connection
        return try await transaction {
            let existing = try await Self.claim(notificationUUID, on: connection)
            switch PolicyClaimResult.decide(existing: existing, claimant: claimant, now: now, replacing: replacing) {
            case .report(let result):
                return result
            case .insert:
                _ = try await connection.query(
                    """
                    INSERT INTO policy_answers (notification_uuid, claimant, state, detail, claimed_ms, until_ms, updated_ms)
                    VALUES (?, ?, 'working', NULL, ?, ?, ?)
                    """,
                    [.text(notificationUUID), .text(claimant), .integer(Self.ms(now)), .integer(Self.ms(until)), .integer(Self.ms(now))])
            case .takeOver:
                _ = try await connection.query(
                    "UPDATE policy_answers SET claimant = ?, claimed_ms = ?, until_ms = ?, updated_ms = ? WHERE notification_uuid = ?",
                    [.text(claimant), .integer(Self.ms(now)), .integer(Self.ms(until)), .integer(Self.ms(now)), .text(notificationUUID)])
            }
            let claim = PolicyClaim(
                notificationUUID: notificationUUID, claimant: claimant, state: .working, detail: nil, claimedAt: Self.date(.integer(Self.ms(now))),
                until: Self.date(.integer(Self.ms(until))), updatedAt: Self.date(.integer(Self.ms(now))))
            let previous = existing.flatMap { $0.claimant == claimant ? nil : $0.claimant }
            return .claimed(claim, takenOverFrom: previous)
        }
    }

    public func updatePolicyClaim(_ notificationUUID: String, claimant: String, state: PolicyClaim.State, detail: String?, until: Date, now: Date) async throws -> Bool {
        let connection = self.connection
        return try await transaction {
            let rows = try await connection.query(
                """
                UPDATE policy_answers SET state = ?, detail = ?, until_ms = ?, updated_ms = ?
                WHERE notification_uuid = ? AND claimant = ? AND state = 'working' RETURNING notification_uuid
                """,
                [.text(state.rawValue), Self.text(detail), .integer(Self.ms(until)), .integer(Self.ms(now)), .text(notificationUUID), .text(claimant)])
            return !rows.isEmpty
        }
    }

    public func policyClaims(_ notificationUUIDs: Set<String>) async throws -> [PolicyClaim] {
        var found: [PolicyClaim] = []
        let sorted = notificationUUIDs.sorted()
        for start in stride(from: 0, to: sorted.count, by: Self.lookupChunk) {
            let chunk = Array(sorted[start..<min(start + Self.lookupChunk, sorted.count)])
            let marks = Array(repeating: "?", count: chunk.count).joined(separator: ", ")
            let rows = try await gate.run {
                try await self.connection.query("SELECT * FROM policy_answers WHERE notification_uuid IN (\(marks))", chunk.map { .text($0) })
            }
            found += rows.compactMap(Self.claim)
        }
        return found.sorted { $0.notificationUUID < $1.notificationUUID }
    }

    private static func claim(_ notificationUUID: String, on connection: SQLiteConnection) async throws -> PolicyClaim? {
        try await connection.query("SELECT * FROM policy_answers WHERE notification_uuid = ?", [.text(notificationUUID)]).first.flatMap(claim)
    }

    private static func claim(_ row: SQLiteRow) -> PolicyClaim? {
        guard let uuid = row.column("notification_uuid")?.string, let state = PolicyClaim.State(rawValue: row.column("state")?.string ?? "") else { return nil }
        return PolicyClaim(
            notificationUUID: uuid, claimant: row.column("claimant")?.string ?? "", state: state, detail: row.column("detail")?.string,
            claimedAt: date(row.column("claimed_ms")), until: date(row.column("until_ms")), updatedAt: date(row.column("updated_ms")))
    }
}
