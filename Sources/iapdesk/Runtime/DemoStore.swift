import AppStoreServerAPI
import DemoServer
import DeskStore
import Foundation
import WebhookReceiver

/// The demo's notification store: one file in the demo's state folder for `iapdesk demo` and every
/// `--demo` command (listen, received, reconcile, recover, replay), so that what one receives or
/// re-posts the others see. Made on first use with what the demo's history would have delivered;
/// `iapdesk demo --reset` removes it with the rest of the demo's state.
enum DemoStore {
    static var path: String { DemoStateLocation.path() + "/notifications.sqlite" }
    /// Written once the store holds the demo's arrivals: a store without it was cut short while being made.
    static var seededMarker: String { path + ".seeded" }

    /// The store, made and seeded first when it is not there yet (by one process at a time).
    static func prepare(_ demo: DemoServer, verifier: SignedDataVerifier?) async throws -> StoreLocation {
        let path = self.path
        let marker = seededMarker
        do {
            try FileManager.default.createDirectory(atPath: DemoStateLocation.path(), withIntermediateDirectories: true)
            try await FileLock.withLock(path + ".lock") {
                guard !FileManager.default.fileExists(atPath: marker) else { return }
                for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
                let store = try await SQLiteNotificationStore.open(path: path)
                do {
                    if let verifier { try await DemoArrivals.seed(demo, store: store, verifier: verifier) }
                    try await store.close()
                } catch {
                    try? await store.close()
                    throw error
                }
                guard FileManager.default.createFile(atPath: marker, contents: Data()) else {
                    throw CLIError("cannot write \(marker)", status: .failure)
                }
            }
        } catch let error as CLIError {
            throw error
        } catch {
            throw CLIError("The demo's notification store \(path) cannot be made: \(error).", hint: "Check \(DemoStateLocation.path()) is writable.", status: .failure)
        }
        return .file(path: path)
    }

    /// Keeps a body the demo's own receiver took, as `listen --demo` would have: a notification
    /// delivered to the demo itself arrived, so reconcile finds no gap the demo made up.
    static func keep(_ body: Data, demo: DemoServer, verifier: SignedDataVerifier) async -> Bool {
        guard case .success(let delivery) = await NotificationIntake.delivery(
            from: body, verifier: verifier, receivedAt: Date(), remoteAddress: "the demo's own receiver") else { return true }
        do {
            let location = try await prepare(demo, verifier: verifier)
            let store = try await StoreAccess.open(location)
            let recorded = (try? await store.record(delivery)) != nil
            try? await store.close()
            return recorded
        } catch {
            return false
        }
    }
}
