import Foundation
import WebhookStore

/// The store a command works on, and the folder to remove afterwards when it was made for this run.
struct ResolvedStore {
    let path: String
    let temporaryFolder: String?

    /// Where outcomes are said to be recorded.
    var recordedIn: String {
        temporaryFolder == nil ? path : "the demo's store of this run (gone when the command ends; --store PATH keeps one)"
    }

    func remove() {
        if let temporaryFolder { try? FileManager.default.removeItem(atPath: temporaryFolder) }
    }
}

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

    /// The store named by the options; with --demo and none named, a store of this run holding
    /// what the demo's history would have delivered (as `iapdesk demo` starts), so the demo shows
    /// every kind of gap and never touches the real store.
    static func resolve(_ options: StoreOptions, session: Session) async throws -> ResolvedStore {
        if let named = options.named { return ResolvedStore(path: named, temporaryFolder: nil) }
        guard let demo = session.demo else { return ResolvedStore(path: options.path, temporaryFolder: nil) }
        let folder = NSTemporaryDirectory() + "iapdesk-demo-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        let resolved = ResolvedStore(path: folder + "/notifications.sqlite", temporaryFolder: folder)
        do {
            let store = try await SQLiteNotificationStore.open(path: resolved.path)
            defer { Task { try? await store.close() } }
            if let verifier = session.verifier {
                try await DemoArrivals.seed(demo, store: store, verifier: verifier)
            }
            try await store.close()
        } catch {
            resolved.remove()
            throw CLIError("The demo's notification store cannot be made: \(error).", status: .failure)
        }
        return resolved
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
