import AppStoreServerAPI
import ArgumentParser
import DeskCore
import Foundation

struct AppAccountTokenCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "app-account-token", abstract: "Set the app account token (a UUID) on a purchase and its renewals.")

    @Argument(help: "The original transaction ID.") var originalTransactionId: String
    @Argument(help: "The app account token, a UUID.") var token: String
    @OptionGroup var write: WriteOptions
    @OptionGroup var global: GlobalOptions

    func validate() throws {
        try IDRules.transactionId(originalTransactionId, "ORIGINAL_TRANSACTION_ID")
        guard UUID(uuidString: token) != nil else { throw ValidationError("\(token) is not a UUID (such as 7389a31a-fb6d-4569-a2a6-db7d85d84813).") }
    }

    func run() async throws {
        try await withSession(global) { session, printer in
            let request = UpdateAppAccountTokenRequest(appAccountToken: token.lowercased())
            let write = CommandLineWrite(
                kind: .appAccountToken, subject: "original transaction \(originalTransactionId)",
                endpoint: { _ in Endpoints.setAppAccountToken(originalTransactionId: originalTransactionId, request: request) },
                givenIdentifier: nil, identifierIsSent: false)
            _ = try await write.run(session: session, yes: self.write.yes)
            printer.emit(AppAccountTokenOutput(originalTransactionId: originalTransactionId, appAccountToken: token.lowercased()))
            printer.text("Set app account token \(token.lowercased()) on \(originalTransactionId).")
        }
    }
}

/// `app-account-token --json`: the token set, in lowercase as Apple keeps it.
struct AppAccountTokenOutput: Encodable {
    var originalTransactionId: String
    var appAccountToken: String
}
