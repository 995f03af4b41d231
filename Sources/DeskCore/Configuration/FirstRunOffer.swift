import Foundation

/// What the console shows when it starts with no profile: set one up, open the demo, or quit.
/// A config file that exists but is broken, or a profile asked for by name, keeps its error.
public struct FirstRunOffer: Sendable, Equatable {
    public let configPath: String
    public let fileExists: Bool
    /// The file's profiles, when it has some but none was chosen.
    public let profileNames: [String]

    /// nil when the console should open (or fail) with the resolved profile as before: it came
    /// from the file, or variables and flags complete it.
    public static func decide(file: ConfigFile, fileExists: Bool, resolved: Profile, configPath: String) -> FirstRunOffer? {
        guard !resolved.missingForRequests.isEmpty, file.profiles[resolved.name] == nil else { return nil }
        return FirstRunOffer(configPath: configPath, fileExists: fileExists, profileNames: file.profiles.keys.sorted())
    }

    public static let choices = "No profile yet: Enter to set one up, d for the demo, q to quit"

    public var lines: [String] {
        let found: String
        if !fileExists {
            found = "No config file at \(configPath)."
        } else if profileNames.isEmpty {
            found = "The config file \(configPath) has no profiles."
        } else {
            found = "The config file \(configPath) has profiles \(profileNames.joined(separator: ", ")) but no default_profile: "
                + "start with --profile NAME, or set default_profile."
        }
        return [
            "iapdesk", "",
            found,
            "The config file is looked for at $XDG_CONFIG_HOME/iapdesk/config.toml",
            "(default ~/.config/iapdesk/config.toml), or where --config or IAPDESK_CONFIG says.", "",
            Self.choices + ".", "",
            "  Enter  set up a profile (iapdesk init): issuer ID, key, bundle ID, environment",
            "  d      open the demo console (no credentials, no network)",
            "  q      quit",
        ]
    }

    /// What a key press chooses; nil for keys that choose nothing.
    public enum Choice: Sendable, Equatable { case setUp, demo, quit }

    public static func choice(forByte byte: UInt8) -> Choice? {
        switch byte {
        case 0x0D, 0x0A: return .setUp
        case UInt8(ascii: "d"), UInt8(ascii: "D"): return .demo
        case UInt8(ascii: "q"), UInt8(ascii: "Q"), 0x1B, 0x03, 0x04: return .quit
        default: return nil
        }
    }
}
