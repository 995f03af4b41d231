import AppStoreServerAPI
import ArgumentParser
import DeskCore
import Foundation

/// Stable exit codes, listed in `iapdesk --help`.
enum ExitStatus: Int32, CaseIterable {
    case success = 0
    case failure = 1
    case notFound = 2
    case configuration = 3
    case rejected = 4
    case unavailable = 5
    case unauthorized = 6
    case rateLimited = 7
    case unverified = 8
    case refused = 9
    case gapsFound = 10
    case testFailed = 11
    case usage = 64
    case interrupted = 130

    var meaning: String {
        switch self {
        case .success: return "success"
        case .failure: return "unexpected failure"
        case .notFound: return "the ID or order was not found; init: answers missing and standard input ended"
        case .configuration: return "configuration or key problem (doctor: a check of the profile, key or clock failed)"
        case .rejected: return "Apple rejected the request (other 4xx)"
        case .unavailable: return "Apple or the network failed (5xx, no connection, unreadable answer, or no answer before the --timeout deadline)"
        case .unauthorized: return "HTTP 401: the request token was refused (doctor: the first failure is a refused token)"
        case .rateLimited: return "HTTP 429: rate limit exceeded"
        case .unverified: return "signed data failed verification"
        case .refused: return "refused here: read-only profile, write not confirmed, or init told not to overwrite a profile"
        case .gapsFound: return "reconcile found gaps (a notification on one side only), or recover/replay could not deliver every notification"
        case .testFailed: return "retention performance-test result: the test failed (FAIL)"
        case .usage: return "invalid arguments"
        case .interrupted: return "interrupted (Ctrl-C); a list shows what arrived and says it is partial"
        }
    }

    static var helpText: String {
        "Exit codes:\n" + allCases.map { "  \(String($0.rawValue).padding(toLength: 4, withPad: " ", startingAt: 0)) \($0.meaning)" }.joined(separator: "\n")
    }
}

/// A failure the command line reports as one message (with a hint) and an exit code.
struct CLIError: Error, CustomStringConvertible {
    let message: String
    var hint: String?
    let status: ExitStatus
    /// Apple's error code, when Apple refused: for a command that says more about some of them.
    var serverCode: APIErrorCode?

    var description: String { message }

    init(_ message: String, hint: String? = nil, status: ExitStatus) {
        self.message = message
        self.hint = hint
        self.status = status
    }

    init(_ error: APIError) {
        let status: ExitStatus
        switch error {
        case .server(let failure):
            switch failure.status {
            case 404: status = .notFound
            case 429: status = .rateLimited
            case 400..<500: status = .rejected
            default: status = .unavailable
            }
        case .unauthorized: status = .unauthorized
        case .transport, .decoding: status = .unavailable
        case .invalidRequest: status = .usage
        case .cancelled: status = .interrupted
        case .deadlineExceeded: status = .unavailable
        }
        self.init(error.summary, hint: error.hint, status: status)
        serverCode = error.serverCode
        if case .deadlineExceeded = error {
            hint = "The server is slow or not answering: check the network, any proxy (HTTPS_PROXY) and the base URL, or allow more time with --timeout SECONDS (or IAPDESK_TIMEOUT, or timeout = SECONDS in the profile)."
        }
    }

    /// Signed data that did not verify (exit 8), with what to check for its kind of failure.
    init(unverified failure: VerificationFailure) {
        let hint: String
        switch failure {
        case .wrongBundleId, .wrongAppAppleId:
            hint = "Check bundle_id and app_apple_id in the profile (--bundle-id, --app-apple-id) are the app's that owns this data."
        case .wrongEnvironment:
            hint = "Check the profile's environment (--environment): Sandbox data does not verify as Production data, nor the other way round."
        case .malformedJWS, .undecodablePayload, .missingCertificateChain, .wrongChainLength:
            hint = "The answer is not App Store signed data: check the base URL and any proxy between here and Apple."
        default:
            // The signature or the chain: invalid signature, untrusted chain, bad certificate, wrong algorithm.
            hint = "The data was not signed by a trusted App Store chain: check the base URL is Apple's (for a test server, trust its root with --root-cert or root_certs) and that no proxy rewrites answers. Do not act on this data."
        }
        self.init("Signed data did not verify: \(VerificationStatus.failed(failure).summary)", hint: hint + " `iapdesk decode` shows every check of a JWS.", status: .unverified)
    }

    init(_ error: ConfigurationError) {
        self.init(error.description, status: Self.configurationStatus(error))
    }

    private static func configurationStatus(_ error: ConfigurationError) -> ExitStatus {
        if case .readOnly = error { return .refused }
        return .configuration
    }
}

extension CLIError {
    /// Prints the message and its hint to standard error and gives the exit code to throw:
    /// ArgumentParser ends the process with an `ExitCode` and prints nothing more, so deferred
    /// work (closing a session, stopping a server) still runs on the way out.
    func reported() -> ExitCode {
        StandardStreams.error("error: \(message)\n")
        if let hint { StandardStreams.error("hint: \(hint)\n") }
        return ExitCode(status.rawValue)
    }
}

extension ExitCode {
    /// The documented exit code of a status (`iapdesk --help` lists them).
    init(_ status: ExitStatus) { self.init(status.rawValue) }
}

/// Runs a command body, turning every failure into a message and its exit code.
func runReporting(isolation: isolated (any Actor)? = #isolation, _ body: () async throws -> Void) async throws {
    do {
        try await body()
    } catch {
        guard let known = CLIError.known(error) else { throw error }
        throw known.reported()
    }
}

extension CLIError {
    /// The message and exit code of a failure a command reports; nil for one it does not know
    /// (ArgumentParser's own, which it reports itself).
    static func known(_ error: any Error) -> CLIError? {
        switch error {
        case let error as CLIError: return error
        case let error as APIError: return CLIError(error)
        case let error as ConfigurationError: return CLIError(error)
        case let error as KeyLoadError: return CLIError(error.description, status: .configuration)
        case let error as VerifierConfigurationError: return CLIError(error.description, status: .configuration)
        case is CancellationError: return CLIError("Interrupted.", status: .interrupted)
        default: return nil
        }
    }
}
