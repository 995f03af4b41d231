import DeskStore
import Foundation
import PostgresNIO

/// The consumption policy's overrides and claims on the team's server (schema version 8): every
/// agent sets overrides for every receiver, and receivers on one server answer each request once.
extension PostgresNotificationStore: RefundPolicyStore {
    static let refundPolicySchema = [
        """
        CREATE TABLE refund_overrides (
            id BIGSERIAL PRIMARY KEY,
            time TIMESTAMPTZ NOT NULL,
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
            claimed TIMESTAMPTZ NOT NULL,
            until TIMESTAMPTZ NOT NULL,
            updated TIMESTAMPTZ NOT NULL
        )
        """,
    ]

    public func recordRefundOverride(_ change: RefundOverride) async throws {
        let time = Self.rounded(change.time)
        try await run {
            _ = try await self.client.query(
                """
                INSERT INTO refund_overrides (time, agent, kind, account, refund_preference, note)
                VALUES (\(time), \(change.agent), \(change.kind.rawValue), \(change.account), \(change.refundPreference), \(change.note))
                """, logger: Self.logger)
        }
    }

    public func refundOverrideChanges() async throws -> [RefundOverride] {
        try await rows("SELECT * FROM refund_overrides ORDER BY id") { row in
            RefundOverride(
                kind: RefundOverride.Kind(rawValue: try row["kind"].decode(String.self)) ?? .originalTransactionId,
                account: try row["account"].decode(String.self), refundPreference: try row["refund_preference"].decode(String?.self),
                note: try row["note"].decode(String?.self), agent: try row["agent"].decode(String.self), time: Self.rounded(try row["time"].decode(Date.self)))
        }
    }

    public func claimPolicyAnswer(_ notificationUUID: String, claimant: String, now: Date, until: Date, replacing: String?) async throws -> PolicyClaimResult {
        let (now, until) = (Self.rounded(now), Self.rounded(until))
        return try await run {
            try await self.client.withTransaction(logger: Self.logger) { connection in
                // Inserted, or else locked: two receivers claiming at once meet on the same row.
                let inserted = try await connection.query(
                    """
                    INSERT INTO policy_answers (notification_uuid, claimant, state, claimed, until, updated)
                    VALUES (\(notificationUUID), \(claimant), 'working', \(now), \(until), \(now))
                    ON CONFLICT (notification_uuid) DO NOTHING RETURNING notification_uuid
                    """, logger: Self.logger)
                for try await _ in inserted.decode(String.self) {
                    let claim = PolicyClaim(
                        notificationUUID: notificationUUID, claimant: claimant, state: .working, detail: nil, claimedAt: now, until: until, updatedAt: now)
                    return .claimed(claim, takenOverFrom: nil)
                }
                var existing: PolicyClaim?
                for try await row in try await connection.query(
                    "SELECT * FROM policy_answers WHERE notification_uuid = \(notificationUUID) FOR UPDATE", logger: Self.logger)
                {
                    existing = try Self.claim(row.makeRandomAccess())
                }
                switch PolicyClaimResult.decide(existing: existing, claimant: claimant, now: now, replacing: replacing) {
                case .report(let result):
                    return result
                case .insert, .takeOver:
                    try await connection.query(
                        """
                        UPDATE policy_answers SET claimant = \(claimant), claimed = \(now), until = \(until), updated = \(now)
                        WHERE notification_uuid = \(notificationUUID)
                        """, logger: Self.logger)
                    let claim = PolicyClaim(
                        notificationUUID: notificationUUID, claimant: claimant, state: .working, detail: nil, claimedAt: now, until: until, updatedAt: now)
                    return .claimed(claim, takenOverFrom: existing.flatMap { $0.claimant == claimant ? nil : $0.claimant })
                }
            }
        }
    }

    public func updatePolicyClaim(_ notificationUUID: String, claimant: String, state: PolicyClaim.State, detail: String?, until: Date, now: Date) async throws -> Bool {
        let (now, until) = (Self.rounded(now), Self.rounded(until))
        return try await run {
            let rows = try await self.client.query(
                """
                UPDATE policy_answers SET state = \(state.rawValue), detail = \(detail), until = \(until), updated = \(now)
                WHERE notification_uuid = \(notificationUUID) AND claimant = \(claimant) AND state = 'working' RETURNING notification_uuid
                """, logger: Self.logger)
            for try await _ in rows.decode(String.self) { return true }
            return false
        }
    }

    public func policyClaims(_ notificationUUIDs: Set<String>) async throws -> [PolicyClaim] {
        guard !notificationUUIDs.isEmpty else { return [] }
        return try await rows(
            "SELECT * FROM policy_answers WHERE notification_uuid = ANY(\(notificationUUIDs.sorted())) ORDER BY notification_uuid", Self.claim)
    }

    private static func claim(_ row: PostgresRandomAccessRow) throws -> PolicyClaim {
        PolicyClaim(
            notificationUUID: try row["notification_uuid"].decode(String.self), claimant: try row["claimant"].decode(String.self),
            state: PolicyClaim.State(rawValue: try row["state"].decode(String.self)) ?? .unknown, detail: try row["detail"].decode(String?.self),
            claimedAt: rounded(try row["claimed"].decode(Date.self)), until: rounded(try row["until"].decode(Date.self)),
            updatedAt: rounded(try row["updated"].decode(Date.self)))
    }
}
