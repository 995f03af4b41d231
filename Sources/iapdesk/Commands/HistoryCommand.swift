import AppStoreServerAPI
import ArgumentParser
import DeskCore
import Foundation

struct HistoryCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "history", abstract: "List a customer's transactions (Get Transaction History v2), with every filter.")

    @Argument(help: "Any transaction ID, original transaction ID or app transaction ID of the customer.") var id: String?
    @OptionGroup(title: "Many customers") var bulk: BulkOptions
    @Option(name: .long, help: "Only purchases at or after this date (2026-11-01, 7d, ...).") var start: String?
    @Option(name: .long, help: "Only purchases before this date.") var end: String?
    @Option(name: .long, help: "Only this product (repeatable).") var productId: [String] = []
    @Option(name: .long, help: "Only this type: auto-renewable, non-renewable, consumable, non-consumable (repeatable).") var productType: [String] = []
    @Option(name: .long, help: "Only this subscription group (repeatable).") var group: [String] = []
    @Option(name: .long, help: "purchased or family-shared.") var ownership: String?
    @Flag(name: .long, help: "Only revoked (refunded) transactions.") var revoked = false
    @Flag(name: .long, help: "Only transactions that are not revoked.") var notRevoked = false
    @Option(name: .long, help: "ascending (oldest change first, the default) or descending.") var sort: String = "ascending"
    @Option(name: .long, help: "Stop after this many transactions.") var limit: Int?
    @OptionGroup var rawOption: RawOption
    @OptionGroup var global: GlobalOptions

    func validate() throws {
        try bulk.validate(id: id) { try IDRules.transactionId($0, "ID") }
        if revoked && notRevoked { throw ValidationError("--revoked and --not-revoked exclude each other.") }
        if let limit, limit < 1 { throw ValidationError("--limit must be at least 1.") }
    }

    func query() throws -> TransactionHistoryQuery {
        var query = TransactionHistoryQuery()
        query.startDate = try start.map { try DateArgument.require($0, "--start") }
        query.endDate = try end.map { try DateArgument.require($0, "--end") }
        query.productIds = productId
        query.productTypes = try productType.map { text in
            let key = text.uppercased().replacingOccurrences(of: "-", with: "_")
            let value = HistoryProductType(key)
            guard value.isKnown else {
                throw CLIError("--product-type \(text) is not a product type.", hint: "Use auto-renewable, non-renewable, consumable or non-consumable.", status: .usage)
            }
            return value
        }
        switch sort.lowercased() {
        case "ascending", "asc": query.sort = .ascending
        case "descending", "desc": query.sort = .descending
        default: throw CLIError("--sort \(sort) is not ascending or descending.", status: .usage)
        }
        query.subscriptionGroupIdentifiers = group
        if let ownership {
            switch ownership.lowercased().replacingOccurrences(of: "_", with: "-") {
            case "purchased": query.inAppOwnershipType = .purchased
            case "family-shared", "family": query.inAppOwnershipType = .familyShared
            default: throw CLIError("--ownership \(ownership) is not purchased or family-shared.", status: .usage)
            }
        }
        if revoked { query.revoked = true }
        if notRevoked { query.revoked = false }
        return query
    }

    func run() async throws {
        if bulk.isBulk {
            // One query for every ID: a relative --start (7d) means the same dates for the whole run.
            var historyQuery = TransactionHistoryQuery()
            try await runReporting { historyQuery = try query() }
            let fixed = historyQuery
            return try await BulkRun(
                command: "history", endpoint: { _ in "Get Transaction History" }, options: bulk, global: global, columns: TransactionRecord.csvColumns,
                validate: { try IDRules.transactionId($0, "ID") }, read: { id, session, printer in try await show(id, session, printer, query: fixed) }
            ).run()
        }
        try await withSession(global) { session, printer in try await show(id ?? "", session, printer, query: try query()) }
    }

    /// One customer's history: printed as a table, or kept as the JSON document.
    func show(_ id: String, _ session: Session, _ printer: Printer, query historyQuery: TransactionHistoryQuery) async throws {
        let listing: PagedListing<VerifiedPayload<TransactionPayload>>
        if let limit {
            // The first N in order: page after page, stopping at the limit.
            let pages = session.client.transactionHistoryPages(anyTransactionId: id, query: historyQuery)
            listing = await PagedListing.fetch(pages, noun: "transactions", limit: limit) { page in
                await session.verification.transactions(page.signedTransactions)
            }
        } else {
            // The whole history: date windows fetched at once, within Apple's rate limit.
            listing = await PagedListing.fetchHistory(session.client, anyTransactionId: id, query: historyQuery) { signed in
                await session.verification.transactions(signed)
            }
        }
        try listing.requireFirstPage()
        let transactions = listing.items
        printer.emit(HistoryOutput(id: id, environment: session.environment, listing: listing))
        let table = Records.transactionTable(transactions, raw: rawOption.raw)
        let partial = listing.isPartial ? ", partial" : ""
        printer.text("\(transactions.count) transaction\(transactions.count == 1 ? "" : "s") in \(session.environmentLabel) (\(listing.pages) page\(listing.pages == 1 ? "" : "s")\(partial))\n")
        printer.text(table.render())
        try listing.requireComplete(noun: "transactions")
        try requireVerified(transactions.map(\.status))
    }
}

/// `history --json`.
struct HistoryOutput: Encodable {
    var id: String
    var environment: AppStoreEnvironment
    var count: Int
    var pages: Int
    var transactions: [TransactionRecord]
    var partial: Bool
    var stoppedBy: String?
    var error: String?

    init(id: String, environment: AppStoreEnvironment, listing: PagedListing<VerifiedPayload<TransactionPayload>>) {
        (self.id, self.environment, count, pages) = (id, environment, listing.items.count, listing.pages)
        transactions = listing.items.map(TransactionRecord.init)
        (partial, stoppedBy, error) = listing.jsonEnd
    }
}
