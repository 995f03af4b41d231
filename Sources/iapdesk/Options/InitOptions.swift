import AppStoreServerAPI
import ArgumentParser
import DeskCore
import Foundation

/// `iapdesk init`'s answers as flags, and where the profile goes; the console's first run sets
/// up a profile with the same options.
struct InitOptions: ParsableArguments {
    @Option(name: .long, help: "Name of the profile to write (default: the file's default_profile, else \"default\").") var profile: String?
    @Option(name: .long, help: "Config file (default: $XDG_CONFIG_HOME/iapdesk/config.toml).") var config: String?
    @Option(name: .long, help: "Issuer ID (a UUID) from App Store Connect.") var issuerId: String?
    @Option(name: .long, help: "Key ID of the In-App Purchase key (10 characters).") var keyId: String?
    @Option(name: .long, help: "Path of the .p8 key.") var keyFile: String?
    @Option(name: .long, help: "The app's bundle ID.") var bundleId: String?
    @Option(name: .long, help: "Production or Sandbox.") var environment: String?
    @Option(name: .long, help: "The app's Apple ID (a number; may be left out for Sandbox).") var appAppleId: String?
    @Option(name: .long, help: "Send requests to this base URL instead of Apple's (a proxy or a test server).") var baseURL: String?
    @Flag(name: .shortAndLong, help: "Make the key file readable by its owner only if it is not, and overwrite an existing profile, without asking.")
    var yes = false
    @Flag(name: .long, help: "Write the profile without running the doctor on it.") var noDoctor = false

    func validate() throws {
        if let profile, !ConfigFileEditor.isBareName(profile) {
            throw ValidationError("--profile \(profile): a profile name is letters, digits, - and _.")
        }
        for (flag, value, problem) in [
            ("--issuer-id", issuerId, issuerId.flatMap(CredentialRules.issuerIdProblem)),
            ("--key-id", keyId, keyId.flatMap(CredentialRules.keyIdProblem)),
            ("--bundle-id", bundleId, bundleId.flatMap(CredentialRules.bundleIdProblem)),
            ("--app-apple-id", appAppleId, appAppleId.flatMap(CredentialRules.appAppleIdProblem)),
        ] {
            if let value, let problem { throw ValidationError("\(flag) \(value): \(problem).") }
        }
        if let environment, InitAnswers.environment(environment) == nil {
            throw ValidationError("--environment \(environment): Production or Sandbox.")
        }
        if let baseURL {
            do {
                _ = try ProfileParsing.urlFlag(baseURL)
            } catch {
                throw ValidationError(error.description)
            }
        }
    }
}
