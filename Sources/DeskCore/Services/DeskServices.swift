import AppStoreServerAPI
import Foundation

/// The client and verifier for an environment (the demo's or the profile's), and where writes are recorded.
public struct DeskServices: Sendable {
    public var client: AppStoreServerClient
    /// The same verifying service the command line uses.
    public var verification: VerifyingService
    /// Nil when the audit ledger cannot be opened: then nothing is written to Apple.
    public var writes: WriteContext?
    /// The notifications that arrived at a receiver (the Live pane, "arrived here" marks); nil: none are read.
    public var received: ReceivedNotifications?
    /// The set-up checks of `:doctor` for this console's profile; nil: not available.
    public var doctor: Doctor?

    public init(
        client: AppStoreServerClient, verifier: SignedDataVerifier?, verifierProblem: String? = nil, writes: WriteContext? = nil,
        received: ReceivedNotifications? = nil, doctor: Doctor? = nil
    ) {
        self.client = client
        self.verification = VerifyingService(verifier: verifier, problem: verifierProblem)
        self.writes = writes
        self.received = received
        self.doctor = doctor
    }

    /// An error as the console shows it, with the environment the request went to.
    public func failure(_ error: any Error) -> DisplayError {
        var shown = DisplayError(error)
        shown.environment = client.environment.environment
        return shown
    }

    /// The same services sending to, and expecting data from, `environment` (the environment a
    /// customer was found in); unchanged for nil or when this client cannot reach it.
    public func scoped(to environment: AppStoreEnvironment?) -> DeskServices {
        guard let environment, let scopedClient = client.client(for: environment) else { return self }
        var scoped = self
        scoped.client = scopedClient
        scoped.verification = verification.expecting(environment)
        return scoped
    }
}
