import AppStoreServerAPI
import DeskStore
import Foundation
import TOML

/// `config.toml`: named profiles and which one is the default.
///
/// ```toml
/// default_profile = "production"
/// [profiles.production]
/// issuer_id = "57246542-96fe-1a63-e053-0824d011072a"
/// key_id = "2X9R4HXF34"
/// key_file = "~/.config/iapdesk/SubscriptionKey_2X9R4HXF34.p8"
/// bundle_id = "com.example.app"
/// app_apple_id = 1234567890
/// environment = "Production"
/// read_only = true
/// timeout = 60
/// store = "postgres://sam@db.example.com/iapdesk"   # a team's shared store (docs/team.md)
///
/// [keys]                       # rebind console commands (iapdesk keybindings lists them)
/// "list.down" = ["j", "Down"]
/// ```
public struct ConfigFile: Sendable, Equatable {
    public var defaultProfile: String?
    public var profiles: [String: Profile]
    /// Console key rebindings by command ID, as written; checked when the console starts.
    public var keyBindings: [String: [String]] = [:]
    /// Where it was read from, for messages.
    public var path: String?

    public init(defaultProfile: String? = nil, profiles: [String: Profile] = [:], path: String? = nil) {
        self.defaultProfile = defaultProfile
        self.profiles = profiles
        self.path = path
    }

    static let profileKeys: Set<String> = [
        "issuer_id", "key_id", "key_file", "bundle_id", "app_apple_id", "environment", "base_url", "root_certs", "read_only", "theme", "timeout", "store", "agent",
        "refund_preference", "consumption_policy", "retention_locales",
        "advanced_commerce",
    ]

    public static func parse(_ text: String, path: String? = nil, home: String? = nil) throws(ConfigurationError) -> ConfigFile {
        let source = path ?? "config"
        let table: TOMLTable
        do {
            table = try TOMLDocument.parse(text)
        } catch {
            throw .invalidFile(path: source, detail: "\(error)")
        }
        var file = ConfigFile(path: path)
        for key in table.keys where !["default_profile", "profiles", "keys"].contains(key) {
            throw .invalidFile(path: source, detail: "unknown top-level key \"\(key)\" (expected default_profile, [profiles.NAME] and [keys])")
        }
        if let keys = table["keys"] {
            guard let bindings = keys.table else { throw .invalidFile(path: source, detail: "keys must be a table: [keys]") }
            for id in bindings.keys {
                let value = bindings[id]
                if let single = value?.string {
                    file.keyBindings[id] = [single]
                } else if let list = value?.array, let names = Optional(list.compactMap { $0.string }), names.count == list.count {
                    file.keyBindings[id] = names
                } else {
                    throw .invalidFile(path: source, detail: "keys.\"\(id)\" must be a key name or a list of them, such as [\"j\", \"Down\"]")
                }
            }
        }
        if let value = table["default_profile"] {
            guard let name = value.string else { throw .invalidFile(path: source, detail: "default_profile must be a string") }
            file.defaultProfile = name
        }
        guard let profiles = table["profiles"] else { return file }
        guard let profileTables = profiles.table else { throw .invalidFile(path: source, detail: "profiles must be tables: [profiles.NAME]") }
        for name in profileTables.keys {
            guard let entry = profileTables[name]?.table else {
                throw .invalidFile(path: source, detail: "profiles.\(name) must be a table")
            }
            file.profiles[name] = try profile(name, entry, source: source, home: home)
        }
        return file
    }

    private static func profile(_ name: String, _ table: TOMLTable, source: String, home: String?) throws(ConfigurationError) -> Profile {
        var profile = Profile(name: name)
        func where_(_ key: String) -> String { "\(source): profiles.\(name).\(key)" }
        for key in table.keys where !profileKeys.contains(key) {
            throw .invalidFile(path: source, detail: "unknown key profiles.\(name).\(key) (known: \(profileKeys.sorted().joined(separator: ", ")))")
        }
        func string(_ key: String) throws(ConfigurationError) -> String? {
            guard let value = table[key] else { return nil }
            guard let text = value.string else { throw .invalidValue(source: where_(key), detail: "must be a string") }
            return text
        }
        profile.issuerId = try string("issuer_id")
        profile.keyId = try string("key_id")
        profile.keyFile = try string("key_file").map { expandHome($0, home: home) }
        profile.bundleId = try string("bundle_id")
        if let value = table["app_apple_id"] {
            guard let number = value.integer else { throw .invalidValue(source: where_("app_apple_id"), detail: "must be a whole number") }
            profile.appAppleId = number
        }
        if let text = try string("environment") { profile.environment = try ProfileParsing.environment(text, source: where_("environment")) }
        if let text = try string("base_url") { profile.baseURL = try ProfileParsing.url(text, source: where_("base_url")) }
        if let value = table["root_certs"] {
            guard let array = value.array else { throw .invalidValue(source: where_("root_certs"), detail: "must be a list of file paths") }
            var paths: [String] = []
            for item in array {
                guard let path = item.string else { throw .invalidValue(source: where_("root_certs"), detail: "must be a list of file paths") }
                paths.append(expandHome(path, home: home))
            }
            profile.rootCerts = paths
        }
        if let value = table["read_only"] {
            guard let flag = value.bool else { throw .invalidValue(source: where_("read_only"), detail: "must be true or false") }
            profile.readOnly = flag
        }
        profile.theme = try string("theme")
        if let value = table["timeout"] {
            guard let seconds = value.number else {
                throw .invalidValue(source: where_("timeout"), detail: "must be a number of seconds, such as 60")
            }
            profile.timeout = try ProfileParsing.timeout(seconds, source: where_("timeout"))
        }
        if let text = try string("store") {
            do {
                _ = try StoreLocation(parsing: text)
            } catch {
                throw .invalidValue(source: where_("store"), detail: error.description)
            }
            profile.store = text.hasPrefix("~/") ? expandHome(text, home: home) : text
        }
        if let text = try string("agent") { profile.agent = try ProfileParsing.agent(text, source: where_("agent")) }
        if let text = try string("refund_preference") {
            // Written as Apple's value or as the command line's word: "DECLINE", "grant-full".
            let preference = RefundPreference(text.uppercased().replacingOccurrences(of: "-", with: "_"))
            guard preference.isKnown else {
                throw .invalidValue(source: where_("refund_preference"), detail: "must be decline, grant-full or grant-prorated")
            }
            profile.refundPreference = preference
        }
        if let text = try string("consumption_policy") { profile.consumptionPolicy = expandHome(text, home: home) }
        if let value = table["advanced_commerce"] {
            guard let flag = value.bool else { throw .invalidValue(source: where_("advanced_commerce"), detail: "must be true or false") }
            profile.advancedCommerce = flag
        }
        if let value = table["retention_locales"] {
            let detail = "must be a list of locales, each a language and region joined by a hyphen, such as [\"en-US\", \"fr-FR\"]"
            guard let array = value.array else { throw .invalidValue(source: where_("retention_locales"), detail: detail) }
            for item in array {
                guard let locale = item.string, RetentionLocale.isValid(locale) else {
                    throw .invalidValue(source: where_("retention_locales"), detail: detail + "; \(item.string.map { "\"\($0)\" is not one" } ?? "found a value that is not a string")")
                }
                let normalized = RetentionLocale.normalized(locale)
                if !profile.retentionLocales.contains(normalized) { profile.retentionLocales.append(normalized) }
            }
        }
        return profile
    }

    static func expandHome(_ path: String, home: String?) -> String {
        guard path.hasPrefix("~/"), let home else { return path }
        return home + path.dropFirst(1)
    }
}

public enum ConfigurationError: Error, Sendable, Equatable, CustomStringConvertible {
    case invalidFile(path: String, detail: String)
    case invalidValue(source: String, detail: String)
    case unknownProfile(String, known: [String], path: String?)
    case incomplete(profile: String, missing: [String])
    case readOnly(profile: String)

    public var description: String {
        switch self {
        case .invalidFile(let path, let detail): return "Cannot read \(path): \(detail)."
        case .invalidValue(let source, let detail): return "\(source) \(detail)."
        case .unknownProfile(let name, let known, let path):
            let list = known.isEmpty ? "no profiles are defined" : "known profiles: \(known.sorted().joined(separator: ", "))"
            return "No profile named \"\(name)\" in \(path ?? "the configuration") (\(list))."
        case .incomplete(let profile, let missing):
            return "Profile \"\(profile)\" is missing \(missing.joined(separator: "; ")). Run iapdesk init to set it up (docs/configuration.md), or try --demo."
        case .readOnly(let profile):
            return "Profile \"\(profile)\" is read-only; writes are refused. Use a profile without read_only = true."
        }
    }
}
