import AppStoreServerAPI
import ArgumentParser
import DeskCore
import DeskStore
import Foundation
import Synchronization
import WebhookReceiver

/// The notification store's location, shared by every command that reads or writes it.
struct StoreOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp(
        "The store: a file, or a team's postgres:// URL (default: IAPDESK_STORE, then the profile's store, then $XDG_DATA_HOME/iapdesk/notifications.sqlite).",
        valueName: "path|url"))
    var store: String?

    func validate() throws {
        if let store {
            do { _ = try StoreLocation(parsing: store) } catch { throw ValidationError("--store: \(error.description).") }
        }
    }

    /// The store named by --store, IAPDESK_STORE or IAPDESK_STORE_PATH; nil when none is.
    var named: String? { store ?? Self.namedByEnvironment }

    /// IAPDESK_STORE, else IAPDESK_STORE_PATH.
    static var namedByEnvironment: String? {
        let environment = ProcessInfo.processInfo.environment
        return environment["IAPDESK_STORE"].flatMap { $0.isEmpty ? nil : $0 } ?? environment["IAPDESK_STORE_PATH"].flatMap { $0.isEmpty ? nil : $0 }
    }

    /// Where the store is: the one named, else the profile's `store`, else the default file.
    func location(profileStore: String?) throws -> StoreLocation {
        try Self.location(flag: store, profileStore: profileStore)
    }

    /// The same for commands without --store (writes, whose ledger is in the store).
    static func location(flag: String?, profileStore: String?) throws -> StoreLocation {
        guard let text = flag ?? namedByEnvironment ?? profileStore else { return .file(path: SQLiteNotificationStore.defaultPath()) }
        do {
            return try StoreLocation(parsing: text)
        } catch {
            let source = flag != nil ? "--store" : (namedByEnvironment != nil ? "IAPDESK_STORE" : "the profile's store")
            throw CLIError("\(source): \(error.description).", status: .usage)
        }
    }

    /// "iapdesk listen", "iapdesk received", "iapdesk console": how a team's database names this
    /// process's connections, so its administrator sees which receivers and consoles are connected.
    static let commandName: String = {
        let commands = Set(IAPDesk.configuration.subcommands.map { $0._commandName })
        let command = CommandLine.arguments.dropFirst().first { commands.contains($0) } ?? ConsoleCommand._commandName
        return "iapdesk \(command)"
    }()

    /// The store of the profile a command without the other profile options names (`received
    /// --profile`); without one, the config file's default profile's, when it can be read. A
    /// profile named but not found is an error, as for every other command.
    static func configuredStore(profile name: String? = nil) throws -> String? {
        let loader = ConfigLoader()
        guard let name else {
            guard let file = try? loader.loadFile(), let profile = try? loader.resolve(file: file, name: nil, flags: ProfileOverrides()) else {
                return nil
            }
            return profile.store
        }
        return try loader.resolve(file: try loader.loadFile(), name: name, flags: ProfileOverrides()).store
    }
}
