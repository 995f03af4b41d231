import AppStoreServerAPI
import ArgumentParser
import DeskCore
import Foundation

struct FinishTransactionCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "finish-transaction",
        abstract: "Tell the App Store the content of a purchase was delivered (Finish Transaction).",
        discussion: """
            The server-side equivalent of StoreKit's finish(): needed only when the app does not finish the transaction \
            itself. A write like the others: confirmed (or --yes), recorded in the audit ledger before and after it is \
            sent, refused by a read-only profile. Finishing a transaction twice changes nothing.
            """)

    @Argument(help: "The transaction ID.") var transactionId: String
    @OptionGroup var write: WriteOptions
    @OptionGroup var global: GlobalOptions

    func validate() throws {
        try IDRules.transactionId(transactionId, "TRANSACTION_ID")
    }

    func run() async throws {
        try await withSession(global) { session, printer in
            let write = CommandLineWrite(
                kind: .finishTransaction, subject: "transaction \(transactionId)",
                endpoint: { _ in Endpoints.finishTransaction(transactionId: transactionId) },
                givenIdentifier: nil, identifierIsSent: false)
            _ = try await write.run(session: session, yes: self.write.yes)
            printer.emit(FinishTransactionOutput(transactionId: transactionId, finished: true))
            printer.text("Finished transaction \(transactionId) in \(session.environmentLabel).")
        }
    }
}

/// `finish-transaction --json`: Apple took it.
struct FinishTransactionOutput: Encodable {
    var transactionId: String
    var finished: Bool
}
