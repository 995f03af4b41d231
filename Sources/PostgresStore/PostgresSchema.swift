/// The tables of a team's store, one step per version. The version applied is kept in
/// `iapdesk_schema`; each step runs in a transaction of its own, under a lock that keeps two
/// processes starting at once from both applying it.
enum PostgresSchema {
    static let migrations: [[String]] = [
        // 1: received notifications, their deliveries, refused bodies.
        [
            """
            CREATE TABLE notifications (
                id BIGSERIAL PRIMARY KEY,
                notification_uuid TEXT NOT NULL UNIQUE,
                notification_type TEXT,
                subtype TEXT,
                environment TEXT,
                bundle_id TEXT,
                app_apple_id BIGINT,
                transaction_id TEXT,
                original_transaction_id TEXT,
                product_id TEXT,
                signed_date TIMESTAMPTZ,
                verdict TEXT NOT NULL,
                verdict_detail TEXT,
                raw_body BYTEA NOT NULL,
                decoded_payload TEXT,
                first_received TIMESTAMPTZ NOT NULL,
                last_received TIMESTAMPTZ NOT NULL,
                remote_address TEXT,
                answered_status INTEGER NOT NULL,
                elapsed_ms DOUBLE PRECISION NOT NULL,
                forward_result TEXT,
                forward_status INTEGER,
                delivery_count INTEGER NOT NULL DEFAULT 1,
                last_delivery_id BIGINT NOT NULL DEFAULT 0
            )
            """,
            """
            CREATE TABLE deliveries (
                id BIGSERIAL PRIMARY KEY,
                notification_id BIGINT NOT NULL REFERENCES notifications(id),
                received TIMESTAMPTZ NOT NULL,
                remote_address TEXT,
                answered_status INTEGER NOT NULL,
                elapsed_ms DOUBLE PRECISION NOT NULL,
                forward_result TEXT,
                forward_status INTEGER,
                forward_ms DOUBLE PRECISION
            )
            """,
            """
            CREATE TABLE quarantine (
                id BIGSERIAL PRIMARY KEY,
                reason TEXT NOT NULL,
                detail TEXT NOT NULL,
                body BYTEA NOT NULL,
                body_size INTEGER NOT NULL,
                truncated BOOLEAN NOT NULL,
                notification_uuid TEXT,
                notification_type TEXT,
                received TIMESTAMPTZ NOT NULL,
                remote_address TEXT,
                answered_status INTEGER NOT NULL,
                elapsed_ms DOUBLE PRECISION NOT NULL
            )
            """,
            "CREATE INDEX notifications_last_received ON notifications(last_received)",
            "CREATE INDEX notifications_last_delivery ON notifications(last_delivery_id)",
            "CREATE INDEX notifications_transaction ON notifications(transaction_id)",
            "CREATE INDEX notifications_original_transaction ON notifications(original_transaction_id)",
            "CREATE INDEX deliveries_notification ON deliveries(notification_id)",
            "CREATE INDEX quarantine_received ON quarantine(received)",
        ],
        // 2: re-posts by `replay` and `recover`, and the window reconcile reads by signed date.
        [
            """
            CREATE TABLE replays (
                id BIGSERIAL PRIMARY KEY,
                notification_uuid TEXT NOT NULL,
                target_url TEXT NOT NULL,
                source TEXT NOT NULL,
                command TEXT NOT NULL,
                sent TIMESTAMPTZ NOT NULL,
                result TEXT NOT NULL,
                status INTEGER,
                elapsed_ms DOUBLE PRECISION NOT NULL
            )
            """,
            "CREATE INDEX replays_notification ON replays(notification_uuid)",
            "CREATE INDEX notifications_signed_date ON notifications(signed_date)",
        ],
        // 3: the audit ledger of writes, shared by the team's agents, and the JSON-lines ledgers imported into it.
        [
            """
            CREATE TABLE ledger (
                id BIGSERIAL PRIMARY KEY,
                time TIMESTAMPTZ NOT NULL,
                request_identifier TEXT NOT NULL,
                write TEXT NOT NULL,
                path TEXT NOT NULL,
                agent TEXT,
                entry BYTEA NOT NULL
            )
            """,
            "CREATE INDEX ledger_path ON ledger(path, time)",
            "CREATE TABLE ledger_imports (source TEXT PRIMARY KEY, lines INTEGER NOT NULL, imported TIMESTAMPTZ NOT NULL)",
        ],
        // 4: case notes, each kept under every ID its customer was known by when it was written.
        [
            "CREATE TABLE notes (id BIGSERIAL PRIMARY KEY, time TIMESTAMPTZ NOT NULL, agent TEXT NOT NULL, text TEXT NOT NULL)",
            "CREATE TABLE note_subjects (note_id BIGINT NOT NULL REFERENCES notes(id), subject TEXT NOT NULL)",
            "CREATE INDEX note_subjects_subject ON note_subjects(subject)",
        ],
        // 5: a bounded quarantine: identical bodies kept once and counted, its size kept up to date.
        PostgresNotificationStore.quarantineBounds,
        // 6: the account index, from the app's customer IDs to original transaction IDs.
        PostgresNotificationStore.accountIndexSchema,
        // 7: what `iapdesk watch` found wrong, open or resolved, and whether each change was announced.
        PostgresNotificationStore.incidentSchema,
        // 8: the consumption policy's per-customer overrides and its claims on refund requests.
        PostgresNotificationStore.refundPolicySchema,
    ]

    static var version: Int { migrations.count }

    /// Advisory lock keys (`pg_advisory_lock(class, object)`), in a class of iapdesk's own.
    enum Lock {
        static let namespace: Int32 = 0x1A9D
        /// Held while the schema is brought up to date.
        static let migration: Int32 = 1
        /// Held shared by each transaction that adds deliveries or refused bodies, until it commits,
        /// so that receivers commit side by side and the server flushes their commits together. A
        /// reader that moves a cursor along those IDs (the Live pane, `received --follow`) takes it
        /// alone for a moment: then no write is in flight, and no ID up to the newest visible one
        /// can still appear later.
        static let arrivals: Int32 = 2
        /// The class of the locks held around one write's send, keyed by what it writes to.
        static let writes: Int32 = 0x1A9E
    }
}
