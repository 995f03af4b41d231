import AppStoreServerAPI
import DeskCore
import DeskStore
import Foundation

/// `listen --consumption-policy FILE`: the policy read and checked before the receiver starts, and
/// the responder that answers each refund request the receiver stores.
enum ReceivingPolicy {
    /// Reads the policy; its errors name the line and key.
    static func load(_ path: String) throws -> RefundPolicy {
        do {
            return try RefundPolicy.load(path: path)
        } catch {
            throw CLIError(
                "The consumption policy cannot be used: \(error.description).",
                hint: "iapdesk refund-policy check \(path) says what a policy does; docs/refunds.md has a complete one.", status: .configuration)
        }
    }

    /// The responder, writing to the audit ledger of the store the receiver writes (the demo's
    /// ledger with --demo); it has not started.
    static func responder(
        _ policy: RefundPolicy, session: Session, store: any NotificationStore, storeFlag: String?, log: PolicyLog
    ) async throws -> PolicyResponder {
        guard let policyStore = store as? any NotificationStore & RefundPolicyStore else {
            throw CLIError("This store cannot keep the consumption policy's claims.", status: .configuration)
        }
        if !policy.dryRun { try session.requireWritable() }
        let (ledger, notes) = try await AuditLedgerAccess.openWithNotes(
            profileStore: session.demo == nil ? session.profile.store : nil, demo: session.demo != nil, storeFlag: session.demo == nil ? storeFlag : nil)
        let context = WriteContext(
            ledger: ledger, profile: session.profile.name, bundleId: session.profile.bundleId ?? "-", keyId: session.profile.keyId ?? "-",
            isDemo: session.demo != nil, source: .policy, agent: policy.agent, stateFolder: ConfigLoader().stateDirectory, notes: notes)
        return PolicyResponder(policy: policy, store: policyStore, client: session.client, context: context) { log.write($0) }
    }

    /// What the receiver says when it starts answering.
    static func banner(_ policy: RefundPolicy, ledger: String, when: String = "on arrival") -> String {
        let mode = policy.dryRun ? "dry run: logs what it would send and sends nothing" : "answers each refund request \(when), once, recorded in \(ledger) as \(policy.agent)"
        let consent = policy.consent == nil ? " It names no source of consent, so it sends nothing (consent = \"app-terms\")." : ""
        return "Consumption policy \(policy.name): \(mode).\(consent)"
    }
}

/// The consumption policy's decisions, one line each on standard error (JSON lines with --json),
/// beside the arrivals on standard output.
struct PolicyLog: Sendable {
    let json: Bool

    func write(_ event: PolicyResponder.Event) {
        let line = json
            ? JSONLine.render(PolicyEventLine(event))
            : "\(DisplayFormat.date(event.time, seconds: true))  policy  \(event.line)"
        StandardStreams.error(line + "\n")
    }
}

/// `listen --json --consumption-policy`: one decision of the policy.
struct PolicyEventLine: Encodable {
    var policy: String
    var time: String
    var notificationUUID: String
    var transactionId: String?
    var detail: String

    init(_ event: PolicyResponder.Event) {
        policy = event.kind.rawValue
        time = DisplayFormat.iso(event.time)
        notificationUUID = event.notificationUUID
        transactionId = event.transactionId
        detail = event.detail
    }
}
