import Crypto
import Foundation
import X509

/// Checks App Store signed data (JWS): the x5c chain to trusted roots with Apple's markers, validity
/// at the payload's signed date, the ES256 signature, then bundle ID, app Apple ID and environment
/// against what the verifier was told to expect. An expectation left out (nil) is not checked, and
/// every result says which checks were made. Online revocation checks are not made: validity is
/// judged at the date the data was signed.
public struct SignedDataVerifier: Sendable {
    public let bundleId: String?
    public let appAppleId: Int64?
    public let environment: AppStoreEnvironment?
    /// Whether each result keeps the signed string it came from (`VerifiedPayload.signed`): the
    /// command line prints it for `--raw`; the console never shows it, and for a long history
    /// the strings (each with its certificate chain) are megabytes held for nothing.
    public private(set) var keepsSignedText = true
    let chains: ChainValidator

    /// - Parameters:
    ///   - bundleId, appAppleId, environment: what the data must carry; nil leaves that check out.
    ///   - additionalRoots: DER root certificates trusted besides Apple Root CA - G3 (demo server, tests).
    ///   - trustAppleRoot: false to trust only `additionalRoots`.
    ///   - cachesChains: remember validated chains (dates are still checked for every payload).
    ///   - requiresAppAppleIdInProduction: as Apple's verifiers, refuse to check Production data
    ///     without the app's Apple ID; false to check it without (the verdict then says so).
    public init(
        bundleId: String?, appAppleId: Int64?, environment: AppStoreEnvironment?,
        additionalRoots: [Data] = [], trustAppleRoot: Bool = true, cachesChains: Bool = true,
        requiresAppAppleIdInProduction: Bool = true
    ) throws(VerifierConfigurationError) {
        try self.init(
            bundleId: bundleId, appAppleId: appAppleId, environment: environment, additionalRoots: additionalRoots,
            trustAppleRoot: trustAppleRoot, cachesChains: cachesChains,
            requiresAppAppleIdInProduction: requiresAppAppleIdInProduction, strictCertificateProfile: true)
    }

    /// - Parameter strictCertificateProfile: false only for Apple's own test chains, which fail
    ///   OpenSSL's strict mode and which Apple's tests therefore check without it.
    init(
        bundleId: String?, appAppleId: Int64?, environment: AppStoreEnvironment?,
        additionalRoots: [Data], trustAppleRoot: Bool, cachesChains: Bool, requiresAppAppleIdInProduction: Bool = true,
        strictCertificateProfile: Bool
    ) throws(VerifierConfigurationError) {
        if requiresAppAppleIdInProduction && environment == .production && appAppleId == nil { throw .appAppleIdRequired }
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
        self.keepsSignedText = other.keepsSignedText
        self.chains = other.chains
    }

    /// The same verifier, its results without the signed strings they came from.
    public func droppingSignedText() -> SignedDataVerifier {
        var copy = self
        copy.keepsSignedText = false
        return copy
    }

    /// The same trust and app, expecting data from `environment`: an answer is checked against the
    /// environment that gave it (a Sandbox record found by the Production fallback is Sandbox data).
    public func expecting(_ environment: AppStoreEnvironment) -> SignedDataVerifier {
        environment == self.environment ? self : SignedDataVerifier(copying: self, environment: environment)
    }

    public func verifyTransaction(_ jws: String) async -> VerifiedPayload<TransactionPayload> {
        await verify(jws, as: TransactionPayload.self, signedAt: \.signedDate) { payload in
            ContentIdentity(kind: "a transaction", bundleId: .carried(payload.bundleId), appAppleId: .notCarried, environment: payload.environment)
        }
    }

    public func verifyRenewalInfo(_ jws: String) async -> VerifiedPayload<RenewalInfoPayload> {
        await verify(jws, as: RenewalInfoPayload.self, signedAt: \.signedDate) { payload in
            ContentIdentity(kind: "renewal info", bundleId: .notCarried, appAppleId: .notCarried, environment: payload.environment)
        }
    }

    public func verifyAppTransaction(_ jws: String) async -> VerifiedPayload<AppTransactionPayload> {
        await verify(jws, as: AppTransactionPayload.self, signedAt: \.receiptCreationDate) { payload in
            ContentIdentity(
                kind: "an app transaction", bundleId: .carried(payload.bundleId), appAppleId: .carried(payload.appAppleId),
                environment: payload.receiptType)
        }
    }

    /// A real-time request Apple sends to the realtime URL (Retention Messaging's Get Retention
    /// Message): it names the app by its Apple ID, not its bundle ID.
    public func verifyRealtimeRequest(_ jws: String) async -> VerifiedPayload<RealtimeRequestPayload> {
        await verify(jws, as: RealtimeRequestPayload.self, signedAt: \.signedDate) { payload in
            ContentIdentity(
                kind: "a real-time request", bundleId: .notCarried, appAppleId: .carried(payload.appAppleId), environment: payload.environment)
        }
    }

    /// Verifies a notification and, separately, every signed payload nested in it.
    public func verifyNotification(_ jws: String) async -> DecodedNotification {
        await verifyNotification(jws, cheapestFirst: false)
    }

    /// With `cheapestFirst`, as a receiver open to anyone wants it: the bundle ID, app Apple ID and
    /// environment the payload claims are checked before its chain and signature, and nothing nested
    /// is verified in a notification that failed; the first failure found is the one reported.
    public func verifyNotification(_ jws: String, cheapestFirst: Bool) async -> DecodedNotification {
        let notification = await verify(jws, as: NotificationPayload.self, signedAt: \.signedDate, contentFirst: cheapestFirst) { payload in
            let (bundle, appleId, environment) = Self.identity(of: payload)
            return ContentIdentity(kind: "a notification", bundleId: .carried(bundle), appAppleId: .carried(appleId), environment: environment)
        }
        if cheapestFirst, !notification.status.isVerified {
            return DecodedNotification(notification: notification, transaction: nil, renewalInfo: nil, appTransaction: nil)
        }
        let data = notification.payload?.data
        let signedTransaction = data?.signedTransactionInfo
        let signedRenewal = data?.signedRenewalInfo
        let signedAppTransaction = notification.payload?.appData?.signedAppTransactionInfo
        // One nested payload (the usual case) is checked in this task: a child task would cost a
        // task and a thread hop per notification and gain nothing. Several are checked at once.
        let nested = [signedTransaction, signedRenewal, signedAppTransaction].count { $0 != nil }
        guard nested > 1 else {
            return DecodedNotification(
                notification: notification, transaction: await optional(signedTransaction) { await verifyTransaction($0) },
                renewalInfo: await optional(signedRenewal) { await verifyRenewalInfo($0) },
                appTransaction: await optional(signedAppTransaction) { await verifyAppTransaction($0) })
        }
        async let transaction = optional(signedTransaction) { await verifyTransaction($0) }
        async let renewal = optional(signedRenewal) { await verifyRenewalInfo($0) }
        async let appTransaction = optional(signedAppTransaction) { await verifyAppTransaction($0) }
        return DecodedNotification(
            notification: notification, transaction: await transaction, renewalInfo: await renewal,
            appTransaction: await appTransaction)
    }

    private func optional<T>(_ jws: String?, _ body: (String) async -> T) async -> T? {
        guard let jws else { return nil }
        return await body(jws)
    }

    /// Bundle ID, app Apple ID and environment of a notification, from whichever object it carries
    /// (data, summary, external purchase token or app data): what the checks compare, and what a
    /// receiver files the notification under.
    public static func identity(of payload: NotificationPayload) -> (bundleId: String?, appAppleId: Int64?, environment: AppStoreEnvironment?) {
        if let data = payload.data { return (data.bundleId, data.appAppleId, data.environment) }
        if let summary = payload.summary { return (summary.bundleId, summary.appAppleId, summary.environment) }
        if let token = payload.externalPurchaseToken {
            let isSandbox = token.externalPurchaseId?.hasPrefix("SANDBOX") ?? false
            return (token.bundleId, token.appAppleId, isSandbox ? .sandbox : .production)
        }
        if let appData = payload.appData { return (appData.bundleId, appData.appAppleId, appData.environment) }
        return (nil, nil, nil)
    }

    // MARK: Content checks

    /// What a kind of signed data says about the app and environment it belongs to.
    struct ContentIdentity {
        enum Field<Value> {
            case carried(Value?)
            case notCarried
        }
        let kind: String
        let bundleId: Field<String>
        let appAppleId: Field<Int64>
        let environment: AppStoreEnvironment?
    }

    /// Bundle ID, app Apple ID and environment, each checked, failed or said not to be checked; the
    /// first failure in Apple's order is the one reported.
    /// The checks go onto `checks`, which the caller sizes for them (one array per payload).
    private func contentChecks(_ identity: ContentIdentity, into checks: inout [VerificationCheck]) -> VerificationFailure? {
        var failure: VerificationFailure?
        switch identity.bundleId {
        case .notCarried: checks.append(.init(.bundleId, .notCarried(kind: identity.kind)))
        case .carried(let found):
            if let bundleId {
                if found == bundleId {
                    checks.append(.init(.bundleId, .passed(bundleId)))
                } else {
                    checks.append(.init(.bundleId, .failed("\(found ?? "none"), not \(bundleId)")))
                    failure = failure ?? .wrongBundleId(expected: bundleId, found: found)
                }
            } else {
                checks.append(.init(.bundleId, .notGiven))
            }
        }
        switch identity.appAppleId {
        case .notCarried: checks.append(.init(.appAppleId, .notCarried(kind: identity.kind)))
        case .carried(let found):
            if (environment ?? identity.environment) != .production {
                checks.append(.init(.appAppleId, .notApplicable("Apple checks it for Production data only")))
            } else if let appAppleId {
                if found == appAppleId {
                    checks.append(.init(.appAppleId, .passed(String(appAppleId))))
                } else {
                    checks.append(.init(.appAppleId, .failed("\(found.map(String.init) ?? "none"), not \(appAppleId)")))
                    failure = failure ?? .wrongAppAppleId(expected: appAppleId, found: found)
                }
            } else {
                checks.append(.init(.appAppleId, .notGiven))
            }
        }
        if let environment {
            if identity.environment == environment {
                checks.append(.init(.environment, .passed(environment.label)))
            } else {
                checks.append(.init(.environment, .failed("\(identity.environment?.label ?? "none"), not \(environment.label)")))
                failure = failure ?? .wrongEnvironment(expected: environment, found: identity.environment)
            }
        } else {
            checks.append(.init(.environment, .notGiven))
        }
        return failure
    }

    // MARK: The common path

    static let validAtSignedDate = "valid at the signedDate; revocation not checked"
    static let validNow = "valid now: the data has no signedDate; revocation not checked"

    private func verify<Payload: FastJSONDecodable & Decodable>(
        _ text: String, as type: Payload.Type, signedAt signedDate: (Payload) -> Date?, contentFirst: Bool = false,
        identity: (Payload) -> ContentIdentity
    ) async -> VerifiedPayload<Payload> {
        let jws: CompactJWS
        let rawPayload: Data
        do {
            jws = try CompactJWS(text)
            rawPayload = try jws.payloadData()
        } catch {
            return VerifiedPayload(payload: nil, rawPayload: nil, header: nil, status: .failed(error), chainSubjects: [], signed: keepsSignedText ? text : nil)
        }
        // The payload is held once, here, and moved into the result: a copy would cost a retain
        // and a release of each of its strings.
        let decoded: Payload
        do {
            decoded = try AppStoreJSON.decodePayload(Payload.self, from: rawPayload)
        } catch {
            return VerifiedPayload(
                payload: nil, rawPayload: rawPayload, header: nil, status: .failed(.undecodablePayload(error)), chainSubjects: [],
                signed: keepsSignedText ? text : nil)
        }
        let carried = identity(decoded)
        // Xcode and local-testing data is not signed by Apple: expected so, or claimed so when no
        // environment is expected. Either way it never counts as verified.
        let unsigned = environment ?? carried.environment
        if unsigned == .xcode || unsigned == .localTesting, let unsigned {
            var checks: [VerificationCheck] = []
            checks.reserveCapacity(4)
            checks.append(.init(.chain, .notMade("\(unsigned.label) data is not signed by Apple")))
            let failure = contentChecks(carried, into: &checks)
            return VerifiedPayload(
                payload: consume decoded, rawPayload: rawPayload, header: try? jws.header(),
                status: failure.map { .failed($0) } ?? .notChecked("\(unsigned.label) data is not signed by Apple."),
                chainSubjects: [], checks: checks, signed: keepsSignedText ? text : nil)
        }
        if contentFirst {
            var checks: [VerificationCheck] = []
            checks.reserveCapacity(4)
            checks.append(.init(.chain, .notMade("what the payload claims did not match")))
            if let failure = contentChecks(carried, into: &checks) {
                return VerifiedPayload(
                    payload: consume decoded, rawPayload: rawPayload, header: nil, status: .failed(failure), chainSubjects: [],
                    checks: checks, signed: keepsSignedText ? text : nil)
            }
        }
        let signedAt = signedDate(decoded)
        var header: JWSHeader?
        var subjects: [String] = []
        do {
            let chain: ChainValidator.TrustedChain
            var hasher: SHA256
            // A header not seen before, remembered once the signature under it has verified.
            var newHeader: (header: JWSHeader, prefixHash: SHA256)?
            if let trusted = chains.trustedHeader(jws.headerSegment) {
                // The very header that passed before: same alg and certificates, so only the chain's
                // dates at this payload's signedDate are left to check, and its hashing is done.
                header = trusted.header
                try chains.checkValidity(trusted.chain, at: signedAt ?? Date())
                chain = trusted.chain
                hasher = trusted.prefixHash
            } else {
                let parsedHeader = try jws.header()
                header = parsedHeader
                guard parsedHeader.alg == "ES256" else { throw VerificationFailure.unsupportedAlgorithm(parsedHeader.alg) }
                guard let x5c = parsedHeader.x5c else { throw VerificationFailure.missingCertificateChain }
                chain = try await chains.validate(x5c: x5c, at: signedAt ?? Date())
                hasher = SHA256()
                hasher.update(data: Data(jws.headerSegment.utf8))
                hasher.update(data: Data(".".utf8))
                newHeader = (parsedHeader, hasher)
            }
            subjects = chain.subjects
            let signature: P256.Signing.ECDSASignature
            if let es256 = jws.es256Signature() {
                signature = es256
            } else {
                let signatureBytes = try jws.signature()
                guard signatureBytes.count == 64,
                      let decodedSignature = try? P256.Signing.ECDSASignature(rawRepresentation: signatureBytes)
                else { throw VerificationFailure.invalidSignature }
                signature = decodedSignature
            }
            var payloadSegment = jws.payloadSegment
            payloadSegment.withUTF8 { hasher.update(bufferPointer: UnsafeRawBufferPointer($0)) }
            guard chain.leafKey.isValidSignature(signature, for: hasher.finalize()) else { throw VerificationFailure.invalidSignature }
            if let newHeader {
                chains.rememberHeader(jws.headerSegment, header: newHeader.header, chain: chain, prefixHash: newHeader.prefixHash)
            }
        } catch let failure as VerificationFailure {
            let checks: [VerificationCheck] = [.init(.chain, .failed(failure.appleStatus))]
                + [VerificationCheck.Subject.bundleId, .appAppleId, .environment].map { .init($0, .notMade("the signature did not verify")) }
            return VerifiedPayload(
                payload: consume decoded, rawPayload: rawPayload, header: header, status: .failed(failure), chainSubjects: subjects,
                checks: checks, signed: keepsSignedText ? text : nil)
        } catch {
            return VerifiedPayload(
                payload: consume decoded, rawPayload: rawPayload, header: header, status: .failed(.malformedJWS(String(describing: error))),
                chainSubjects: subjects, signed: keepsSignedText ? text : nil)
        }
        var checks: [VerificationCheck] = []
        checks.reserveCapacity(4)
        checks.append(.init(.chain, .passed(signedAt == nil ? Self.validNow : Self.validAtSignedDate)))
        let failure = contentChecks(carried, into: &checks)
        return VerifiedPayload(
            payload: consume decoded, rawPayload: rawPayload, header: header, status: failure.map { .failed($0) } ?? .verified,
            chainSubjects: subjects, checks: checks, signed: keepsSignedText ? text : nil)
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
