import AppStoreServerAPI
import ArgumentParser
import DeskCore
import Foundation

struct RefundsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "refunds", abstract: "List a customer's refunded transactions.")

    @Argument(help: "Any transaction ID, original transaction ID or app transaction ID of the customer.") var id: String?
    @OptionGroup(title: "Many customers") var bulk: BulkOptions
    @OptionGroup var rawOption: RawOption
    @OptionGroup var global: GlobalOptions

    func validate() throws {
        try bulk.validate(id: id) { try IDRules.transactionId($0, "ID") }
    }

    func run() async throws {
        if bulk.isBulk {
            return try await BulkRun(
                command: "refunds", endpoint: { _ in "Get Refund History" }, options: bulk, global: global, columns: TransactionRecord.csvColumns,
                validate: { try IDRules.transactionId($0, "ID") }, read: show
            ).run()
        }
        try await withSession(global) { session, printer in try await show(id ?? "", session, printer) }
    }

    /// One customer's refunds: printed as a table, or kept as the JSON document.
    @Sendable func show(_ id: String, _ session: Session, _ printer: Printer) async throws {
        let listing = await PagedListing.fetch(session.client.refundHistoryPages(anyTransactionId: id), noun: "refunds") { page in
            await session.verification.transactions(page.signedTransactions)
        }
        try listing.requireFirstPage()
        let refunds = listing.items
        printer.emit(RefundsOutput(id: id, environment: session.environment, listing: listing))
        var table = TextTable("TRANSACTION", "PRODUCT", "PRICE", "REFUNDED", "REASON", "TYPE", "SHARE", "SIGNED")
        for refund in refunds {
            let t = refund.payload
            table.add(t?.transactionId ?? "?", t?.productId ?? "-", DisplayFormat.money(t?.price, t?.currency),
                      DisplayFormat.date(t?.revocationDate), t.flatMap(Records.revocationReasonLabel) ?? "-", t?.revocationType?.label ?? "-",
                      DisplayFormat.percentage(t?.revocationPercentage), Records.mark(refund.status))
            if rawOption.raw { table.note(Records.rawLine("signedTransactionInfo", refund.signed)) }
        }
        let partial = listing.isPartial ? " (partial)" : ""
        printer.text(refunds.isEmpty ? "No refunds for \(id) in \(session.environmentLabel)\(partial)." : "\(refunds.count) refund\(refunds.count == 1 ? "" : "s") in \(session.environmentLabel)\(partial)\n\n" + table.render())
        try listing.requireComplete(noun: "refunds")
        try requireVerified(refunds.map(\.status))
    }
}

/// `refunds --json`.
struct RefundsOutput: Encodable {
    var id: String
    var environment: AppStoreEnvironment
    var count: Int
    var refunds: [TransactionRecord]
    var partial: Bool
    var stoppedBy: String?
    var error: String?

    init(id: String, environment: AppStoreEnvironment, listing: PagedListing<VerifiedPayload<TransactionPayload>>) {
        (self.id, self.environment, count) = (id, environment, listing.items.count)
        refunds = listing.items.map(TransactionRecord.init)
        (partial, stoppedBy, error) = listing.jsonEnd
    }
}
