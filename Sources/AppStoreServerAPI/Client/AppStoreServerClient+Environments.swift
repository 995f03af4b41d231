import Foundation

extension AppStoreServerClient {
    /// This client, or its fallback, when it is the one that serves `environment`; nil when neither is.
    /// Every request about a record goes to the environment the record was found in.
    public func client(for environment: AppStoreEnvironment) -> AppStoreServerClient? {
        if self.environment.environment == environment { return self }
        if let fallbackEnvironment, fallbackEnvironment.environment == environment {
            return switching(to: fallbackEnvironment)
        }
        return nil
    }
}
