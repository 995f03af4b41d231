import AppStoreServerAPI
import ArgumentParser
import DeskCore

struct AdvancedCommerceMetadataCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "change-metadata", abstract: "Change Subscription Metadata: display names, descriptions and SKUs; billing and service unchanged.",
        discussion: """
            --display-name and --description change the subscription's own; --item-sku names one of its items, \
            changed by --new-sku, --item-display-name and --item-description. Apple allows 30 characters for a \
            display name, 45 for a description, 128 for a SKU.
            """)

    @Argument(help: "The subscription's original transaction ID or one of its transaction IDs.") var transactionId: String
    @Option(name: .long, help: "immediately or next-bill-cycle.") var effective: String
    @Option(name: .long, help: "The subscription's new display name.") var displayName: String?
    @Option(name: .long, help: "The subscription's new description.") var description: String?
    @Option(name: .long, help: "The SKU of the item to change.") var itemSku: String?
    @Option(name: .long, help: "The item's new SKU.") var newSku: String?
    @Option(name: .long, help: "The item's new display name.") var itemDisplayName: String?
    @Option(name: .long, help: "The item's new description.") var itemDescription: String?
    @Option(name: .long, help: "A new tax code for the subscription.") var taxCode: String?
    @OptionGroup var options: AdvancedCommerceOptions
    @OptionGroup var write: WriteOptions
    @OptionGroup var global: GlobalOptions

    func validate() throws {
        try IDRules.transactionId(transactionId, "TRANSACTION_ID")
        if itemSku == nil, newSku != nil || itemDisplayName != nil || itemDescription != nil {
            throw ValidationError("--new-sku, --item-display-name and --item-description change an item: name it with --item-sku.")
        }
        if displayName == nil, description == nil, itemSku == nil, taxCode == nil {
            throw ValidationError("Nothing to change: give --display-name, --description, --item-sku with what changes, or --tax-code.")
        }
    }

    func run() async throws {
        try await withSession(global) { session, printer in
            let when = try AdvancedCommerceArguments.choice(effective, "--effective", AdvancedCommerceEffective.self)
            var descriptors: AdvancedCommerceSubscriptionChangeMetadataDescriptors?
            if displayName != nil || description != nil {
                descriptors = AdvancedCommerceSubscriptionChangeMetadataDescriptors(effective: when, description: description, displayName: displayName)
            }
            let items = itemSku.map {
                [AdvancedCommerceSubscriptionChangeMetadataItem(currentSku: $0, effective: when, description: itemDescription, displayName: itemDisplayName, sku: newSku)]
            }
            let (storefront, taxCode) = (options.storefront, taxCode)
            let action = AdvancedCommerceWrite(
                action: "change-metadata", transactionId: transactionId, requestId: try AdvancedCommerceArguments.requestId(options.requestId),
                body: {
                    AdvancedCommerceSubscriptionChangeMetadataRequest(
                        requestInfo: AdvancedCommerceRequestInfo(requestReferenceId: $0), descriptors: descriptors, items: items,
                        storefront: storefront, taxCode: taxCode)
                },
                endpoint: { Endpoints.changeAdvancedCommerceSubscriptionMetadata(transactionId: $0, request: $1) })
            try await action.run(session: session, printer: printer, yes: write.yes) { _ in
                "Metadata changed for \(transactionId), \(when.label.lowercased()); Apple sends METADATA_UPDATE."
            }
        }
    }
}
