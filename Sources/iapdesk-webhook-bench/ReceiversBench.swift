import DeskStore
import Foundation
import PostgresStore

/// Several receivers writing one store at once, each with its own connection(s), as several
/// `iapdesk listen` processes behind a load balancer do: the SQLite file and a PostgreSQL server.
extension WebhookBench {
    /// Each receiver records with `writers` deliveries in flight; the figure is all receivers' notifications per second.
    static func measureReceivers(
        _ name: String, receivers: Int, writers: Int = 8, count: Int, open: @Sendable () async throws -> any NotificationStore
    ) async throws {
        var stores: [any NotificationStore] = []
        for _ in 0..<receivers { stores.append(try await open()) }
        let clock = ContinuousClock()
        let prefix = "\(name)-\(receivers)-\(UUID().uuidString)"
        let elapsed = try await clock.measure {
            try await withThrowingTaskGroup(of: Void.self) { group in
                for (receiver, store) in stores.enumerated() {
                    for writer in 0..<writers {
                        let lane = receiver * writers + writer
                        let lanes = receivers * writers
                        group.addTask {
                            for index in stride(from: lane, to: count, by: lanes) { _ = try await store.record(Self.delivery("\(prefix)-\(index)")) }
                        }
                    }
                }
                try await group.waitForAll()
            }
        }
        figure("store_record_\(name)_receivers_\(receivers)", Double(count) / seconds(elapsed), "notifications/s")
        for store in stores { try await store.close() }
    }

    func measureTeamStores(sqlitePath: String, postgres: String?) async throws {
        let count = self.count
        for receivers in [1, 3] {
            try await Self.measureReceivers("sqlite", receivers: receivers, count: count) {
                try await SQLiteNotificationStore.open(path: sqlitePath)
            }
        }
        guard let postgres else {
            print("# PostgreSQL figures: give --postgres postgres://USER@HOST:PORT/DATABASE (a database the bench may fill).")
            return
        }
        guard case .postgres(let address) = try StoreLocation(parsing: postgres) else {
            throw StoreLocationError("--postgres takes a postgres:// URL")
        }
        for receivers in [1, 3] {
            try await Self.measureReceivers("postgres", receivers: receivers, count: count) {
                try await PostgresNotificationStore.open(address)
            }
        }
    }
}
