/// What the command line and the console both verify signed data with: the verifier of an
/// environment, or, when none could be made (no root certificates, say), a decoder that marks
/// every payload unverified with the reason.
public struct VerifyingService: Sendable {
    public let verifier: SignedDataVerifier?
    /// Why there is no verifier, shown on every payload it could not check.
    public let problem: String?

    public init(verifier: SignedDataVerifier?, problem: String? = nil) {
        self.verifier = verifier
        self.problem = problem
    }

    /// The same service checking payloads against `environment` (the one that answered).
    public func expecting(_ environment: AppStoreEnvironment) -> VerifyingService {
        VerifyingService(verifier: verifier?.expecting(environment), problem: problem)
    }

    public func transaction(_ jws: String) async -> VerifiedPayload<TransactionPayload> {
        guard let verifier else { return unverified(jws) }
        return await verifier.verifyTransaction(jws)
    }

    /// Each transaction, verified in order.
    public func transactions(_ list: [String]?) async -> [VerifiedPayload<TransactionPayload>] {
        var verified: [VerifiedPayload<TransactionPayload>] = []
        for jws in list ?? [] { verified.append(await transaction(jws)) }
        return verified
    }

    public func renewalInfo(_ jws: String) async -> VerifiedPayload<RenewalInfoPayload> {
        guard let verifier else { return unverified(jws) }
        return await verifier.verifyRenewalInfo(jws)
    }

    public func appTransaction(_ jws: String) async -> VerifiedPayload<AppTransactionPayload> {
        guard let verifier else { return unverified(jws) }
        return await verifier.verifyAppTransaction(jws)
    }

    /// Nil when there is no verifier: a notification's nested payloads need one to be read safely.
    public func notification(_ jws: String) async -> DecodedNotification? {
        await verifier?.verifyNotification(jws)
    }

    /// Every signed string in pasted text, verified; or why nothing can be.
    public func inspect(_ text: String) async -> InspectionReport {
        guard let verifier else { return InspectionReport(items: [], problem: problem ?? "No verifier is configured.") }
        return await verifier.inspect(text)
    }

    /// Decoded without trust, saying why.
    public func unverified<T: Decodable & Sendable>(_ jws: String, as type: T.Type = T.self) -> VerifiedPayload<T> {
        SignedDataInspector.decodeUnverified(jws, as: T.self, reason: problem ?? "no verifier")
    }
}
