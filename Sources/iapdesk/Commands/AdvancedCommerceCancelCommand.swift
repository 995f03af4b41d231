import AppStoreServerAPI
import ArgumentParser
import DeskCore

struct AdvancedCommerceCancelCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "cancel", abstract: "Cancel a Subscription: auto-renew off; the customer keeps access until the period ends.")

    @Argument(help: "The subscription's original transaction ID or one of its transaction IDs.") var transactionId: String
    @OptionGroup var options: AdvancedCommerceOptions
    @OptionGroup var write: WriteOptions
    @OptionGroup var global: GlobalOptions

    func validate() throws { try IDRules.transactionId(transactionId, "TRANSACTION_ID") }

    func run() async throws {
        try await withSession(global) { session, printer in
            let storefront = options.storefront
            let action = AdvancedCommerceWrite(
                action: "cancel", transactionId: transactionId, requestId: try AdvancedCommerceArguments.requestId(options.requestId),
                body: { AdvancedCommerceSubscriptionCancelRequest(requestInfo: AdvancedCommerceRequestInfo(requestReferenceId: $0), storefront: storefront) },
                endpoint: { Endpoints.cancelAdvancedCommerceSubscription(transactionId: $0, request: $1) })
            try await action.run(session: session, printer: printer, yes: write.yes) { answer in
                let ends = answer.transaction?.payload?.expiresDate
                return "Cancelled: auto-renew is off for \(transactionId); access continues until \(DisplayFormat.date(ends))."
            }
        }
    }
}
