import AppStoreServerAPI
import ArgumentParser
import DeskCore
import DeskStore
import Foundation

struct AuditListCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "list", abstract: "List the writes in the audit ledger, oldest first.")

    @Option(name: .long, help: "Only writes for this customer: the original transaction ID a write went to, or the order ID it was looked up by in the console.") var customer: String?
    @Option(name: .long, help: "Only writes made under this profile.") var profile: String?
    @Option(name: .long, help: "Only writes started at or after this date (2026-11-01, 7d, ...).") var since: String?
    @Flag(name: .long, help: "Only writes whose outcome is unknown.") var unresolved = false
    @Flag(name: .long, help: "One JSON document instead of a table.") var json = false
    @OptionGroup var ledgerOptions: LedgerOptions

    func run() async throws {
        try await runReporting {
            let ledger = try await ledgerOptions.open()
            let start = try since.map { try DateArgument.require($0, "--since") }
            let (entries, unreadable) = try await AuditLedgerAccess.reading(ledger) { try await $0.read() }
            let all = WriteRecord.fold(entries)
            var subjects: Set<String>?
            if let customer {
                let terms = try await terms(for: customer)
                subjects = terms.reduce(into: Set<String>()) { $0.formUnion(Self.subjects(matching: $1, in: all)) }
            }
            let writes = all.filter { record in
                if unresolved && record.isResolved { return false }
                if let profile, record.account?.profile != profile { return false }
                if let start, record.intent.time < start { return false }
                if let subjects, !subjects.contains(Self.target(record)) { return false }
                return true
            }
            let printer = Printer(json: json)
            printer.emit(AuditOutput(ledger: ledger.location, unreadableLines: unreadable, writes: writes.map(AuditOutput.Write.init)))
            if writes.isEmpty {
                let filtered = customer.map { " for \($0)" } ?? ""
                printer.text("No writes\(unresolved ? " with an unknown outcome" : "")\(filtered) in \(ledger.location) (\(all.count) write\(all.count == 1 ? "" : "s") in all).")
            }
            if !writes.isEmpty { printer.text(Self.render(writes, width: TerminalInfo.width)) }
            if unreadable > 0 {
                StandardStreams.error("note: \(unreadable) line\(unreadable == 1 ? "" : "s") of \(ledger.location) could not be read (cut short by a crash?); they are kept as they are.\n")
            }
        }
    }

    /// What a write is for: the last part of its path (the original transaction or transaction ID).
    /// "Production", or "Demo (Production)" for a write to the embedded demo server.
    static func environmentLabel(_ account: WriteAccount) -> String {
        let label = AppStoreEnvironment(account.environment).label
        return account.baseURL == "demo" ? "Demo (\(label))" : label
    }

    static func target(_ record: WriteRecord) -> String {
        String(record.intent.path.split(separator: "/").last ?? "")
    }

    /// What to look for in the ledger: the ID as the console reads it ("Order ID: MK5TTTVWJH" is the
    /// order), and for an app account token the original transactions the store's index saw with it.
    private func terms(for customer: String) async throws -> [String] {
        switch IDKind.classify(customer) {
        case .orderId(let order): return [order]
        case .transactionId(let id): return [id]
        case .invalid: return [customer.trimmingCharacters(in: .whitespaces)]
        case .appAccountToken(let token):
            let location = ledgerOptions.demo
                ? StoreLocation.file(path: DemoStore.path)
                : try StoreOptions.location(flag: ledgerOptions.storeOptions.store, profileStore: StoreOptions.configuredStore())
            let links = (try? await StoreAccess.with(location) { store in
                try await (store as? any AccountIndex)?.accountLinks(.appAccountToken, token) ?? []
            }) ?? []
            if links.isEmpty {
                StandardStreams.error("note: no purchase seen with app account token \(token) in \(location.description), so no write can be tied to it (iapdesk index --since 180d fills the index).\n")
            }
            return [token] + links.map(\.originalTransactionId)
        }
    }

    /// The IDs writes for `customer` were sent to: writes naming it (its order ID from a console
    /// lookup, or the ID itself) and every other write sent to the same IDs.
    static func subjects(matching customer: String, in records: [WriteRecord]) -> Set<String> {
        let term = customer.trimmingCharacters(in: .whitespaces)
        return Set(records.filter { record in
            ((record.intent.subject ?? "") + " " + record.intent.path).localizedCaseInsensitiveContains(term)
        }.map(target))
    }

    /// A table when it fits; otherwise one block per write, so nothing a user reads is cut.
    static func render(_ writes: [WriteRecord], width: Int) -> String {
        var table = TextTable()
        table.headers = ["STARTED", "WRITE", "FOR", "PROFILE", "ENVIRONMENT", "BY", "FROM", "STATE", "REQUEST ID"]
        table.keepWhole = [8]
        for record in writes {
            let intent = record.intent
            table.add([
                DisplayFormat.date(intent.time), intent.action, intent.subject ?? intent.path, intent.account?.profile ?? "?",
                intent.account.map(environmentLabel) ?? "?", intent.agent ?? "?",
                intent.source?.rawValue ?? "?", record.stateLabel, record.requestIdentifier,
            ])
        }
        let rendered = table.render(width: width)
        if rendered.split(separator: "\n").allSatisfy({ !$0.contains("…") }) { return rendered }
        return writes.map { record in
            let intent = record.intent
            let account = intent.account.map { "\($0.profile) · \(AppStoreEnvironment($0.environment).label) · \($0.baseURL)" } ?? "unknown account"
            return """
                \(record.requestIdentifier)  \(record.stateLabel)
                  \(intent.action) for \(intent.subject ?? intent.path)
                  \(account) · by \(intent.agent ?? "?") from \(intent.source?.rawValue ?? "?") · \(DisplayFormat.date(intent.time))
                """
        }.joined(separator: "\n\n")
    }
}

/// `audit --json`: where the ledger is, the lines it could not read, and each write with every event.
struct AuditOutput: Encodable {
    struct Account: Encodable {
        var profile: String
        var environment: String
        var baseURL: String
        var bundleId: String
        var keyId: String
    }

    struct Event: Encodable {
        var time: String
        var event: String
        var outcome: String?
        var detail: String?
        var agent: String?
    }

    struct Write: Encodable {
        var requestIdentifier: String
        var write: String
        /// The kind and what it did ("retention image delete", "advanced-commerce cancel").
        var action: String
        var method: String
        var path: String
        var body: String?
        var subject: String?
        var agent: String?
        var source: String?
        var account: Account?
        var started: String
        var resolved: Bool
        var state: String
        var events: [Event]

        init(_ record: WriteRecord) {
            let intent = record.intent
            (requestIdentifier, write, action, method, path) = (record.requestIdentifier, intent.write, intent.action, intent.method, intent.path)
            (body, subject, agent, source) = (intent.body, intent.subject, intent.agent, intent.source?.rawValue)
            account = intent.account.map { Account(profile: $0.profile, environment: $0.environment, baseURL: $0.baseURL, bundleId: $0.bundleId, keyId: $0.keyId) }
            (started, resolved, state) = (DisplayFormat.iso(intent.time), record.isResolved, record.stateLabel)
            events = record.lines.map { line in
                Event(time: DisplayFormat.iso(line.time), event: line.event.rawValue, outcome: line.outcome?.rawValue, detail: line.detail, agent: line.agent)
            }
        }
    }

    var ledger: String
    var unreadableLines: Int
    var writes: [Write]
}
