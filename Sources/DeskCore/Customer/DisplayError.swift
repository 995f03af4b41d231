import AppStoreServerAPI
import Foundation

/// An error as the console shows it: what happened and what to do, with the API error behind it
/// kept as a value, so decisions read its code and status, never its text.
public struct DisplayError: Error, Sendable, Equatable {
    public var summary: String
    public var hint: String?
    public var source: APIError?
    /// The environment the failed request went to, when it went to one.
    public var environment: AppStoreEnvironment?

    public init(summary: String, hint: String? = nil, source: APIError? = nil, environment: AppStoreEnvironment? = nil) {
        self.summary = summary
        self.hint = hint
        self.source = source
        self.environment = environment
    }

    /// "Apple error 4040010 · HTTP 404 · Sandbox": what the error is, for a ticket or a search.
    public var facts: String? {
        var parts: [String] = []
        if let code { parts.append("Apple error \(code.rawValue)") }
        if let httpStatus { parts.append("HTTP \(httpStatus)") }
        if let environment { parts.append(environment.label) }
        return parts.isEmpty ? nil : parts.joined(separator: " · ")
    }

    public init(_ error: APIError) {
        self.init(summary: error.summary, hint: error.hint, source: error)
    }

    /// Apple's error code, when Apple answered with one.
    public var code: APIErrorCode? {
        if case .server(let failure)? = source { return failure.code }
        return nil
    }

    /// The HTTP status Apple answered with, when it answered.
    public var httpStatus: Int? {
        switch source {
        case .server(let failure)?: return failure.status
        case .unauthorized?: return 401
        default: return nil
        }
    }

    public init(_ error: any Error) {
        if let api = error as? APIError {
            self.init(api)
        } else if error is CancellationError {
            self.init(summary: "Cancelled.")
        } else {
            self.init(summary: "\(error)")
        }
    }
}
