import ArgumentParser
import DeskCore
import DeskStore
import Foundation

/// `iapdesk refund-policy`: the consumption policy's per-customer overrides in the store, and a
/// policy file checked and said in words.
struct RefundPolicyCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "refund-policy",
        abstract: "Set, list and remove the consumption policy's per-customer refund preferences, or check a policy file.",
        discussion: """
            `listen --consumption-policy FILE` answers Apple's refund requests as the policy file says; an agent's override \
            for one customer (by original transaction ID or app account token) comes over the file. Overrides are kept in \
            the store the receivers use (a team's PostgreSQL store shares them, docs/team.md; the demo's with --demo), every \
            change with the agent and the time. See docs/refunds.md.
            """,
        subcommands: [RefundPolicySetCommand.self, RefundPolicyListCommand.self, RefundPolicyRemoveCommand.self, RefundPolicyCheckCommand.self])
}

/// The customer an override is for: one of the two IDs.
struct OverrideCustomer: ParsableArguments {
    @Option(name: .long, help: "The customer's original transaction ID.") var originalTransactionId: String?
    @Option(name: .long, help: "The customer's app account token (a UUID).") var appAccountToken: String?

    func validate() throws {
        switch (originalTransactionId, appAccountToken) {
        case (let id?, nil): try IDRules.transactionId(id, "--original-transaction-id")
        case (nil, let token?):
            guard UUID(uuidString: token) != nil else { throw ValidationError("--app-account-token \(token) is not a UUID, such as d2bcd010-7aa6-4831-9ebe-edf71fa3146b.") }
        default: throw ValidationError("Name the customer with --original-transaction-id or --app-account-token (one of them).")
        }
    }

    var kind: RefundOverride.Kind { originalTransactionId != nil ? .originalTransactionId : .appAccountToken }
    var account: String { originalTransactionId ?? appAccountToken?.lowercased() ?? "" }
}

/// Where the overrides are: the store the receivers write (the demo's with --demo, made first).
enum OverrideStore {
    static func with<T>(
        _ global: GlobalOptions, _ storeOptions: StoreOptions, _ body: (any RefundPolicyStore, String) async throws -> T
    ) async throws -> T {
        let location: StoreLocation
        var session: Session?
        if global.demo {
            let opened = try await Session.open(global)
            session = opened
            do {
                location = try await StoreAccess.resolve(storeOptions, session: opened).location
            } catch {
                await opened.close()
                throw error
            }
        } else {
            location = try storeOptions.location(profileStore: try ReceivingProfile.resolve(global).store)
        }
        defer { if let session { Task { await session.close() } } }
        let store = try await StoreAccess.open(location)
        do {
            guard let policyStore = store as? any RefundPolicyStore else { throw CLIError("The store \(location.description) cannot keep overrides.", status: .configuration) }
            let value = try await body(policyStore, location.description)
            try? await store.close()
            return value
        } catch let error as NotificationStoreError {
            try? await store.close()
            throw CLIError("Overrides: \(error.description)", status: .failure)
        } catch {
            try? await store.close()
            throw error
        }
    }

    /// Who changes an override: the profile's agent name, IAPDESK_AGENT, else the login name.
    static func agent(_ global: GlobalOptions) -> String {
        let profile = global.demo ? nil : try? ReceivingProfile.resolve(global)
        return profile?.agentName ?? (try? ProfileOverrides.fromEnvironment(ProcessInfo.processInfo.environment))?.agent ?? WriteContext.loginName
    }

    static func describe(_ kind: RefundOverride.Kind, _ account: String) -> String {
        (kind == .appAccountToken ? "app account token " : "original transaction ") + account
    }
}

struct RefundPolicySetCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "set", abstract: "Set the refund preference the policy states for one customer (over the policy file).")

    @OptionGroup var customer: OverrideCustomer
    @Option(name: .long, help: "decline, grant-full, grant-prorated, or none (state no preference).") var refundPreference: String
    @Option(name: .long, help: "Why, for the next agent (one line, at most 500 characters).") var note: String?
    @OptionGroup var storeOptions: StoreOptions
    @OptionGroup var global: GlobalOptions

    func validate() throws {
        guard RefundPolicy.Preference(rawValue: refundPreference) != nil else {
            throw ValidationError("--refund-preference \(refundPreference) is not decline, grant-full, grant-prorated or none.")
        }
        if let note { _ = try NoteCommand.checked(note) }
    }

    func run() async throws {
        try await runReporting {
            let printer = Printer(json: global.json)
            let change = RefundOverride(
                kind: customer.kind, account: customer.account, refundPreference: refundPreference, note: try note.map(NoteCommand.checked),
                agent: OverrideStore.agent(global), time: Date())
            let (previous, location) = try await OverrideStore.with(global, storeOptions) { store, location in
                let before = RefundOverride.current(try await store.refundOverrideChanges()).first { $0.kind == change.kind && $0.account == change.account }
                try await store.recordRefundOverride(change)
                return (before, location)
            }
            printer.emit(RefundOverrideOutput(change))
            let preference = RefundPolicy.Preference(rawValue: refundPreference)?.words ?? refundPreference
            var text = "Set by \(change.agent): for \(OverrideStore.describe(change.kind, change.account)) the policy states \(preference)"
            if let previous { text += " (was: \(RefundPolicy.Preference(rawValue: previous.refundPreference ?? "")?.words ?? "-"), set by \(previous.agent) \(DisplayFormat.date(previous.time)))" }
            printer.text(text + ". Kept in \(location); receivers apply it to the next refund request.")
        }
    }
}

struct RefundPolicyRemoveCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "remove", abstract: "Remove a customer's override: the policy file applies to them again.")

    @OptionGroup var customer: OverrideCustomer
    @OptionGroup var storeOptions: StoreOptions
    @OptionGroup var global: GlobalOptions

    func run() async throws {
        try await runReporting {
            let printer = Printer(json: global.json)
            let removal = RefundOverride(kind: customer.kind, account: customer.account, refundPreference: nil, note: nil, agent: OverrideStore.agent(global), time: Date())
            let removed = try await OverrideStore.with(global, storeOptions) { store, _ -> RefundOverride? in
                guard let current = RefundOverride.current(try await store.refundOverrideChanges()).first(where: { $0.kind == removal.kind && $0.account == removal.account }) else {
                    return nil
                }
                try await store.recordRefundOverride(removal)
                return current
            }
            guard let removed else {
                throw CLIError("No override for \(OverrideStore.describe(removal.kind, removal.account)): nothing was changed.", hint: "iapdesk refund-policy list shows them.", status: .notFound)
            }
            printer.emit(RefundOverrideOutput(removal))
            printer.text("Removed by \(removal.agent): the override for \(OverrideStore.describe(removal.kind, removal.account)) (\(RefundPolicy.Preference(rawValue: removed.refundPreference ?? "")?.words ?? "-"), set by \(removed.agent) \(DisplayFormat.date(removed.time))). The policy file applies to them again.")
        }
    }
}

/// One override change, as `refund-policy set|remove|list --json` print it.
struct RefundOverrideOutput: Encodable {
    var kind: String
    var account: String
    /// nil for a removal.
    var refundPreference: String?
    var note: String?
    var agent: String
    var time: String

    init(_ change: RefundOverride) {
        kind = change.kind.rawValue
        account = change.account
        refundPreference = change.refundPreference
        note = change.note
        agent = change.agent
        time = DisplayFormat.iso(change.time)
    }
}
