import Crypto
import Foundation
import X509

/// Checks App Store signed data (JWS): the x5c chain to trusted roots with Apple's markers, validity
/// at the payload's signed date, the ES256 signature, then bundle ID, environment and app Apple ID.
/// Online revocation checks are not made: validity is judged at the date the data was signed.
public struct SignedDataVerifier: Sendable {
    public let bundleId: String
    public let appAppleId: Int64?
    public let environment: AppStoreEnvironment
    private let chains: ChainValidator

    /// - Parameters:
    ///   - additionalRoots: DER root certificates trusted besides Apple Root CA - G3 (demo server, tests).
    ///   - trustAppleRoot: false to trust only `additionalRoots`.
    ///   - cachesChains: remember validated chains (dates are still checked for every payload).
    public init(
        bundleId: String, appAppleId: Int64?, environment: AppStoreEnvironment,
        additionalRoots: [Data] = [], trustAppleRoot: Bool = true, cachesChains: Bool = true
    ) throws(VerifierConfigurationError) {
        try self.init(
            bundleId: bundleId, appAppleId: appAppleId, environment: environment, additionalRoots: additionalRoots,
            trustAppleRoot: trustAppleRoot, cachesChains: cachesChains, strictCertificateProfile: true)
    }

    /// - Parameter strictCertificateProfile: false only for Apple's own test chains, which fail
    ///   OpenSSL's strict mode and which Apple's tests therefore check without it.
    init(
        bundleId: String, appAppleId: Int64?, environment: AppStoreEnvironment,
        additionalRoots: [Data], trustAppleRoot: Bool, cachesChains: Bool, strictCertificateProfile: Bool
    ) throws(VerifierConfigurationError) {
        if environment == .production && appAppleId == nil { throw .appAppleIdRequired }
        var roots: [Certificate] = []
        for (index, der) in ((trustAppleRoot ? [AppleRootCertificates.rootCAG3] : []) + additionalRoots).enumerated() {
            guard let certificate = try? Certificate(derEncoded: Array(der)) else {
                throw .unreadableRoot(index: index)
            }
            roots.append(certificate)
        }
        guard !roots.isEmpty else { throw .noRoots }
        self.bundleId = bundleId
        self.appAppleId = appAppleId
        self.environment = environment
        self.chains = ChainValidator(roots: roots, caches: cachesChains, strict: strictCertificateProfile)
    }

    private init(copying other: SignedDataVerifier, environment: AppStoreEnvironment) {
        self.bundleId = other.bundleId
        self.appAppleId = other.appAppleId
        self.environment = environment
        self.chains = other.chains
    }

    /// The same trust and app, expecting data from `environment`: an answer is checked against the
    /// environment that gave it (a Sandbox record found by the Production fallback is Sandbox data).
    public func expecting(_ environment: AppStoreEnvironment) -> SignedDataVerifier {
        environment == self.environment ? self : SignedDataVerifier(copying: self, environment: environment)
    }

    public func verifyTransaction(_ jws: String) async -> VerifiedPayload<TransactionPayload> {
        await verify(jws, as: TransactionPayload.self, signedAt: \.signedDate) { payload throws(VerificationFailure) in
            try checkBundle(payload.bundleId)
            try checkEnvironment(payload.environment)
        }
    }

    public func verifyRenewalInfo(_ jws: String) async -> VerifiedPayload<RenewalInfoPayload> {
        await verify(jws, as: RenewalInfoPayload.self, signedAt: \.signedDate) { payload throws(VerificationFailure) in
            try checkEnvironment(payload.environment)
        }
    }

    public func verifyAppTransaction(_ jws: String) async -> VerifiedPayload<AppTransactionPayload> {
        await verify(jws, as: AppTransactionPayload.self, signedAt: \.receiptCreationDate) { payload throws(VerificationFailure) in
            try checkBundle(payload.bundleId)
            try checkAppAppleId(payload.appAppleId)
            try checkEnvironment(payload.receiptType)
        }
    }

    /// Verifies a notification and, separately, every signed payload nested in it.
    public func verifyNotification(_ jws: String) async -> DecodedNotification {
        let notification = await verify(jws, as: NotificationPayload.self, signedAt: \.signedDate) { payload throws(VerificationFailure) in
            let (bundle, appleId, environment) = Self.identity(of: payload)
            try checkBundle(bundle)
            try checkAppAppleId(appleId)
            try checkEnvironment(environment)
        }
        let data = notification.payload?.data
        async let transaction = optional(data?.signedTransactionInfo) { await verifyTransaction($0) }
        async let renewal = optional(data?.signedRenewalInfo) { await verifyRenewalInfo($0) }
        async let appTransaction = optional(notification.payload?.appData?.signedAppTransactionInfo) { await verifyAppTransaction($0) }
        return DecodedNotification(
            notification: notification, transaction: await transaction, renewalInfo: await renewal,
            appTransaction: await appTransaction)
    }

    private func optional<T>(_ jws: String?, _ body: (String) async -> T) async -> T? {
        guard let jws else { return nil }
        return await body(jws)
    }

    /// Bundle ID, app Apple ID and environment of a notification, from whichever object it carries.
    static func identity(of payload: NotificationPayload) -> (String?, Int64?, AppStoreEnvironment?) {
        if let data = payload.data { return (data.bundleId, data.appAppleId, data.environment) }
        if let summary = payload.summary { return (summary.bundleId, summary.appAppleId, summary.environment) }
        if let token = payload.externalPurchaseToken {
            let isSandbox = token.externalPurchaseId?.hasPrefix("SANDBOX") ?? false
            return (token.bundleId, token.appAppleId, isSandbox ? .sandbox : .production)
        }
        if let appData = payload.appData { return (appData.bundleId, appData.appAppleId, appData.environment) }
        return (nil, nil, nil)
    }

    // MARK: Checks

    private func checkBundle(_ found: String?) throws(VerificationFailure) {
        guard found == bundleId else { throw .wrongBundleId(expected: bundleId, found: found) }
    }

    private func checkAppAppleId(_ found: Int64?) throws(VerificationFailure) {
        guard environment == .production else { return }
        guard found == appAppleId else { throw .wrongAppAppleId(expected: appAppleId, found: found) }
    }

    private func checkEnvironment(_ found: AppStoreEnvironment?) throws(VerificationFailure) {
        guard found == environment else { throw .wrongEnvironment(expected: environment, found: found) }
    }

    // MARK: The common path

    private func verify<Payload: Decodable & Sendable>(
        _ text: String, as type: Payload.Type, signedAt signedDate: KeyPath<Payload, Date?>,
        content: (Payload) throws(VerificationFailure) -> Void
    ) async -> VerifiedPayload<Payload> {
        var payload: Payload?
        var rawPayload: Data?
        var header: JWSHeader?
        var subjects: [String] = []
        func result(_ status: VerificationStatus) -> VerifiedPayload<Payload> {
            VerifiedPayload(payload: payload, rawPayload: rawPayload, header: header, status: status, chainSubjects: subjects)
        }
        do {
            let jws = try CompactJWS(text)
            rawPayload = try jws.payloadData()
            do {
                payload = try AppStoreJSON.decode(Payload.self, from: rawPayload!)
            } catch {
                throw VerificationFailure.undecodablePayload(error)
            }
            let decoded = payload!
            if environment == .xcode || environment == .localTesting {
                header = try? jws.header()
                try content(decoded)
                return result(.notChecked("\(environment.label) data is not signed by Apple."))
            }
            let cacheKey = String(jws.headerSegment)
            let parsedHeader = try jws.header()
            header = parsedHeader
            guard parsedHeader.alg == "ES256" else { throw VerificationFailure.unsupportedAlgorithm(parsedHeader.alg) }
            guard let x5c = parsedHeader.x5c else { throw VerificationFailure.missingCertificateChain }
            let chain = try await chains.validate(x5c: x5c, at: decoded[keyPath: signedDate] ?? Date(), cacheKey: cacheKey)
            subjects = chain.subjects
            let signatureBytes = try jws.signature()
            guard signatureBytes.count == 64,
                  let signature = try? P256.Signing.ECDSASignature(rawRepresentation: signatureBytes),
                  chain.leafKey.isValidSignature(signature, for: Data(jws.signingInput.utf8))
            else { throw VerificationFailure.invalidSignature }
            try content(decoded)
            return result(.verified)
        } catch let failure as VerificationFailure {
            return result(.failed(failure))
        } catch {
            return result(.failed(.malformedJWS(String(describing: error))))
        }
    }
}

public enum VerifierConfigurationError: Error, Sendable, Equatable, CustomStringConvertible {
    case appAppleIdRequired
    case unreadableRoot(index: Int)
    case noRoots

    public var description: String {
        switch self {
        case .appAppleIdRequired: return "Verifying Production data needs the app's Apple ID (app_apple_id in the profile)."
        case .unreadableRoot(let index): return "Root certificate \(index + 1) is not a DER X.509 certificate."
        case .noRoots: return "No trusted root certificates are configured."
        }
    }
}

/// A notification with each nested signed payload verified on its own.
public struct DecodedNotification: Sendable {
    public let notification: VerifiedPayload<NotificationPayload>
    public let transaction: VerifiedPayload<TransactionPayload>?
    public let renewalInfo: VerifiedPayload<RenewalInfoPayload>?
    public let appTransaction: VerifiedPayload<AppTransactionPayload>?

    public init(
        notification: VerifiedPayload<NotificationPayload>, transaction: VerifiedPayload<TransactionPayload>?,
        renewalInfo: VerifiedPayload<RenewalInfoPayload>?, appTransaction: VerifiedPayload<AppTransactionPayload>?
    ) {
        self.notification = notification
        self.transaction = transaction
        self.renewalInfo = renewalInfo
        self.appTransaction = appTransaction
    }

    /// Verified only when the notification and everything nested in it verified.
    public var isFullyVerified: Bool {
        notification.status.isVerified && (transaction?.status.isVerified ?? true)
            && (renewalInfo?.status.isVerified ?? true) && (appTransaction?.status.isVerified ?? true)
    }
}
