import AppStoreServerAPI
import ArgumentParser
import Console
import Foundation

struct LookupCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "lookup", abstract: "Look up an order ID from a customer's App Store receipt (Production only).")

    @Argument(help: "The order ID, such as MK5TTTVWJH.") var orderId: String
    @OptionGroup var rawOption: RawOption
    @OptionGroup var global: GlobalOptions

    func validate() throws {
        try IDRules.orderId(orderId, "ORDER_ID")
        if let environment = global.environment, environment.lowercased() != "production" {
            throw ValidationError("Look Up Order ID is available in Production only: Apple offers no order lookup in \(environment). Drop --environment, or look up a transaction ID with iapdesk transaction.")
        }
    }

    func run() async throws {
        try await withSession(global) { session, printer in
            // "Order ID: MK5TTTVWJH" as the receipt writes it: the ID without its label.
            guard case .orderId(let order) = IDKind.classify(orderId) else { return }
            let response = try await session.client.lookUpOrderId(orderId: order)
            var transactions: [VerifiedPayload<TransactionPayload>] = []
            for jws in response.signedTransactions ?? [] { transactions.append(await session.verification.transaction(jws)) }
            printer.emit([
                "orderId": order, "status": response.status?.rawValue, "valid": response.status == .valid,
                "environment": session.environment.rawValue, "transactions": transactions.map(Records.transaction),
            ])
            guard response.status == .valid else {
                throw CLIError("Order \(order) is not valid: Apple knows no purchases under it.",
                               hint: "Check the order ID on the customer's receipt e-mail (10 letters and digits).", status: .notFound)
            }
            let table = Records.transactionTable(transactions, raw: rawOption.raw)
            printer.text("Order \(order) in \(session.environmentLabel): \(transactions.count) transaction\(transactions.count == 1 ? "" : "s")\n")
            printer.text(table.render())
            try requireVerified(transactions.map(\.status))
        }
    }
}

/// Exits with the verification status when anything shown did not verify.
func requireVerified(_ statuses: [VerificationStatus]) throws {
    for status in statuses {
        if case .failed(let failure) = status { throw CLIError(unverified: failure) }
    }
}
