import Foundation

/// How one check of `iapdesk doctor` came out, from best to worst.
public enum DoctorStatus: String, Sendable, Codable, Comparable, CaseIterable {
    case pass
    /// Not run, because a check it needs failed (that failure is reported on its own).
    case skip
    case warn
    case fail

    public var label: String { rawValue.uppercased() }

    private var rank: Int { Self.allCases.firstIndex(of: self)! }
    public static func < (lhs: DoctorStatus, rhs: DoctorStatus) -> Bool { lhs.rank < rhs.rank }
}

/// What a failed check means for a script: the exit code family it belongs to.
public enum DoctorFailureKind: String, Sendable, Codable {
    /// The profile, the key file or this machine (clock) needs fixing.
    case configuration
    /// Apple refused the request token (HTTP 401).
    case unauthorized
    /// Apple or the network could not be reached.
    case unavailable
}

/// One check: its name, how it came out, what was found and, unless it passed, how to fix it.
public struct DoctorCheck: Sendable, Equatable, Codable {
    public var name: String
    public var status: DoctorStatus
    public var detail: String
    public var fix: String?
    /// Set for failures only.
    public var failure: DoctorFailureKind?

    public init(_ name: String, _ status: DoctorStatus, _ detail: String, fix: String? = nil, failure: DoctorFailureKind? = nil) {
        self.name = name
        self.status = status
        self.detail = detail
        self.fix = status == .pass ? nil : fix
        self.failure = status == .fail ? (failure ?? .configuration) : nil
    }

    enum CodingKeys: String, CodingKey { case name, status, detail, fix }
}

/// Every check in the order it ran; the command line and the console render it.
public struct DoctorReport: Sendable, Equatable, Codable {
    public var checks: [DoctorCheck]

    public init(checks: [DoctorCheck]) { self.checks = checks }

    public var worst: DoctorStatus { checks.map(\.status).max() ?? .pass }

    public func check(_ name: String) -> DoctorCheck? { checks.first { $0.name == name } }

    /// The first failure decides the exit code: checks run from the profile outwards to Apple.
    public var firstFailure: DoctorCheck? { checks.first { $0.status == .fail } }

    /// `PASS  key file  …` lines with the fix under each check that did not pass.
    public func lines() -> [String] {
        let nameWidth = (checks.map(\.name.count).max() ?? 0) + 2
        var lines: [String] = []
        for check in checks {
            lines.append(check.status.label.padding(toLength: 6, withPad: " ", startingAt: 0)
                + check.name.padding(toLength: nameWidth, withPad: " ", startingAt: 0) + check.detail)
            if let fix = check.fix { lines.append(String(repeating: " ", count: 6 + nameWidth) + "fix: " + fix) }
        }
        return lines
    }

    public var summary: String {
        let counts = DoctorStatus.allCases.reversed().compactMap { status -> String? in
            let count = checks.filter { $0.status == status }.count
            return count == 0 ? nil : "\(count) \(status.rawValue)"
        }
        return "\(checks.count) checks: " + counts.joined(separator: ", ") + "."
    }

    enum CodingKeys: String, CodingKey { case checks, worst }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(checks, forKey: .checks)
        try container.encode(worst, forKey: .worst)
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        checks = try container.decode([DoctorCheck].self, forKey: .checks)
    }
}
