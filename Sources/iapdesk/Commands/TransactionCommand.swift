import AppStoreServerAPI
import ArgumentParser
import DeskCore
import Foundation

struct TransactionCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "transaction", abstract: "Show one transaction with every field and its verification.")

    @Argument(help: "A transaction ID or original transaction ID.") var id: String?
    @OptionGroup(title: "Many transactions") var bulk: BulkOptions
    @Flag(name: .long, help: "Try Sandbox when Production does not know the ID.") var fallback = false
    @OptionGroup var rawOption: RawOption
    @OptionGroup var global: GlobalOptions

    func validate() throws {
        try bulk.validate(id: id) { try IDRules.transactionId($0, "ID") }
    }

    func run() async throws {
        if bulk.isBulk {
            return try await BulkRun(
                command: "transaction", endpoint: { _ in "Get Transaction Info" }, options: bulk, global: global, columns: TransactionRecord.csvColumns,
                validate: { try IDRules.transactionId($0, "ID") }, read: show, sessionOpened: noteFallback
            ).run()
        }
        try await withSession(global) { session, printer in
            noteFallback(session)
            try await show(id ?? "", session, printer)
        }
    }

    /// Said once per run, not once per ID of a bulk run.
    @Sendable func noteFallback(_ session: Session) {
        if fallback { session.noteFallbackUnavailable() }
    }

    /// One transaction: printed as fields, or kept as the JSON document.
    @Sendable func show(_ id: String, _ session: Session, _ printer: Printer) async throws {
        let located: Located<TransactionInfoResponse>
        if fallback {
            located = try await session.client.withEnvironmentFallback { client throws(APIError) in
                try await client.getTransactionInfo(transactionId: id)
            }
        } else {
            located = Located(value: try await session.client.getTransactionInfo(transactionId: id), environment: session.environment, usedFallback: false)
        }
        guard let jws = located.value.signedTransactionInfo else {
            throw CLIError("The answer carried no signed transaction.", status: .unavailable)
        }
        // Sandbox data found by the fallback is checked as Sandbox data.
        let verified = await session.verification.expecting(located.environment).transaction(jws)
        printer.emit(TransactionOutput(transaction: TransactionRecord(verified), foundIn: located.environment))
        printer.text("Found in \(located.environment.label)\(located.usedFallback ? " (after Production did not know the ID)" : "")\n")
        var fields = Records.transactionFields(verified)
        if rawOption.raw { fields.add("Signed transaction", verified.signed) }
        printer.text(fields.render())
        try requireVerified([verified.status])
    }
}

/// `transaction --json`: the transaction's record, and the environment it was found in beside its fields.
struct TransactionOutput: Encodable {
    var transaction: TransactionRecord
    var foundIn: AppStoreEnvironment

    private enum CodingKeys: String, CodingKey { case foundIn }

    func encode(to encoder: any Encoder) throws {
        try transaction.encode(to: encoder)
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(foundIn, forKey: .foundIn)
    }
}
