import Foundation

/// Everything that can go wrong talking to the App Store Server API, kept apart by kind so
/// a caller can tell Apple's answer from a network fault, a malformed body or a bad signature.
public enum APIError: Error, Sendable, Equatable {
    /// Apple answered with an error status (and usually an `errorCode`).
    case server(ServerFailure)
    /// HTTP 401: Apple rejected the request token.
    case unauthorized(statusBody: String?)
    /// The request never got an HTTP answer.
    case transport(TransportFailure)
    /// A success answer whose body did not have the documented shape.
    case decoding(endpoint: String, failure: JSONDecodeFailure)
    /// The call was refused before any request was made (wrong environment, bad argument, key problem).
    case invalidRequest(String)
    case cancelled
    /// The deadline passed (retries and waits included) before a complete answer arrived.
    case deadlineExceeded(DeadlineFailure)

    /// One line naming what happened.
    public var summary: String {
        switch self {
        case .server(let failure): return failure.summary
        case .unauthorized: return "HTTP 401: Apple rejected the request token."
        case .transport(let failure): return failure.summary
        case .decoding(let endpoint, let failure): return "\(endpoint) answered with a body that could not be read: \(failure)."
        case .invalidRequest(let reason): return reason
        case .cancelled: return "The request was cancelled."
        case .deadlineExceeded(let failure): return failure.summary
        }
    }

    /// What to check or do next.
    public var hint: String {
        switch self {
        case .server(let failure): return failure.hint
        case .unauthorized:
            return "Check the key ID and issuer ID match the .p8 key in App Store Connect (Users and Access > Integrations > In-App Purchase), the bundle ID is the app's, and this machine's clock is right (tokens are refused when issued in the future or expired)."
        case .transport(let failure): return failure.hint
        case .decoding: return "The server may be a proxy or not Apple's; check the base URL. The raw body is kept for inspection."
        case .invalidRequest: return "Correct the input and try again."
        case .cancelled: return "Nothing was changed by this tool after the cancel; a write already sent may still have taken effect."
        case .deadlineExceeded:
            return "The server is slow or not answering: check the network, any proxy (HTTPS_PROXY) and the base URL, or allow more time."
        }
    }

    public var isRetryable: Bool {
        switch self {
        case .server(let failure): return failure.isRetryable
        case .transport(let failure): return failure.isRetryable
        default: return false
        }
    }

    /// No answer in time: a timed-out attempt, or the deadline.
    public var isTimeout: Bool {
        switch self {
        case .transport(let failure): return failure.kind == .timedOut
        case .deadlineExceeded: return true
        default: return false
        }
    }

    /// Apple's error code, when Apple answered with one.
    public var serverCode: APIErrorCode? {
        if case .server(let failure) = self { return failure.code }
        return nil
    }

    /// True for Apple's "not found in this environment" answer that triggers the Sandbox fallback.
    public var isTransactionNotFound: Bool {
        if case .server(let failure) = self { return failure.status == 404 && failure.code == .transactionIdNotFound }
        return false
    }
}

extension APIError: CustomStringConvertible {
    public var description: String { summary }
}

/// An error status from Apple, with the documented code when there was one.
public struct ServerFailure: Sendable, Equatable {
    public let status: Int
    public let code: APIErrorCode?
    public let message: String?
    /// For 429: when Apple says the next request may be sent.
    public let retryAfter: Date?
    /// Added by iapdesk, such as which environments were searched.
    public let note: String?

    public init(status: Int, code: APIErrorCode?, message: String?, retryAfter: Date? = nil, note: String? = nil) {
        self.status = status
        self.code = code
        self.message = message
        self.retryAfter = retryAfter
        self.note = note
    }

    public var isRetryable: Bool {
        if let code { return code.isRetryable }
        return status == 429 || status == 503 || status == 502 || status == 504
    }

    public var summary: String {
        guard let code else {
            return "HTTP \(status)" + (message.map { ": \($0)" } ?? " with no error code.")
        }
        var text = "\(code.name) (\(code.rawValue)): \(code.explanation)"
        if case .unknown = code, let message { text = "Error \(code.rawValue): \(message)" }
        if let retryAfter { text += " Next request allowed at \(InternetTime.string(from: retryAfter))." }
        if let note { text += " \(note)" }
        return text
    }

    public var hint: String {
        if let code { return code.hint }
        switch status {
        case 500...599: return "Apple's server or a proxy on the way failed; try again later."
        case 404: return "Check the base URL and the ID."
        default: return "Check the request and the base URL."
        }
    }
}

/// A request that got no HTTP answer.
public struct TransportFailure: Error, Sendable, Equatable {
    public enum Kind: Sendable, Equatable {
        case timedOut, cannotConnect, tls, dns, connectionLost, responseTooLarge, other
    }

    public let kind: Kind
    public let detail: String

    public init(kind: Kind, detail: String) {
        self.kind = kind
        self.detail = detail
    }

    public var isRetryable: Bool {
        switch kind {
        case .timedOut, .cannotConnect, .connectionLost: return true
        default: return false
        }
    }

    public var summary: String {
        switch kind {
        case .timedOut: return "The request timed out (\(detail))."
        case .cannotConnect: return "Could not connect to the server (\(detail))."
        case .tls: return "The TLS connection failed (\(detail))."
        case .dns: return "The server's name could not be resolved (\(detail))."
        case .connectionLost: return "The connection was lost (\(detail))."
        case .responseTooLarge: return "The response was larger than allowed (\(detail))."
        case .other: return "The request failed (\(detail))."
        }
    }

    public var hint: String {
        switch kind {
        case .timedOut, .connectionLost: return "Check the network and any proxy (HTTPS_PROXY), then try again."
        case .cannotConnect: return "Check the base URL and that the server is running and reachable."
        case .tls: return "Check the system CA certificates and any TLS-intercepting proxy."
        case .dns: return "Check the base URL's host name and DNS."
        case .responseTooLarge: return "The server is probably not the App Store Server API; check the base URL."
        case .other: return "Check the network and the base URL."
        }
    }
}
