import AppStoreServerAPI
import ArgumentParser
import DeskCore

struct AdvancedCommerceRefundCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "refund", abstract: "Request Transaction Refund: refund items of a one-time charge or subscription transaction.",
        discussion: """
            Each --item is SKU=full, SKU=prorated or SKU=custom:AMOUNT (AMOUNT in the transaction's currency, such \
            as 1.50). Every item takes --reason; --revoke also takes the items away from the customer.
            """)

    @Argument(help: "The transaction to refund.") var transactionId: String
    @Option(name: .long, help: "SKU=full, SKU=prorated or SKU=custom:AMOUNT (repeat for several SKUs).") var item: [String] = []
    @Option(name: .long, help: "unintended-purchase, fulfillment-issue, unsatisfied-with-purchase, legal, other, modify-items-refund, simulate-refund-decline (Sandbox).")
    var reason: String
    @Flag(name: .long, help: "Take the refunded items away from the customer too.") var revoke = false
    @Flag(name: .long, help: "Sent as Apple's refundRiskingPreference: true (default false).") var refundRiskingPreference = false
    @Option(name: .long, help: "The transaction's currency, such as USD (optional).") var currency: String?
    @OptionGroup var options: AdvancedCommerceOptions
    @OptionGroup var write: WriteOptions
    @OptionGroup var global: GlobalOptions

    func validate() throws {
        try IDRules.transactionId(transactionId, "TRANSACTION_ID")
        if item.isEmpty { throw ValidationError("Name at least one --item SKU=full|prorated|custom:AMOUNT to refund.") }
    }

    func run() async throws {
        try await withSession(global) { session, printer in
            let refundReason = try AdvancedCommerceArguments.choice(reason, "--reason", AdvancedCommerceRefundReason.self)
            try AdvancedCommerceArguments.requireSandbox(for: refundReason, transactionId, session: session)
            let items = try item.map { try Self.item($0, reason: refundReason, revoke: revoke) }
            let (storefront, currency, risking) = (options.storefront, currency, refundRiskingPreference)
            let action = AdvancedCommerceWrite(
                action: "refund", transactionId: transactionId, requestId: try AdvancedCommerceArguments.requestId(options.requestId),
                body: {
                    AdvancedCommerceRequestRefundRequest(
                        requestInfo: AdvancedCommerceRequestInfo(requestReferenceId: $0), items: items, refundRiskingPreference: risking,
                        currency: currency, storefront: storefront)
                },
                endpoint: { Endpoints.requestAdvancedCommerceRefund(transactionId: $0, request: $1) })
            try await action.run(session: session, printer: printer, yes: write.yes) { _ in
                "Refund requested for \(items.map(\.sku).joined(separator: ", ")) of \(transactionId); Apple sends REFUND (or REFUND_DECLINED) when it decides."
            }
        }
    }

    /// "BOOK_1=custom:1.50" as an item of the request.
    static func item(_ text: String, reason: AdvancedCommerceRefundReason, revoke: Bool) throws -> AdvancedCommerceRequestRefundItem {
        guard let equals = text.lastIndex(of: "="), equals != text.startIndex else {
            throw CLIError("--item \(text) is not SKU=full, SKU=prorated or SKU=custom:AMOUNT.", status: .usage)
        }
        let sku = String(text[..<equals])
        let spec = text[text.index(after: equals)...].split(separator: ":", maxSplits: 1).map(String.init)
        let type = try AdvancedCommerceArguments.choice(spec.first ?? "", "--item \(sku)=", AdvancedCommerceRefundType.self)
        var amount: Int64?
        if spec.count == 2 { amount = try AdvancedCommerceArguments.milliunits(spec[1], after: "--item \(sku)=custom:") }
        return AdvancedCommerceRequestRefundItem(sku: sku, refundReason: reason, refundType: type, revoke: revoke, refundAmount: amount)
    }
}
