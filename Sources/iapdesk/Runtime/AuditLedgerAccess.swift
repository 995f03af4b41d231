import ArgumentParser
import DeskCore
import DeskStore
import Foundation
import PostgresStore

/// Where the audit ledger is: in the store (the profile's team server, or the embedded file), a
/// JSON-lines ledger of earlier versions imported into it once; the demo's in its state folder.
enum AuditLedgerAccess {
    /// The ledger file earlier versions kept, imported into the store and then left as it was.
    static var legacyPath: String { ConfigLoader().stateDirectory + "/audit.jsonl" }

    /// The demo's writes stay with the demo's state (until `iapdesk demo --reset`), never in a
    /// team's ledger.
    static var demoPath: String { DemoStateLocation.path() + "/audit.jsonl" }

    static func open(profileStore: String?, demo: Bool, storeFlag: String? = nil) async throws -> AuditLedger {
        try await openWithNotes(profileStore: profileStore, demo: demo, storeFlag: storeFlag).ledger
    }

    /// The ledger and the case notes, which live in the same store.
    static func openWithNotes(profileStore: String?, demo: Bool, storeFlag: String? = nil) async throws -> (ledger: AuditLedger, notes: any NoteStore) {
        if demo {
            do {
                let ledger = try AuditLedger(path: demoPath)
                let notes = try await SQLiteNotificationStore.open(path: DemoStateLocation.path() + "/notes.sqlite")
                return (ledger, notes)
            } catch {
                throw CLIError("The demo's audit ledger cannot be opened: \(error)", hint: "Check \(DemoStateLocation.path()) is writable.", status: .failure)
            }
        }
        let location = try StoreOptions.location(flag: storeFlag, profileStore: profileStore)
        let store: any LedgerStore & NoteStore
        switch location {
        case .file(let path):
            do {
                store = try await SQLiteNotificationStore.open(path: path)
            } catch {
                throw CLIError("The audit ledger cannot be opened: \(error)", hint: "Check \(path) and its folder are writable.", status: .failure)
            }
        case .postgres(let address):
            do {
                store = try await PostgresNotificationStore.open(address, applicationName: StoreOptions.commandName)
            } catch {
                throw CLIError(
                    "The audit ledger cannot be opened: \(error)",
                    hint: "It lives in the team's store (docs/team.md); check its URL and the server.", status: .failure)
            }
        }
        let (ledger, problem) = await AuditLedger.inStore(store, location: location.description, importing: legacyPath)
        if let problem { StandardStreams.error("note: \(problem)\n") }
        return (ledger, store)
    }

    /// Runs a read of the ledger, with the command line's error.
    static func reading<T>(_ ledger: AuditLedger, _ body: (AuditLedger) async throws -> T) async throws -> T {
        do {
            return try await body(ledger)
        } catch {
            throw CLIError("The audit ledger in \(ledger.location) cannot be read: \(error)", status: .failure)
        }
    }
}

/// The ledger of `iapdesk audit`: the store every command uses (the default profile's), or the demo's.
struct LedgerOptions: ParsableArguments {
    @OptionGroup var storeOptions: StoreOptions
    @Flag(name: .long, help: "The demo's writes (kept with its state until iapdesk demo --reset).") var demo = false

    func open() async throws -> AuditLedger {
        guard !demo else { return try await AuditLedgerAccess.open(profileStore: nil, demo: true) }
        return try await AuditLedgerAccess.open(profileStore: StoreOptions.configuredStore(), demo: false, storeFlag: storeOptions.store)
    }

    /// Who closes a write: the default profile's agent name, else the login name.
    var agent: String {
        let loader = ConfigLoader()
        let profile = (try? loader.loadFile()).flatMap { try? loader.resolve(file: $0, name: nil, flags: ProfileOverrides()) }
        return profile?.agentName ?? WriteContext.loginName
    }
}
