import AppStoreServerAPI
import ArgumentParser
import DeskCore
import DeskStore
import Foundation

struct AuditResolveCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "resolve", abstract: "Close a write whose outcome is unknown, once you have checked what is true (adds a line; nothing is rewritten).")

    @Argument(help: "The write's request identifier (iapdesk audit --unresolved lists them).") var requestIdentifier: String
    @Option(name: .long, help: "Only the write of this profile, when several share the identifier.") var profile: String?
    @Option(name: .long, help: "What you found, kept in the ledger.") var note: String = "closed from the command line after checking"
    @OptionGroup var ledgerOptions: LedgerOptions

    func run() async throws {
        try await runReporting {
            let ledger = try await ledgerOptions.open()
            let matches = try await AuditLedgerAccess.reading(ledger) { try await $0.unresolved() }.filter {
                $0.requestIdentifier == requestIdentifier && (profile == nil || $0.account?.profile == profile)
            }
            guard let record = matches.first else {
                throw CLIError("No write with an unknown outcome has the request identifier \(requestIdentifier).",
                               hint: "iapdesk audit --unresolved lists them.", status: .notFound)
            }
            guard matches.count == 1 else {
                throw CLIError("\(matches.count) writes of different profiles share \(requestIdentifier).", hint: "Add --profile NAME.", status: .usage)
            }
            let line = record.resolution(note: note, source: .commandLine, agent: ledgerOptions.agent, now: Date())
            do {
                try await ledger.append(line)
            } catch {
                throw CLIError("The audit ledger could not be written: \(error)", status: .failure)
            }
            print("Resolved \(record.intent.write) \(requestIdentifier) (\(record.intent.subject ?? record.intent.path)): \(note).")
        }
    }
}
