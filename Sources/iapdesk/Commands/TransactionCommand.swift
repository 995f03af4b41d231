import AppStoreServerAPI
import ArgumentParser
import DeskCore
import Foundation

struct TransactionCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "transaction", abstract: "Show one transaction with every field and its verification.")

    @Argument(help: "A transaction ID or original transaction ID.") var id: String
    @Flag(name: .long, help: "Try Sandbox when Production does not know the ID.") var fallback = false
    @OptionGroup var rawOption: RawOption
    @OptionGroup var global: GlobalOptions

    func validate() throws {
        try IDRules.transactionId(id, "ID")
    }

    func run() async throws {
        try await withSession(global) { session, printer in
            let located: Located<TransactionInfoResponse>
            if fallback, session.client.fallbackEnvironment == nil {
                // Said, not silently skipped: only Apple's Production (and the demo) has a Sandbox beside it.
                StandardStreams.error("note: --fallback has no Sandbox to try with this profile (\(session.environmentLabel)\(session.profile.baseURL == nil ? "" : ", base_url set")); use a profile for Sandbox.\n")
            }
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
            var object = Records.transaction(verified)
            object["foundIn"] = located.environment.rawValue
            printer.emit(object)
            printer.text("Found in \(located.environment.label)\(located.usedFallback ? " (after Production did not know the ID)" : "")\n")
            var fields = Records.transactionFields(verified)
            if rawOption.raw { fields.add("Signed transaction", verified.signed) }
            printer.text(fields.render())
            try requireVerified([verified.status])
        }
    }
}
