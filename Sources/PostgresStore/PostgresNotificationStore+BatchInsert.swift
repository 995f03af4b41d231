import DeskStore
import Foundation
import NIOCore
import PostgresNIO

/// A whole group commit's deliveries in one statement, one round trip to the server: each column
/// as an array, unnested in the deliveries' order. The statement takes the arrivals lock (shared)
/// before it draws the delivery IDs, in that order, from their sequence: a cursor read waits for it.
extension PostgresNotificationStore {
    /// Rounds in which no notificationUUID repeats: one statement may upsert a row only once, so a
    /// repeat delivery goes in the round after its first one, keeping the order of each UUID's deliveries.
    static func rounds(_ deliveries: [NotificationDelivery]) -> [[Int]] {
        var rounds: [[Int]] = []
        var roundOf: [String: Int] = [:]
        for (index, delivery) in deliveries.enumerated() {
            let round = roundOf[delivery.notificationUUID].map { $0 + 1 } ?? 0
            roundOf[delivery.notificationUUID] = round
            if round == rounds.count { rounds.append([]) }
            rounds[round].append(index)
        }
        return rounds
    }

    /// Columns that may be NULL: arrays cannot carry NULLs here, so each row has a mask of them.
    private enum Nullable: Int64, CaseIterable {
        case type = 1, subtype = 2, environment = 4, bundle = 8, appAppleId = 16, transaction = 32, original = 64, product = 128
        case signed = 256, verdictDetail = 512, payload = 1024, remote = 2048
    }

    /// Upserts the deliveries of one round and records each delivery; the outcomes in their order.
    static func insertRound(_ deliveries: [NotificationDelivery], on connection: PostgresConnection) async throws -> [RecordOutcome] {
        var outcomes: [RecordOutcome] = []
        for try await (id, deliveryId, count) in try await connection.execute(InsertRound(deliveries), logger: logger) {
            outcomes.append(RecordOutcome(id: id, deliveryId: deliveryId, deliveryCount: count))
        }
        guard outcomes.count == deliveries.count else {
            throw StoreFailure("the batch stored \(outcomes.count) of \(deliveries.count) deliveries")
        }
        return outcomes
    }

    /// The round's statement, prepared once on each connection: the server parses and plans it
    /// once, not for every batch (that was a third of its time for a batch of a few deliveries).
    struct InsertRound: PostgresPreparedStatement {
        static let sql = """
        WITH arrivals AS MATERIALIZED (
            SELECT pg_advisory_xact_lock_shared(\(PostgresSchema.Lock.namespace), \(PostgresSchema.Lock.arrivals))::text AS held
        ),
        input AS MATERIALIZED (
            -- The IDs are drawn only once the lock is held: each depends on the row that took it.
            SELECT i.*, CASE WHEN a.held IS NOT NULL THEN nextval(pg_get_serial_sequence('deliveries', 'id')) END AS delivery_id
            FROM arrivals a CROSS JOIN unnest(
                $1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::bigint[],
                $7::text[], $8::text[], $9::text[], $10::bigint[], $11::text[], $12::text[],
                $13::bytea[], $14::text[], $15::bigint[], $16::text[], $17::bigint[], $18::float8[],
                $19::bigint[]
            ) WITH ORDINALITY AS i(uuid, type, subtype, environment, bundle, app_id, txn, original, product, signed, verdict, detail,
                                  body, payload, received, remote, answered, elapsed, nulls, ord)
            ORDER BY i.ord
        ),
        upserted AS (
            INSERT INTO notifications (
                notification_uuid, notification_type, subtype, environment, bundle_id, app_apple_id, transaction_id,
                original_transaction_id, product_id, signed_date, verdict, verdict_detail, raw_body, decoded_payload,
                first_received, last_received, remote_address, answered_status, elapsed_ms, last_delivery_id
            )
            SELECT uuid,
                CASE WHEN nulls & 1 = 0 THEN type END, CASE WHEN nulls & 2 = 0 THEN subtype END,
                CASE WHEN nulls & 4 = 0 THEN environment END, CASE WHEN nulls & 8 = 0 THEN bundle END,
                CASE WHEN nulls & 16 = 0 THEN app_id END, CASE WHEN nulls & 32 = 0 THEN txn END,
                CASE WHEN nulls & 64 = 0 THEN original END, CASE WHEN nulls & 128 = 0 THEN product END,
                CASE WHEN nulls & 256 = 0 THEN to_timestamp(signed / 1000.0) END, verdict, CASE WHEN nulls & 512 = 0 THEN detail END,
                body, CASE WHEN nulls & 1024 = 0 THEN payload END, to_timestamp(received / 1000.0), to_timestamp(received / 1000.0),
                CASE WHEN nulls & 2048 = 0 THEN remote END, answered, elapsed, delivery_id
            -- Rows locked in one order by every receiver: two batches sharing notifications never deadlock.
            FROM input ORDER BY uuid
            ON CONFLICT (notification_uuid) DO UPDATE SET
                delivery_count = notifications.delivery_count + 1, last_received = excluded.last_received,
                remote_address = excluded.remote_address, answered_status = excluded.answered_status,
                elapsed_ms = excluded.elapsed_ms, last_delivery_id = excluded.last_delivery_id
            RETURNING id, notification_uuid, delivery_count
        ),
        delivered AS (
            INSERT INTO deliveries (id, notification_id, received, remote_address, answered_status, elapsed_ms)
            SELECT i.delivery_id, u.id, to_timestamp(i.received / 1000.0), CASE WHEN i.nulls & 2048 = 0 THEN i.remote END, i.answered, i.elapsed
            FROM input i JOIN upserted u ON u.notification_uuid = i.uuid
            RETURNING id
        )
        SELECT u.id, i.delivery_id, u.delivery_count FROM input i JOIN upserted u ON u.notification_uuid = i.uuid ORDER BY i.ord
        """

        let deliveries: [NotificationDelivery]

        init(_ deliveries: [NotificationDelivery]) { self.deliveries = deliveries }

        func makeBindings() throws -> PostgresBindings {
            func ms(_ date: Date) -> Int64 { Int64((date.timeIntervalSince1970 * 1000).rounded()) }
            var masks: [Int64] = []
            for delivery in deliveries {
                var mask: Int64 = 0
                let present: [(Nullable, Bool)] = [
                    (.type, delivery.notificationType != nil), (.subtype, delivery.subtype != nil), (.environment, delivery.environment != nil),
                    (.bundle, delivery.bundleId != nil), (.appAppleId, delivery.appAppleId != nil), (.transaction, delivery.transactionId != nil),
                    (.original, delivery.originalTransactionId != nil), (.product, delivery.productId != nil), (.signed, delivery.signedDate != nil),
                    (.verdictDetail, delivery.verdictDetail != nil), (.payload, delivery.decodedPayload != nil), (.remote, delivery.remoteAddress != nil),
                ]
                for (column, isPresent) in present where !isPresent { mask |= column.rawValue }
                masks.append(mask)
            }
            var bindings = PostgresBindings(capacity: 19)
            bindings.append(deliveries.map(\.notificationUUID))
            bindings.append(deliveries.map { $0.notificationType ?? "" })
            bindings.append(deliveries.map { $0.subtype ?? "" })
            bindings.append(deliveries.map { $0.environment ?? "" })
            bindings.append(deliveries.map { $0.bundleId ?? "" })
            bindings.append(deliveries.map { $0.appAppleId ?? 0 })
            bindings.append(deliveries.map { $0.transactionId ?? "" })
            bindings.append(deliveries.map { $0.originalTransactionId ?? "" })
            bindings.append(deliveries.map { $0.productId ?? "" })
            bindings.append(deliveries.map { $0.signedDate.map(ms) ?? 0 })
            bindings.append(deliveries.map(\.verdict))
            bindings.append(deliveries.map { $0.verdictDetail ?? "" })
            bindings.append(deliveries.map { ByteBuffer(bytes: $0.rawBody) })
            bindings.append(deliveries.map { $0.decodedPayload.map { String(decoding: $0, as: UTF8.self) } ?? "" })
            bindings.append(deliveries.map { ms($0.receivedAt) })
            bindings.append(deliveries.map { $0.remoteAddress ?? "" })
            bindings.append(deliveries.map { Int64($0.answeredStatus) })
            bindings.append(deliveries.map(\.elapsedMilliseconds))
            bindings.append(masks)
            return bindings
        }

        func decodeRow(_ row: PostgresRow) throws -> (Int64, Int64, Int) { try row.decode((Int64, Int64, Int).self) }
    }
}
