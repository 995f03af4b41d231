import ArgumentParser
import DeskCore
import DeskStore
import Foundation

/// `iapdesk refund-policy list`: the overrides in force, or every change with --history.
struct RefundPolicyListCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list", abstract: "List the per-customer overrides in force (every change, by whom and when, with --history).")

    @Flag(name: .long, help: "Every change, removals included, oldest first.") var history = false
    @OptionGroup var storeOptions: StoreOptions
    @OptionGroup var global: GlobalOptions

    func run() async throws {
        try await runReporting {
            let printer = Printer(json: global.json)
            let (changes, location) = try await OverrideStore.with(global, storeOptions) { store, location in (try await store.refundOverrideChanges(), location) }
            let shown = history ? changes : RefundOverride.current(changes)
            printer.emit(RefundOverridesOutput(store: location, overrides: shown.map(RefundOverrideOutput.init)))
            guard !shown.isEmpty else {
                printer.text(history ? "No override was ever set in \(location)." : "No overrides in \(location): the policy file applies to every customer.")
                return
            }
            var table = TextTable("CUSTOMER", "PREFERENCE", "BY", "WHEN", "NOTE")
            for change in shown {
                table.add([
                    OverrideStore.describe(change.kind, change.account), change.refundPreference ?? "(removed)", change.agent,
                    DisplayFormat.date(change.time), change.note ?? "-",
                ])
            }
            printer.text(table.render())
        }
    }
}

/// `refund-policy list --json`.
struct RefundOverridesOutput: Encodable {
    var store: String
    var overrides: [RefundOverrideOutput]
}

/// `iapdesk refund-policy check FILE`: what a policy says, in words, or which line and key are wrong.
struct RefundPolicyCheckCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "check", abstract: "Read a consumption policy file and say what it does, or which line and key are wrong (exit 3).")

    @Argument(help: "The policy file (TOML).") var file: String
    @Flag(name: .long, help: "JSON: the file, whether it can be used, and what it says or what is wrong.") var json = false

    func run() async throws {
        try await runReporting {
            let printer = Printer(json: json)
            do {
                let policy = try RefundPolicy.load(path: file)
                printer.emit(RefundPolicyCheckOutput(file: file, usable: true, says: policy.words, error: nil))
                printer.text("\(file): a consumption policy for `iapdesk listen --consumption-policy \(file)`.\n" + policy.words.map { "  " + $0 }.joined(separator: "\n"))
            } catch let error as RefundPolicyError {
                printer.emit(RefundPolicyCheckOutput(file: file, usable: false, says: [], error: error.description))
                throw CLIError("\(error.description).", hint: "docs/refunds.md has a complete policy and every key.", status: .configuration)
            }
        }
    }
}

/// `refund-policy check --json`.
struct RefundPolicyCheckOutput: Encodable {
    var file: String
    var usable: Bool
    var says: [String]
    var error: String?
}
