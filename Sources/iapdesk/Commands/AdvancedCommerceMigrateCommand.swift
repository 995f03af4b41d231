import AppStoreServerAPI
import ArgumentParser
import DeskCore

struct AdvancedCommerceMigrateCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "migrate", abstract: "Migrate a subscription bought with In-App Purchase to one the app manages with the Advanced Commerce API.",
        discussion: """
            Each --item (and --renewal-item, when the items renewing differ) is "SKU|Display name|Description". \
            Apple allows 30 characters for a display name, 45 for a description, 128 for a SKU.
            """)

    @Argument(help: "The subscription's original transaction ID or one of its transaction IDs.") var transactionId: String
    @Option(name: .long, help: "The app's generic Advanced Commerce subscription product.") var targetProductId: String
    @Option(name: .long, help: "The tax code of the SKUs, such as C003-00-1.") var taxCode: String
    @Option(name: .long, help: "The subscription's display name.") var displayName: String
    @Option(name: .long, help: "The subscription's description.") var description: String
    @Option(name: .long, help: "\"SKU|Display name|Description\" (repeat for several).") var item: [String] = []
    @Option(name: .long, help: "\"SKU|Display name|Description\" of what renews, when it differs from the items.") var renewalItem: [String] = []
    @OptionGroup var options: AdvancedCommerceOptions
    @OptionGroup var write: WriteOptions
    @OptionGroup var global: GlobalOptions

    func validate() throws {
        try IDRules.transactionId(transactionId, "TRANSACTION_ID")
        if item.isEmpty { throw ValidationError("Name at least one --item \"SKU|Display name|Description\".") }
    }

    func run() async throws {
        try await withSession(global) { session, printer in
            let items = try item.map { try Self.item($0, "--item") }
            let renewalItems = renewalItem.isEmpty ? nil : try renewalItem.map { try Self.item($0, "--renewal-item") }
            let descriptors = AdvancedCommerceSubscriptionMigrateDescriptors(description: description, displayName: displayName)
            let (storefront, target, taxCode) = (options.storefront, targetProductId, taxCode)
            let action = AdvancedCommerceWrite(
                action: "migrate", transactionId: transactionId, requestId: try AdvancedCommerceArguments.requestId(options.requestId),
                body: {
                    AdvancedCommerceSubscriptionMigrateRequest(
                        requestInfo: AdvancedCommerceRequestInfo(requestReferenceId: $0), descriptors: descriptors, items: items,
                        renewalItems: renewalItems, storefront: storefront, targetProductId: target, taxCode: taxCode)
                },
                endpoint: { Endpoints.migrateToAdvancedCommerce(transactionId: $0, request: $1) })
            try await action.run(session: session, printer: printer, yes: write.yes) { _ in
                "Migrated \(transactionId) to \(target); it renews as an Advanced Commerce subscription. Apple sends MIGRATION."
            }
        }
    }

    static func item(_ text: String, _ option: String) throws -> AdvancedCommerceSubscriptionMigrateItem {
        let parts = text.split(separator: "|", omittingEmptySubsequences: false).map(String.init)
        guard parts.count == 3 else { throw CLIError("\(option) \(text) is not \"SKU|Display name|Description\".", status: .usage) }
        return AdvancedCommerceSubscriptionMigrateItem(sku: parts[0], description: parts[2], displayName: parts[1])
    }
}
