import AppStoreServerAPI
import ArgumentParser
import DeskCore
import Foundation

/// Options every command that talks to the API accepts.
struct GlobalOptions: ParsableArguments {
    /// The options that choose where a follow-up command goes (`--demo`, `--profile`,
    /// `--environment`, `--config`), to append to a command printed for the agent to run next.
    var followUpFlags: String {
        var flags: [String] = []
        if demo { flags.append("--demo") }
        if let profile { flags.append("--profile \(Self.quoted(profile))") }
        if let config { flags.append("--config \(Self.quoted(config))") }
        if let environment { flags.append("--environment \(environment)") }
        return flags.isEmpty ? "" : " " + flags.joined(separator: " ")
    }

    static func quoted(_ text: String) -> String {
        text.allSatisfy { $0.isLetter || $0.isNumber || "-_./~".contains($0) } ? text : "'" + text.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }

    @Flag(name: .long, help: "Run against an embedded demo App Store Server (no credentials, no network).")
    var demo = false

    @Option(name: .long, help: "Profile in the config file (default: IAPDESK_PROFILE, then default_profile).")
    var profile: String?

    @Option(name: .long, help: "Config file (default: $XDG_CONFIG_HOME/iapdesk/config.toml).")
    var config: String?

    @Option(name: .long, help: "Production or Sandbox.")
    var environment: String?

    @Option(name: .long, help: "Send requests to this base URL instead of Apple's.")
    var baseURL: String?

    @Option(name: .long, help: "Issuer ID from App Store Connect.")
    var issuerId: String?

    @Option(name: .long, help: "Key ID of the In-App Purchase key.")
    var keyId: String?

    @Option(name: .long, help: "Path of the .p8 key (must be chmod 600).")
    var keyFile: String?

    @Option(name: .long, help: "The app's bundle ID.")
    var bundleId: String?

    @Option(name: .long, help: "The app's Apple ID (needed to verify Production data).")
    var appAppleId: Int64?

    @Option(name: .long, help: "Trust this DER root certificate for signed data, besides Apple's (repeatable).")
    var rootCert: [String] = []

    @Flag(name: .long, help: "Print JSON for scripts instead of tables.")
    var json = false

    @Option(name: .long, help: ArgumentHelp(
        "Seconds the command may take in all, retries and waits included (default 60; IAPDESK_TIMEOUT, timeout in the profile).",
        valueName: "seconds"))
    var timeout: Double?

    /// A wrong flag is a usage error (64), like any other flag.
    func validate() throws {
        if let timeout, !(timeout.isFinite && timeout > 0 && timeout <= 86_400) {
            throw ValidationError("--timeout must be more than 0 and at most 86400 seconds, such as 60.")
        }
    }

    func overrides() throws -> ProfileOverrides {
        var overrides = ProfileOverrides()
        overrides.issuerId = issuerId
        overrides.keyId = keyId
        overrides.keyFile = keyFile
        overrides.bundleId = bundleId
        overrides.appAppleId = appAppleId
        if let environment { overrides.environment = try ProfileParsing.environmentFlag(environment) }
        if let baseURL { overrides.baseURL = try ProfileParsing.urlFlag(baseURL) }
        if !rootCert.isEmpty { overrides.rootCerts = rootCert }
        if let timeout { overrides.timeout = try ProfileParsing.timeoutFlag(timeout) }
        return overrides
    }
}

/// Options of commands that change data.
struct WriteOptions: ParsableArguments {
    @Flag(name: .shortAndLong, help: "Send without asking for confirmation.")
    var yes = false
}
