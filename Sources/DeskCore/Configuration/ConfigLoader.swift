import AppStoreServerAPI
import Foundation

/// Finds and reads the configuration: `$XDG_CONFIG_HOME/iapdesk/config.toml`
/// (default `~/.config/iapdesk/config.toml`), then applies variables and flags.
public struct ConfigLoader: Sendable {
    public let environment: [String: String]

    public init(environment: [String: String] = ProcessInfo.processInfo.environment) {
        self.environment = environment
    }

    public var home: String? { environment["HOME"] }

    public var configDirectory: String {
        if let xdg = environment["XDG_CONFIG_HOME"], !xdg.isEmpty { return xdg + "/iapdesk" }
        return (home ?? ".") + "/.config/iapdesk"
    }

    public var stateDirectory: String {
        if let xdg = environment["XDG_STATE_HOME"], !xdg.isEmpty { return xdg + "/iapdesk" }
        return (home ?? ".") + "/.local/state/iapdesk"
    }

    public var defaultConfigPath: String { configDirectory + "/config.toml" }

    /// The config file at `path` (or the default path); a missing default file is an empty config.
    public func loadFile(path: String? = nil) throws(ConfigurationError) -> ConfigFile {
        let explicit = path ?? environment["IAPDESK_CONFIG"].flatMap { $0.isEmpty ? nil : $0 }
        let chosen = explicit ?? defaultConfigPath
        guard FileManager.default.fileExists(atPath: chosen) else {
            if explicit != nil { throw .invalidFile(path: chosen, detail: "the file does not exist") }
            return ConfigFile(path: chosen)
        }
        guard let data = FileManager.default.contents(atPath: chosen), let text = String(data: data, encoding: .utf8) else {
            throw .invalidFile(path: chosen, detail: "the file cannot be read as UTF-8 text")
        }
        return try ConfigFile.parse(text, path: chosen, home: home)
    }

    /// The profile to use: `name`, else IAPDESK_PROFILE, else the file's default, else the only one,
    /// else "default"; then variables, then flags.
    public func resolve(file: ConfigFile, name: String?, flags: ProfileOverrides) throws(ConfigurationError) -> Profile {
        let requested = name ?? environment["IAPDESK_PROFILE"].flatMap { $0.isEmpty ? nil : $0 }
        var profile: Profile
        if let requested {
            guard let found = file.profiles[requested] else {
                throw .unknownProfile(requested, known: file.profiles.keys.sorted(), path: file.path)
            }
            profile = found
        } else if let defaultName = file.defaultProfile {
            guard let found = file.profiles[defaultName] else {
                throw .unknownProfile(defaultName, known: file.profiles.keys.sorted(), path: file.path)
            }
            profile = found
        } else if file.profiles.count == 1, let only = file.profiles.values.first {
            profile = only
        } else {
            profile = Profile(name: "default")
        }
        profile.apply(try ProfileOverrides.fromEnvironment(environment))
        profile.apply(flags)
        return profile
    }
}
