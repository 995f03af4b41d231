import AppStoreServerAPI
import Foundation

/// The account a write was made in: which credentials sent it, to which server, for which app.
/// A write is only ever reconciled (re-sent, resolved) by a session of the same account.
public struct WriteAccount: Codable, Sendable, Hashable {
    public var profile: String
    public var environment: String
    public var baseURL: String
    public var bundleId: String
    public var keyId: String

    public init(profile: String, environment: AppStoreEnvironment, baseURL: String, bundleId: String, keyId: String) {
        self.profile = profile
        self.environment = environment.rawValue
        self.baseURL = baseURL
        self.bundleId = bundleId
        self.keyId = keyId
    }

    /// "profile demo, Sandbox, com.example.app" for messages.
    public var label: String {
        "profile \(profile), \(AppStoreEnvironment(environment).label), \(bundleId)"
    }
}

/// Where a write was started.
public enum WriteSource: String, Codable, Sendable {
    case console
    case commandLine = "command-line"
    /// A receiver's consumption policy, answering refund requests as they arrive.
    case policy
}
