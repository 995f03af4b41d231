import AppStoreServerAPI
import ArgumentParser
import DeskCore
import Foundation

/// `iapdesk app-transaction ID`: Get App Transaction Info, the customer's download of the app.
struct AppTransactionCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "app-transaction",
        abstract: "Show the customer's app transaction (their download of the app): Get App Transaction Info.",
        discussion: """
            ID is any of the customer's transaction IDs, original transaction IDs or their app transaction ID. Prints \
            every field of the signed app transaction (app transaction ID, first download, original app version and \
            platform, app version, bundle ID, environment, device verification) with its verification; --json gives \
            the record with each date as ISO 8601 and milliseconds. A customer who never downloaded the app with this \
            Apple Account has none: Apple answers 4040019 and iapdesk exits 2.
            """)

    @Argument(help: "A transaction ID, original transaction ID or app transaction ID.") var id: String
    @Flag(name: .long, help: "Try Sandbox when Production does not know the ID.") var fallback = false
    @OptionGroup var rawOption: RawOption
    @OptionGroup var global: GlobalOptions

    func validate() throws {
        try IDRules.transactionId(id, "ID")
    }

    func run() async throws {
        try await withSession(global) { session, printer in
            if fallback { session.noteFallbackUnavailable() }
            let located: Located<AppTransactionInfoResponse>
            do {
                if fallback {
                    located = try await session.client.withEnvironmentFallback { client throws(APIError) in
                        try await client.getAppTransactionInfo(anyTransactionId: id)
                    }
                } else {
                    located = Located(value: try await session.client.getAppTransactionInfo(anyTransactionId: id), environment: session.environment, usedFallback: false)
                }
            } catch let error as APIError where error.serverCode == .appTransactionDoesNotExist {
                throw CLIError(
                    "No app transaction exists for the customer of \(id) in \(session.environmentLabel) (Apple: 4040019 AppTransactionDoesNotExistError).",
                    hint: "The customer never downloaded the app with this Apple Account (an app bought before app transactions existed, or a purchase made on another account). Their purchases: iapdesk lookup \(id)\(global.followUpFlags).",
                    status: .notFound)
            }
            guard let jws = located.value.signedAppTransactionInfo else {
                throw CLIError("The answer carried no signed app transaction.", status: .unavailable)
            }
            let verified = await session.verification.expecting(located.environment).appTransaction(jws)
            printer.emit(AppTransactionOutput(appTransaction: AppTransactionRecord(verified), query: id, foundIn: located.environment))
            printer.text("App transaction of \(id), found in \(located.environment.label)\(located.usedFallback ? " (after Production did not know the ID)" : "")\n")
            var fields = Records.appTransactionFields(verified)
            if rawOption.raw { fields.add("Signed app transaction", verified.signed) }
            printer.text(fields.render())
            if let appTransactionId = verified.payload?.appTransactionId, appTransactionId != id {
                printer.text("\nThe customer's purchases: iapdesk lookup \(appTransactionId)\(global.followUpFlags)\n")
            }
            try requireVerified([verified.status])
        }
    }
}

/// `app-transaction --json`: the app transaction's record, the ID asked about and the environment that answered.
struct AppTransactionOutput: Encodable {
    var appTransaction: AppTransactionRecord
    var query: String
    var foundIn: AppStoreEnvironment

    private enum CodingKeys: String, CodingKey { case query, foundIn }

    func encode(to encoder: any Encoder) throws {
        try appTransaction.encode(to: encoder)
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(query, forKey: .query)
        try container.encode(foundIn, forKey: .foundIn)
    }
}
