import Foundation

/// What a consumption policy keeps in the store: the agents' per-customer overrides (every change
/// kept, by agent and time) and, per refund request, which receiver answers it, so that several
/// receivers on one store, and a receiver restarted, answer each request once.
public protocol RefundPolicyStore: Sendable {
    /// Records a change of a customer's override (set, or removed when `change.refundPreference`
    /// is nil); every change is kept, the latest one per customer applies.
    func recordRefundOverride(_ change: RefundOverride) async throws
    /// Every change, oldest first.
    func refundOverrideChanges() async throws -> [RefundOverride]
    /// Claims the answer to one refund request (its notificationUUID) for `claimant` until `until`,
    /// in one transaction: won when nobody holds it, when its holder's time ran out, or when the
    /// holder is `replacing` (a receiver known to have stopped); otherwise says who holds it or how
    /// it ended.
    func claimPolicyAnswer(_ notificationUUID: String, claimant: String, now: Date, until: Date, replacing: String?) async throws -> PolicyClaimResult
    /// Moves a claim on (keeps it `until` later, or settles it) while `claimant` still holds it;
    /// false when another took it over meanwhile.
    @discardableResult
    func updatePolicyClaim(_ notificationUUID: String, claimant: String, state: PolicyClaim.State, detail: String?, until: Date, now: Date) async throws -> Bool
    /// The claims of these refund requests.
    func policyClaims(_ notificationUUIDs: Set<String>) async throws -> [PolicyClaim]
}

/// One change of a customer's refund preference, set by an agent for the policy to state.
public struct RefundOverride: Sendable, Equatable {
    public enum Kind: String, Sendable, CaseIterable {
        case originalTransactionId = "original-transaction-id"
        case appAccountToken = "app-account-token"
    }

    public var kind: Kind
    /// The original transaction ID, or the app account token in lower case.
    public var account: String
    /// decline, grant-full, grant-prorated or none; nil removes the override.
    public var refundPreference: String?
    public var note: String?
    public var agent: String
    public var time: Date

    public init(kind: Kind, account: String, refundPreference: String?, note: String?, agent: String, time: Date) {
        self.kind = kind
        self.account = kind == .appAccountToken ? account.lowercased() : account
        self.refundPreference = refundPreference
        self.note = note
        self.agent = agent
        self.time = time
    }

    /// The overrides in force: the latest change of each customer, removals left out.
    public static func current(_ changes: [RefundOverride]) -> [RefundOverride] {
        var latest: [String: RefundOverride] = [:]
        var order: [String] = []
        for change in changes {
            let key = change.kind.rawValue + "|" + change.account
            if latest.updateValue(change, forKey: key) == nil { order.append(key) }
        }
        return order.compactMap { latest[$0] }.filter { $0.refundPreference != nil }
    }
}

/// Who answers one refund request for the policy, and how that ended.
public struct PolicyClaim: Sendable, Equatable {
    public enum State: String, Sendable {
        /// A receiver is answering it (until `until`; past that another may take it over).
        case working
        /// Apple accepted the answer.
        case answered
        /// The policy decided not to answer (no consent, past the deadline, a rule).
        case skipped
        /// Apple refused the answer, or the deadline passed while retrying.
        case failed
        /// Its answer may have left before the receiver stopped: not sent again.
        case unknown

        public var isFinal: Bool { self != .working }
    }

    public var notificationUUID: String
    public var claimant: String
    public var state: State
    public var detail: String?
    public var claimedAt: Date
    public var until: Date
    public var updatedAt: Date

    public init(notificationUUID: String, claimant: String, state: State, detail: String?, claimedAt: Date, until: Date, updatedAt: Date) {
        self.notificationUUID = notificationUUID
        self.claimant = claimant
        self.state = state
        self.detail = detail
        self.claimedAt = claimedAt
        self.until = until
        self.updatedAt = updatedAt
    }
}

public enum PolicyClaimResult: Sendable, Equatable {
    /// This claimant answers it; `takenOverFrom` names a holder whose time ran out (or who stopped).
    case claimed(PolicyClaim, takenOverFrom: String?)
    /// Another receiver is answering it now.
    case held(PolicyClaim)
    /// It was answered, skipped or failed already.
    case settled(PolicyClaim)

    /// The deciding rule for both stores: what a claim found as `existing` becomes.
    public static func decide(existing: PolicyClaim?, claimant: String, now: Date, replacing: String?) -> Decision {
        guard let existing else { return .insert }
        if existing.state.isFinal { return .report(.settled(existing)) }
        if existing.claimant == claimant || existing.until <= now || (replacing != nil && existing.claimant == replacing) {
            return .takeOver(from: existing.claimant == claimant ? nil : existing.claimant)
        }
        return .report(.held(existing))
    }

    public enum Decision: Equatable {
        case insert
        case takeOver(from: String?)
        case report(PolicyClaimResult)
    }
}
