import AppStoreServerAPI
import DeskCore
import DeskStore
import Foundation
import PostgresStore

/// The store's account index for a session: the demo's store with --demo, else the store named by
/// --store, IAPDESK_STORE or the profile (the one `listen` writes).
enum AccountIndexAccess {
    static func location(_ session: Session, storeFlag: String? = nil) async throws -> StoreLocation {
        var options = StoreOptions()
        options.store = storeFlag
        return try await StoreAccess.resolve(options, session: session).location
    }

    /// What the console's effects read the index (and arrivals) from.
    static func received(_ session: Session) async -> ReceivedNotifications? {
        guard let location = try? await location(session) else { return nil }
        return ReceivedNotifications(source: LiveSource(storePath: location.description), open: { try await StoreAccess.openExisting(location) })
    }

    /// The index's links under an app account token, most recently seen first; a store that does
    /// not exist yet has none.
    static func links(_ token: String, session: Session, storeFlag: String? = nil) async throws -> (links: [AccountLink], store: String) {
        let location = try await location(session, storeFlag: storeFlag)
        let store: any NotificationStore
        do {
            store = try await StoreAccess.openExisting(location)
        } catch let error as CLIError where error.status == .notFound {
            return ([], location.description)
        }
        defer { Task { try? await store.close() } }
        guard let index = store as? any AccountIndex else { return ([], location.description) }
        do {
            return (try await index.accountLinks(.appAccountToken, token), location.description)
        } catch {
            throw CLIError("The account index in \(location.description) cannot be read: \(error)", status: .failure)
        }
    }

    /// Adds what a lookup saw to the index; a store that cannot take it is passed over (the index
    /// only saves a later lookup).
    static func remember(_ links: [AccountLink], session: Session, storeFlag: String? = nil) async {
        guard !links.isEmpty, let location = try? await location(session, storeFlag: storeFlag),
              let store = try? await StoreAccess.openExisting(location)
        else { return }
        try? await (store as? any AccountIndex)?.recordAccountLinks(links)
        try? await store.close()
    }

    /// Said when an app account token is not in the index.
    static func notSeen(_ token: String, store: String) -> CLIError {
        CLIError(
            "No purchase seen with app account token \(token) in \(store).",
            hint: "The index knows only what listen received and lookups saw: iapdesk index --since 180d fills it from Apple's notification history. Or ask for the order ID on the receipt e-mail.",
            status: .notFound)
    }
}
