import Foundation

/// One check a verdict names, and what became of it: a verdict lists every check, made or not, so
/// that nobody reads "verified" as more than what was checked.
public struct VerificationCheck: Sendable, Equatable {
    public enum Subject: String, Sendable, CaseIterable {
        case chain = "signature and chain"
        case bundleId = "bundle ID"
        case appAppleId = "app Apple ID"
        case environment = "environment"
    }

    public enum Outcome: Sendable, Equatable {
        /// Made and passed; the detail says what matched ("com.example", "valid at ...").
        case passed(String)
        /// Made and failed; the detail says what was found.
        case failed(String)
        /// The verifier was not told what to expect (no profile, no flag).
        case notGiven
        /// This kind of data has no such field (renewal info carries no bundle ID).
        case notCarried(kind: String)
        /// Apple makes this check only in some cases; the detail says which.
        case notApplicable(String)
        /// Not made, for the reason given (an earlier step failed, Xcode data is unsigned).
        case notMade(String)
    }

    public let subject: Subject
    public let outcome: Outcome

    public init(_ subject: Subject, _ outcome: Outcome) {
        self.subject = subject
        self.outcome = outcome
    }

    public var wasMade: Bool {
        switch outcome {
        case .passed, .failed: return true
        default: return false
        }
    }

    /// "bundle ID: checked (com.example)", "environment: not given", ...
    public var text: String { "\(subject.rawValue): \(outcomeText)" }

    /// The outcome alone: "checked (com.example)", "not given", ...
    public var outcomeText: String {
        switch outcome {
        case .passed(let detail): return "checked (\(detail))"
        case .failed(let detail): return "FAILED (\(detail))"
        case .notGiven: return "not given"
        case .notCarried(let kind): return "not carried by \(kind)"
        case .notApplicable(let why), .notMade(let why): return "not checked (\(why))"
        }
    }
}

extension VerifiedPayload {
    /// The status in a few words: "Verified", "Signature verified; not every check was made", or the failure.
    public var headline: String { VerificationCheck.headline(status, checks) }

    /// The headline followed by every check: "Verified: signature and chain: checked (...); bundle ID: ...".
    public var verdict: String { VerificationCheck.verdict(status, checks) }
}

extension VerificationCheck {
    static func headline(_ status: VerificationStatus, _ checks: [VerificationCheck]) -> String {
        guard case .verified = status, !checks.isEmpty else { return status.summary }
        return checks.contains { $0.outcome == .notGiven } ? "Signature verified; not every check was made" : "Verified"
    }

    static func verdict(_ status: VerificationStatus, _ checks: [VerificationCheck]) -> String {
        let list = checks.map(\.text).joined(separator: "; ")
        guard !list.isEmpty else { return status.summary }
        if case .verified = status { return headline(status, checks) + ": " + list + "." }
        return status.summary + " Checks: " + list + "."
    }
}
