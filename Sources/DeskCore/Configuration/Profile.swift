import AppStoreServerAPI
import Foundation

/// One named set of credentials and settings, after the config file, `IAPDESK_*` variables and
/// flags have been applied in that order.
public struct Profile: Sendable, Equatable {
    public var name: String
    public var issuerId: String?
    public var keyId: String?
    /// Path to the `.p8` key; the key itself is never stored here.
    public var keyFile: String?
    public var bundleId: String?
    public var appAppleId: Int64?
    public var environment: AppStoreEnvironment?
    public var baseURL: URL?
    /// Extra trusted root certificates (DER files), for test servers.
    public var rootCerts: [String] = []
    public var readOnly = false
    public var theme: String?
    /// Seconds a command may take in all (and each console request), retries included.
    public var timeout: TimeInterval?
    /// Where notifications (and, for a team, what agents share) are stored: a file path or a
    /// postgres:// URL, as written in the config file.
    public var store: String?
    /// The name the audit ledger and case notes give this agent; default the login name.
    public var agent: String?

    /// The refund preference the app states when it answers Apple's refund requests
    /// (`refund_preference`): suggested in the console's answer form and used by `iapdesk consumption`
    /// when no --refund-preference is given; nil states none.
    public var refundPreference: RefundPreference?

    /// The consumption policy file the team's receivers answer refund requests with
    /// (`consumption_policy`): the console's Refund requests pane shows what it does for each request.
    public var consumptionPolicy: String?

    /// The app's account holder signed Apple's Advanced Commerce API addendum (`advanced_commerce`):
    /// the `advanced-commerce` commands are refused without it.
    public var advancedCommerce = false
    /// The locales the console's `:retention` screen asks default messages in (`retention_locales`,
    /// such as ["en-US", "fr-FR"]); empty: en-US.
    public var retentionLocales: [String] = []

    /// `agent`, else the login name.
    public var agentName: String { agent ?? WriteContext.loginName }

    /// Used when no profile, variable or flag sets `timeout`.
    public static let defaultTimeout: TimeInterval = 60

    public var effectiveTimeout: TimeInterval { timeout ?? Self.defaultTimeout }

    public init(name: String) {
        self.name = name
    }

    /// Fills every field of `self` that `other` sets.
    public mutating func apply(_ other: ProfileOverrides) {
        if let value = other.issuerId { issuerId = value }
        if let value = other.keyId { keyId = value }
        if let value = other.keyFile { keyFile = value }
        if let value = other.bundleId { bundleId = value }
        if let value = other.appAppleId { appAppleId = value }
        if let value = other.environment { environment = value }
        if let value = other.baseURL { baseURL = value }
        if let value = other.rootCerts { rootCerts = value }
        if let value = other.readOnly { readOnly = value }
        if let value = other.theme { theme = value }
        if let value = other.timeout { timeout = value }
        if let value = other.agent { agent = value }
    }

    /// What is still needed before a request can be made, as the user would fix it.
    public var missingForRequests: [String] {
        var missing: [String] = []
        if issuerId == nil { missing.append("issuer_id (IAPDESK_ISSUER_ID, --issuer-id)") }
        if keyId == nil { missing.append("key_id (IAPDESK_KEY_ID, --key-id)") }
        if keyFile == nil { missing.append("key_file (IAPDESK_KEY_FILE, --key-file)") }
        if bundleId == nil { missing.append("bundle_id (IAPDESK_BUNDLE_ID, --bundle-id)") }
        if environment == nil { missing.append("environment: Production or Sandbox (IAPDESK_ENVIRONMENT, --environment)") }
        return missing
    }
}

/// Settings from one source (environment variables or flags); nil means "not set here".
public struct ProfileOverrides: Sendable, Equatable {
    public var issuerId: String?
    public var keyId: String?
    public var keyFile: String?
    public var bundleId: String?
    public var appAppleId: Int64?
    public var environment: AppStoreEnvironment?
    public var baseURL: URL?
    public var rootCerts: [String]?
    public var readOnly: Bool?
    public var theme: String?
    public var timeout: TimeInterval?
    public var agent: String?

    public init() {}

    /// Reads `IAPDESK_*` variables.
    public static func fromEnvironment(_ variables: [String: String]) throws(ConfigurationError) -> ProfileOverrides {
        var overrides = ProfileOverrides()
        func value(_ name: String) -> String? {
            guard let text = variables["IAPDESK_\(name)"]?.trimmingCharacters(in: .whitespaces), !text.isEmpty else { return nil }
            return text
        }
        overrides.issuerId = value("ISSUER_ID")
        overrides.keyId = value("KEY_ID")
        overrides.keyFile = value("KEY_FILE")
        overrides.bundleId = value("BUNDLE_ID")
        if let text = value("APP_APPLE_ID") {
            guard let number = Int64(text) else { throw .invalidValue(source: "IAPDESK_APP_APPLE_ID", detail: "must be a whole number") }
            overrides.appAppleId = number
        }
        if let text = value("ENVIRONMENT") { overrides.environment = try ProfileParsing.environment(text, source: "IAPDESK_ENVIRONMENT") }
        if let text = value("BASE_URL") { overrides.baseURL = try ProfileParsing.url(text, source: "IAPDESK_BASE_URL") }
        if let text = value("ROOT_CERTS") { overrides.rootCerts = text.split(separator: ":").map(String.init) }
        if let text = value("READ_ONLY") { overrides.readOnly = try ProfileParsing.bool(text, source: "IAPDESK_READ_ONLY") }
        overrides.theme = value("THEME")
        if let text = value("TIMEOUT") { overrides.timeout = try ProfileParsing.timeout(text, source: "IAPDESK_TIMEOUT") }
        if let text = value("AGENT") { overrides.agent = try ProfileParsing.agent(text, source: "IAPDESK_AGENT") }
        return overrides
    }
}

public enum ProfileParsing {
    static func environment(_ text: String, source: String) throws(ConfigurationError) -> AppStoreEnvironment {
        switch text.lowercased() {
        case "production", "prod": return .production
        case "sandbox": return .sandbox
        default: throw .invalidValue(source: source, detail: "environment must be Production or Sandbox, not \(text)")
        }
    }

    static func url(_ text: String, source: String) throws(ConfigurationError) -> URL {
        guard let url = URL(string: text), let scheme = url.scheme, ["http", "https"].contains(scheme.lowercased()), url.host != nil else {
            throw .invalidValue(source: source, detail: "base URL must be an http(s) URL such as https://api.storekit.apple.com")
        }
        return url
    }

    /// Seconds, more than 0 and at most a day.
    public static func timeout(_ text: String, source: String) throws(ConfigurationError) -> TimeInterval {
        guard let seconds = TimeInterval(text.trimmingCharacters(in: .whitespaces)) else {
            throw .invalidValue(source: source, detail: "must be a number of seconds, such as 60")
        }
        return try timeout(seconds, source: source)
    }

    static func timeout(_ seconds: TimeInterval, source: String) throws(ConfigurationError) -> TimeInterval {
        guard seconds.isFinite, seconds > 0, seconds <= 86_400 else {
            throw .invalidValue(source: source, detail: "must be more than 0 and at most 86400 seconds")
        }
        return seconds
    }

    /// A name of at most 64 printable characters, shown beside every write and note.
    static func agent(_ text: String, source: String) throws(ConfigurationError) -> String {
        let name = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !name.isEmpty, name.count <= 64, !name.unicodeScalars.contains(where: { CharacterSet.controlCharacters.contains($0) }) else {
            throw .invalidValue(source: source, detail: "must be a name of 1 to 64 printable characters, such as \"sam\"")
        }
        return name
    }

    static func bool(_ text: String, source: String) throws(ConfigurationError) -> Bool {
        switch text.lowercased() {
        case "1", "true", "yes", "on": return true
        case "0", "false", "no", "off": return false
        default: throw .invalidValue(source: source, detail: "must be true or false")
        }
    }
}
