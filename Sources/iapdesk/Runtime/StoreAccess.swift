import Foundation
import WebhookStore

/// Opens the notification store for commands that read it and never create it.
enum StoreAccess {
    static func openExisting(_ path: String) async throws -> SQLiteNotificationStore {
        do {
            return try await SQLiteNotificationStore.open(path: path, create: false)
        } catch let error as NotificationStoreError {
            if case .missing = error {
                throw CLIError(error.description, hint: "Give the store iapdesk listen writes with --store PATH (or IAPDESK_STORE_PATH).", status: .notFound)
            }
            throw CLIError(error.description, status: .configuration)
        }
    }

    /// Runs `body` with the store open, closing it however `body` ends.
    static func with<T>(_ path: String, _ body: (SQLiteNotificationStore) async throws -> T) async throws -> T {
        let store = try await openExisting(path)
        do {
            let value = try await body(store)
            try? await store.close()
            return value
        } catch {
            try? await store.close()
            throw error
        }
    }

    /// A read or write of an open store that failed: exit 1 with what failed.
    static func failure(_ error: any Error, path: String) -> CLIError {
        if let error = error as? CLIError { return error }
        if let error = error as? NotificationStoreError { return CLIError(error.description, status: .failure) }
        return CLIError("The notification store at \(path) cannot be used: \(error).", status: .failure)
    }
}
