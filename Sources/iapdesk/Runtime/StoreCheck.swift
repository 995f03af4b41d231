import DeskCore
import DeskStore
import Foundation
import PostgresStore

/// The doctor's check of the notification store a profile names (its ledger and notes live there
/// too): a file, which may not be made yet, or a team's server, which must answer and take the role.
enum StoreCheck {
    static let name = "store"

    /// The store `--store` names (`flag`), else IAPDESK_STORE, else the profile's.
    static func run(flag: String? = nil, profileStore: String?) async -> DoctorCheck {
        let location: StoreLocation
        do {
            location = try StoreOptions.location(flag: flag, profileStore: profileStore)
        } catch {
            return DoctorCheck(name, .fail, String(describing: error), fix: "Write the store as a path or a postgres:// URL (docs/team.md).")
        }
        if case .file(let path) = location, !FileManager.default.fileExists(atPath: path) {
            return DoctorCheck(name, .pass, "none yet at \(path): iapdesk listen makes it when the first notification arrives")
        }
        let store: any NotificationStore
        do {
            store = try await StoreAccess.openExisting(location)
        } catch let error as CLIError {
            return DoctorCheck(name, .fail, error.message, fix: error.hint ?? "Check that the file is an iapdesk store and can be read.")
        } catch {
            return DoctorCheck(name, .fail, "\(location.description) cannot be opened: \(error)")
        }
        let check = await role(of: store, at: location)
        try? await store.close()
        return check
    }

    /// A file store that opened is all there is to it; a server's role must also be allowed to write.
    private static func role(of store: any NotificationStore, at location: StoreLocation) async -> DoctorCheck {
        guard let server = store as? PostgresNotificationStore else {
            return DoctorCheck(name, .pass, "\(location.description), opens")
        }
        do {
            guard try await server.receiverMayWrite() else {
                return DoctorCheck(
                    name, .warn, "\(location.description) answers, but its role may only read: commands read it, a receiver there would answer 503",
                    fix: "Give writers a role that may write (docs/team.md, Setting up the database).")
            }
            return DoctorCheck(name, .pass, "\(location.description) answers, its schema is current and the role may write")
        } catch {
            return DoctorCheck(
                name, .fail, "\(location.description) answered, then failed: \(error)",
                fix: "Check the server's log; docs/team.md.")
        }
    }
}
