import AppStoreServerAPI
import ArgumentParser
import DeskCore
import DeskStore
import Foundation

struct CaseCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "case",
        abstract: "Write a customer's case file for a ticket: IDs, verdicts, subscriptions in words, purchases, refunds, notifications, writes.",
        discussion: """
            Looks the customer up as the console does (an order ID, or any transaction ID) and writes one document: \
            the IDs, the environment and whether every signature verified; each subscription and its renewal info in words; \
            every purchase; refunds; the customer's notifications of the last 30 days with every send attempt; and every \
            write iapdesk made for them (the audit ledger). IDs are never shortened; no key or token is in it.
            """)

    @Argument(help: "The order ID from the receipt, or a transaction ID.") var id: String
    @Option(name: .long, help: "md or json.") var format: String = "md"
    @Option(name: .long, help: ArgumentHelp("Write it to this file instead of standard output.", valueName: "file")) var output: String?
    @OptionGroup var global: GlobalOptions

    func validate() throws {
        guard ["md", "json"].contains(format) else { throw ValidationError("--format is md or json.") }
        if case .invalid(let reason) = IDKind.classify(id) { throw ValidationError("\(id): \(reason)") }
    }

    func run() async throws {
        try await withSession(global) { session, printer in
            let records = try await CustomerRecords.load(id, session: session, what: "case file")
            let file = CaseFile(
                customer: records.customer, environment: session.environment, writes: records.writes, notes: records.notes,
                received: records.received, generatedAt: Date())
            let document = format == "json" ? file.json() : Data(file.markdown().utf8)
            if let output {
                do {
                    try document.write(to: URL(fileURLWithPath: output), options: .atomic)
                } catch {
                    throw CLIError("The case file cannot be written to \(output): \(error.localizedDescription)", status: .failure)
                }
                StandardStreams.error("Case file for \(id) written to \(output).\n")
            } else {
                StandardStreams.output(document)
            }
        }
    }
}
