import Foundation

/// Where requests go: an App Store environment and the base URL that serves it.
public struct ServerEnvironment: Sendable, Equatable, CustomStringConvertible {
    public var environment: AppStoreEnvironment
    public var baseURL: URL

    public init(environment: AppStoreEnvironment, baseURL: URL) {
        self.environment = environment
        self.baseURL = baseURL
    }

    public static let production = ServerEnvironment(
        environment: .production, baseURL: URL(string: "https://api.storekit.apple.com")!)
    public static let sandbox = ServerEnvironment(
        environment: .sandbox, baseURL: URL(string: "https://api.storekit-sandbox.apple.com")!)

    public var description: String { "\(environment.label) at \(baseURL.absoluteString)" }
}

/// A value together with the environment it was found in.
public struct Located<Value: Sendable>: Sendable {
    public let value: Value
    public let environment: AppStoreEnvironment
    /// True when the first environment did not know the ID and the fallback found it.
    public let usedFallback: Bool

    public init(value: Value, environment: AppStoreEnvironment, usedFallback: Bool) {
        self.value = value
        self.environment = environment
        self.usedFallback = usedFallback
    }
}
