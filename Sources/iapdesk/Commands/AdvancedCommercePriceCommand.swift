import AppStoreServerAPI
import ArgumentParser
import DeskCore

struct AdvancedCommercePriceCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "change-price", abstract: "Change Subscription Price: new prices for SKUs from the next renewal.",
        discussion: """
            Each --price is SKU=AMOUNT in the subscription's currency (such as 12.99). Apple takes it for active \
            subscriptions not in billing retry, at least 24 hours before the renewal. A price increase must be \
            told to the customer first, and some need the customer's consent: Apple leaves that to the app.
            """)

    @Argument(help: "The subscription's original transaction ID or one of its transaction IDs.") var transactionId: String
    @Option(name: .long, help: "SKU=AMOUNT, the SKU's price from the next renewal (repeat for several SKUs).") var price: [String] = []
    @Option(name: .long, help: "The subscription's currency, such as USD (optional).") var currency: String?
    @OptionGroup var options: AdvancedCommerceOptions
    @OptionGroup var write: WriteOptions
    @OptionGroup var global: GlobalOptions

    func validate() throws {
        try IDRules.transactionId(transactionId, "TRANSACTION_ID")
        if price.isEmpty { throw ValidationError("Name at least one --price SKU=AMOUNT.") }
    }

    func run() async throws {
        try await withSession(global) { session, printer in
            let items = try price.map { text -> AdvancedCommerceSubscriptionPriceChangeItem in
                guard let equals = text.lastIndex(of: "="), equals != text.startIndex else {
                    throw CLIError("--price \(text) is not SKU=AMOUNT, such as BASE_PLAN=12.99.", status: .usage)
                }
                let sku = String(text[..<equals])
                return AdvancedCommerceSubscriptionPriceChangeItem(
                    sku: sku, price: try AdvancedCommerceArguments.milliunits(String(text[text.index(after: equals)...]), after: "--price \(sku)="))
            }
            let (storefront, currency) = (options.storefront, currency)
            let action = AdvancedCommerceWrite(
                action: "change-price", transactionId: transactionId, requestId: try AdvancedCommerceArguments.requestId(options.requestId),
                body: {
                    AdvancedCommerceSubscriptionPriceChangeRequest(
                        requestInfo: AdvancedCommerceRequestInfo(requestReferenceId: $0), items: items, currency: currency, storefront: storefront)
                },
                endpoint: { Endpoints.changeAdvancedCommerceSubscriptionPrice(transactionId: $0, request: $1) })
            try await action.run(session: session, printer: printer, yes: write.yes) { answer in
                let renewal = answer.renewal?.payload
                guard renewal?.autoRenewStatus != .off else {
                    return "Price changed for \(transactionId), but the subscription will not renew (auto-renew is off): the new prices apply only if auto-renew is turned on again."
                }
                return "Price changed for \(transactionId) from the renewal of \(DisplayFormat.date(renewal?.renewalDate)); Apple sends PRICE_CHANGE."
            }
        }
    }
}
