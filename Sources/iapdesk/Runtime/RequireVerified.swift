import AppStoreServerAPI

/// Exits with the verification status when anything shown did not verify.
func requireVerified(_ statuses: [VerificationStatus]) throws {
    for status in statuses {
        if case .failed(let failure) = status { throw CLIError(unverified: failure) }
    }
}
