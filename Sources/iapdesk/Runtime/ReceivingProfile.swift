import AppStoreServerAPI
import DeskCore

/// The profile, and its verifier, for commands that receive or keep notifications (`listen`,
/// `replay`, `note`): chosen by the usual options, without needing API credentials.
enum ReceivingProfile {
    /// The profile as the options choose it, without needing API credentials.
    static func resolve(_ options: GlobalOptions) throws -> Profile {
        let loader = ConfigLoader()
        let file = try loader.loadFile(path: options.config)
        return try loader.resolve(file: file, name: options.profile, flags: try options.overrides())
    }

    /// The profile's verifier, without needing API credentials.
    static func verifier(_ options: GlobalOptions) throws -> SignedDataVerifier {
        let profile = try resolve(options)
        guard let bundleId = profile.bundleId, let environment = profile.environment else {
            throw CLIError(
                "Receiving notifications needs the app's bundle ID and environment.",
                hint: "Set bundle_id and environment in the profile, or pass --bundle-id and --environment (IAPDESK_BUNDLE_ID, IAPDESK_ENVIRONMENT); Production also needs --app-apple-id.",
                status: .configuration)
        }
        return try SignedDataVerifier(
            bundleId: bundleId, appAppleId: profile.appAppleId, environment: environment, additionalRoots: try Session.rootCertificates(profile))
    }
}
