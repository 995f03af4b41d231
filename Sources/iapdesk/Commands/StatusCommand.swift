import AppStoreServerAPI
import ArgumentParser
import DeskCore
import Foundation

struct StatusCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "status", abstract: "Show a customer's subscriptions: status and renewal info per group.")

    @Argument(help: "Any transaction ID, original transaction ID or app transaction ID of the customer.") var id: String?
    @OptionGroup(title: "Many customers") var bulk: BulkOptions
    @Option(name: .long, help: "Only these statuses: 1 active, 2 expired, 3 billing retry, 4 grace period, 5 revoked (repeatable).")
    var status: [Int] = []
    @OptionGroup var rawOption: RawOption
    @OptionGroup var global: GlobalOptions

    func validate() throws {
        try bulk.validate(id: id) { try IDRules.transactionId($0, "ID") }
        if let bad = status.first(where: { !(1...5).contains($0) }) {
            throw ValidationError("--status \(bad) is not a status: use 1 to 5.")
        }
    }

    func run() async throws {
        if bulk.isBulk {
            return try await BulkRun(
                command: "status", endpoint: { _ in "Get All Subscription Statuses" }, options: bulk, global: global, columns: StatusOutput.csvColumns,
                validate: { try IDRules.transactionId($0, "ID") }, read: show
            ).run()
        }
        try await withSession(global) { session, printer in try await show(id ?? "", session, printer) }
    }

    /// One customer's statuses: printed as a table, or kept as the JSON document.
    @Sendable func show(_ id: String, _ session: Session, _ printer: Printer) async throws {
        let response = try await session.client.getAllSubscriptionStatuses(
            anyTransactionId: id, status: status.map(SubscriptionStatus.init))
        var groups: [StatusOutput.Group] = []
        var statuses: [VerificationStatus] = []
        var table = TextTable("GROUP", "PRODUCT", "STATUS", "EXPIRES / RENEWS", "AUTO-RENEW", "NEXT PRODUCT", "DETAIL", "SIGNED")
        for group in response.data ?? [] {
            var items: [StatusOutput.Item] = []
            for item in group.lastTransactions ?? [] {
                let transaction = await item.signedTransactionInfo.asyncMap { await session.verification.transaction($0) }
                let renewal = await item.signedRenewalInfo.asyncMap { await session.verification.renewalInfo($0) }
                statuses += [transaction?.status, renewal?.status].compactMap { $0 }
                items.append(StatusOutput.Item(
                    originalTransactionId: item.originalTransactionId, status: item.status, statusLabel: item.status?.label,
                    transaction: transaction.map(TransactionRecord.init), renewalInfo: renewal.map(RenewalRecord.init)))
                let t = transaction?.payload
                let r = renewal?.payload
                table.add(
                    group.subscriptionGroupIdentifier ?? "-", t?.productId ?? "-", item.status?.label ?? "-",
                    DisplayFormat.date(r?.renewalDate ?? t?.expiresDate), r?.autoRenewStatus?.label ?? "-",
                    r?.autoRenewProductId == t?.productId ? "same" : (r?.autoRenewProductId ?? "-"), Self.detail(t, r),
                    [transaction?.status, renewal?.status].compactMap { $0 }.map(Records.mark).joined(separator: "/"))
                if rawOption.raw {
                    table.note(Records.rawLine("signedTransactionInfo", item.signedTransactionInfo))
                    table.note(Records.rawLine("signedRenewalInfo", item.signedRenewalInfo))
                }
            }
            groups.append(StatusOutput.Group(subscriptionGroupIdentifier: group.subscriptionGroupIdentifier, lastTransactions: items))
        }
        printer.emit(StatusOutput(id: id, environment: response.environment, bundleId: response.bundleId, groups: groups))
        printer.text(groups.isEmpty ? "No subscriptions for \(id) in \(session.environmentLabel)." : table.render())
        try requireVerified(statuses)
    }

    /// The one thing a support agent most needs to know about this subscription's renewal.
    static func detail(_ t: TransactionPayload?, _ r: RenewalInfoPayload?) -> String {
        var parts: [String] = []
        if let intent = r?.expirationIntent { parts.append("expired: \(intent.label.lowercased())") }
        if r?.isInBillingRetryPeriod == true { parts.append("billing retry") }
        if let grace = r?.gracePeriodExpiresDate { parts.append("grace until \(DisplayFormat.day(grace))") }
        if r?.priceIncreaseStatus == .customerHasNotResponded { parts.append("price increase not yet accepted") }
        if let offer = r?.offerType { parts.append("next renewal: \(offer.label.lowercased())") }
        if let revoked = t?.revocationType { parts.append(revoked.label.lowercased()) }
        return parts.isEmpty ? "-" : parts.joined(separator: "; ")
    }
}

/// `status --json`: each subscription group with its last transactions and renewal info.
struct StatusOutput: Encodable {
    struct Item: Encodable {
        var originalTransactionId: String?
        var status: SubscriptionStatus?
        var statusLabel: String?
        var transaction: TransactionRecord?
        var renewalInfo: RenewalRecord?
    }

    struct Group: Encodable {
        var subscriptionGroupIdentifier: String?
        var lastTransactions: [Item]
    }

    var id: String
    var environment: AppStoreEnvironment?
    var bundleId: String?
    var groups: [Group]
}
