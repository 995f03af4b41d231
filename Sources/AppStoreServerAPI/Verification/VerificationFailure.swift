import Foundation

/// Why signed data is not trusted. Each case maps to the status Apple's libraries report.
public enum VerificationFailure: Error, Sendable, Equatable, CustomStringConvertible {
    case malformedJWS(String)
    case unsupportedAlgorithm(String?)
    case missingCertificateChain
    case wrongChainLength(Int)
    case invalidCertificate(String)
    case untrustedChain(String)
    case invalidSignature
    case undecodablePayload(JSONDecodeFailure)
    case wrongBundleId(expected: String, found: String?)
    case wrongAppAppleId(expected: Int64?, found: Int64?)
    case wrongEnvironment(expected: AppStoreEnvironment, found: AppStoreEnvironment?)

    /// The matching status name of Apple's libraries (INVALID_JWT_FORMAT, VERIFICATION_FAILURE, ...).
    public var appleStatus: String {
        switch self {
        case .malformedJWS, .missingCertificateChain, .wrongChainLength, .undecodablePayload: return "INVALID_JWT_FORMAT"
        case .invalidCertificate: return "INVALID_CERTIFICATE"
        case .unsupportedAlgorithm, .untrustedChain, .invalidSignature: return "VERIFICATION_FAILURE"
        case .wrongBundleId, .wrongAppAppleId: return "INVALID_APP_IDENTIFIER"
        case .wrongEnvironment: return "INVALID_ENVIRONMENT"
        }
    }

    public var description: String {
        switch self {
        case .malformedJWS(let why): return "Not a well-formed JWS: \(why)."
        case .unsupportedAlgorithm(let alg): return "The JWS algorithm is \(alg ?? "missing"); App Store data is signed with ES256."
        case .missingCertificateChain: return "The JWS header has no x5c certificate chain."
        case .wrongChainLength(let count): return "The x5c chain has \(count) certificates; App Store data carries exactly 3."
        case .invalidCertificate(let why): return "A certificate in the x5c chain could not be read: \(why)."
        case .untrustedChain(let why): return "The certificate chain is not trusted: \(why)."
        case .invalidSignature: return "The signature does not match the content: the data was altered or signed by another key."
        case .undecodablePayload(let failure): return "The payload could not be read: \(failure)."
        case .wrongBundleId(let expected, let found):
            return "The data belongs to bundle ID \(found ?? "(none)"), not \(expected)."
        case .wrongAppAppleId(let expected, let found):
            return "The data belongs to app Apple ID \(found.map(String.init) ?? "(none)"), not \(expected.map(String.init) ?? "(none)")."
        case .wrongEnvironment(let expected, let found):
            return "The data is from \(found?.label ?? "an unstated environment"), not \(expected.label)."
        }
    }
}

/// The outcome of checking one signed payload.
public enum VerificationStatus: Sendable, Equatable {
    case verified
    case failed(VerificationFailure)
    /// Signatures of Xcode and local-testing data are not checkable; the content checks still ran.
    case notChecked(String)

    public var isVerified: Bool { self == .verified }

    public var summary: String {
        switch self {
        case .verified: return "Verified: signed by a trusted chain."
        case .failed(let failure): return "NOT VERIFIED (\(failure.appleStatus)): \(failure)"
        case .notChecked(let why): return "Signature not checked: \(why)"
        }
    }
}

/// A decoded signed payload with its verification outcome. A payload is present whenever it
/// could be decoded, even when verification failed, so it can be inspected; check `status` first.
public struct VerifiedPayload<Payload: Sendable>: Sendable {
    public let payload: Payload?
    /// The signed string itself (the compact JWS exactly as it arrived), kept beside what it says:
    /// the same string value, never re-encoded. Nil when made without one (tests, benchmarks).
    public let signed: String?
    /// The payload's JSON exactly as signed.
    public let rawPayload: Data?
    public let header: JWSHeader?
    public let status: VerificationStatus
    /// Subjects of the x5c certificates, leaf first, for display.
    public let chainSubjects: [String]
    /// Every check the status rests on, made or not (see `verdict`).
    public let checks: [VerificationCheck]

    public var verifiedPayload: Payload? { status.isVerified ? payload : nil }

    public init(
        payload: Payload?, rawPayload: Data?, header: JWSHeader?, status: VerificationStatus, chainSubjects: [String],
        checks: [VerificationCheck] = [], signed: String? = nil
    ) {
        self.payload = payload
        self.signed = signed
        self.rawPayload = rawPayload
        self.header = header
        self.status = status
        self.chainSubjects = chainSubjects
        self.checks = checks
    }
}

extension VerifiedPayload: Equatable where Payload: Equatable {
    public static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.payload == rhs.payload && lhs.rawPayload == rhs.rawPayload && lhs.status == rhs.status
    }
}
