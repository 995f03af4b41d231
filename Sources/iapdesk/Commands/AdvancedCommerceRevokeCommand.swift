import AppStoreServerAPI
import ArgumentParser
import DeskCore

struct AdvancedCommerceRevokeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "revoke", abstract: "Revoke Subscription: end it and all its items now, with a full or prorated refund.")

    @Argument(help: "The subscription's original transaction ID or one of its transaction IDs.") var transactionId: String
    @Option(name: .long, help: "unintended-purchase, fulfillment-issue, unsatisfied-with-purchase, legal, other, modify-items-refund, simulate-refund-decline (Sandbox).")
    var reason: String
    @Option(name: .long, help: "full or prorated.") var refundType: String
    @Flag(name: .long, help: "Sent as Apple's refundRiskingPreference: true (default false).") var refundRiskingPreference = false
    @OptionGroup var options: AdvancedCommerceOptions
    @OptionGroup var write: WriteOptions
    @OptionGroup var global: GlobalOptions

    func validate() throws { try IDRules.transactionId(transactionId, "TRANSACTION_ID") }

    func run() async throws {
        try await withSession(global) { session, printer in
            let refundReason = try AdvancedCommerceArguments.choice(reason, "--reason", AdvancedCommerceRefundReason.self)
            let type = try AdvancedCommerceArguments.choice(refundType, "--refund-type", AdvancedCommerceRefundType.self)
            try AdvancedCommerceArguments.requireSandbox(for: refundReason, transactionId, session: session)
            guard type != .custom else {
                throw CLIError("--refund-type custom is not for a revoke: it carries no amount. Use full or prorated, or refund a transaction with a custom amount.", status: .usage)
            }
            let (storefront, risking) = (options.storefront, refundRiskingPreference)
            let action = AdvancedCommerceWrite(
                action: "revoke", transactionId: transactionId, requestId: try AdvancedCommerceArguments.requestId(options.requestId),
                body: {
                    AdvancedCommerceSubscriptionRevokeRequest(
                        requestInfo: AdvancedCommerceRequestInfo(requestReferenceId: $0), refundReason: refundReason,
                        refundRiskingPreference: risking, refundType: type, storefront: storefront)
                },
                endpoint: { Endpoints.revokeAdvancedCommerceSubscription(transactionId: $0, request: $1) })
            try await action.run(session: session, printer: printer, yes: write.yes) { answer in
                if let revoked = answer.transaction?.payload?.revocationDate {
                    return "Revoked: \(transactionId) ended \(DisplayFormat.date(revoked)) with a \(type.label.lowercased()) refund; Apple sends a REFUND notification."
                }
                return "Accepted: Apple took the revoke of \(transactionId); the transaction it answered is not revoked yet (a REFUND or REFUND_DECLINED notification says how it ends)."
            }
        }
    }
}
