import DeskStore
import Foundation
import PostgresStore

/// The store a command works on.
struct ResolvedStore {
    let location: StoreLocation

    /// Where outcomes are said to be recorded.
    var recordedIn: String { location.description }
}

/// Opens the store, a file or a team's server, with the command line's errors.
enum StoreAccess {
    /// Opens the store, making it (the file, or the tables on the server) when it is new: for the
    /// receivers, which are the first to write.
    static func open(_ location: StoreLocation, writeDeadline: Duration = WriteDeadline.store) async throws -> any NotificationStore {
        do {
            switch location {
            case .file(let path): return try await SQLiteNotificationStore.open(path: path, writeDeadline: writeDeadline)
            case .postgres(let address):
                let store = try await PostgresNotificationStore.open(address, applicationName: StoreOptions.commandName, writeDeadline: writeDeadline)
                let lacking = try await store.receiverLacks()
                guard lacking.isEmpty else {
                    try? await store.close()
                    throw CLIError(
                        "The store's role \(address.username) lacks \(lacking.joined(separator: ", ")) at \(address.redacted): a receiver would answer 503 to what it cannot store.",
                        hint: "As the tables' owner: \(lacking.map { "GRANT \($0) TO \(address.username);" }.joined(separator: " ")) (docs/team.md, Setting up the database).",
                        status: .configuration)
                }
                return store
            }
        } catch let error as NotificationStoreError {
            throw CLIError(error.description, hint: hint(location), status: .configuration)
        }
    }

    /// Opens a store for commands that read it: a file is never made by them (a server's tables are,
    /// as its receivers would).
    static func openExisting(_ location: StoreLocation) async throws -> any NotificationStore {
        do {
            switch location {
            case .file(let path): return try await SQLiteNotificationStore.open(path: path, create: false)
            case .postgres(let address): return try await PostgresNotificationStore.open(address, applicationName: StoreOptions.commandName)
            }
        } catch let error as NotificationStoreError {
            if case .missing = error {
                // The demo's receivers write the demo's store, which only --demo reads.
                let demo = FileManager.default.fileExists(atPath: DemoStore.path) ? " What listen --demo received is read with --demo." : ""
                throw CLIError(error.description, hint: "Give the store iapdesk listen writes with --store PATH|URL (or IAPDESK_STORE).\(demo)", status: .notFound)
            }
            throw CLIError(error.description, hint: hint(location), status: .configuration)
        }
    }

    private static func hint(_ location: StoreLocation) -> String? {
        guard case .postgres = location else { return nil }
        return "Check the server, user, database and password of the store's URL (the password may also come from PGPASSWORD); docs/team.md."
    }

    /// The store named by the options (else the profile's); with --demo and no --store, the demo's
    /// own store in its state folder, shared by every --demo command and `iapdesk demo`, holding
    /// from the start what the demo's history would have delivered: the demo shows every kind of
    /// gap and never touches the real store.
    static func resolve(_ options: StoreOptions, session: Session) async throws -> ResolvedStore {
        // Only --store takes the demo elsewhere: IAPDESK_STORE may name a team's store, which the
        // demo's made-up notifications must never reach.
        guard let demo = session.demo, options.store == nil else {
            let profileStore = session.demo == nil ? session.profile.store : nil
            return ResolvedStore(location: try options.location(profileStore: profileStore))
        }
        noteDemoKeepsItsStore()
        return ResolvedStore(location: try await DemoStore.prepare(demo, verifier: session.verifier))
    }

    /// Said when --demo takes its own store while IAPDESK_STORE names another, so that nobody takes
    /// the demo's store for the one the variable names.
    static func noteDemoKeepsItsStore() {
        guard StoreOptions.namedByEnvironment != nil else { return }
        StandardStreams.error("note: --demo keeps its own store; IAPDESK_STORE is not used with it (--store chooses another).\n")
    }

    /// Runs `body` with the store open, closing it however `body` ends.
    static func with<T>(_ location: StoreLocation, _ body: (any NotificationStore) async throws -> T) async throws -> T {
        let store = try await openExisting(location)
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
