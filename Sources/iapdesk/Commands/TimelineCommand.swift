import AppStoreServerAPI
import ArgumentParser
import DeskCore
import Foundation

struct TimelineCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "timeline",
        abstract: "Everything that happened to a customer in time order: purchases, renewals, billing, refunds, notifications, writes, notes.",
        discussion: """
            Looks the customer up as the console does and merges Apple's transaction history, the customer's notifications \
            of the last 30 days with every send attempt, the notifications the store received, every write iapdesk made for \
            them (the audit ledger) and the agents' notes. Each row says where it came from. The heading totals what the \
            customer spent per currency, net of refunds.
            """)

    @Argument(help: "The order ID from the receipt, or a transaction ID.") var id: String
    @Option(name: .long, parsing: .upToNextOption, help: ArgumentHelp(
        "Only these kinds (repeatable): \(TimelineEvent.Kind.allCases.map(\.rawValue).joined(separator: ", ")).", valueName: "kind"))
    var kind: [String] = []
    @OptionGroup var global: GlobalOptions

    func validate() throws {
        if case .invalid(let reason) = IDKind.classify(id) { throw ValidationError("\(id): \(reason)") }
        for name in kind where TimelineEvent.Kind(rawValue: name) == nil {
            throw ValidationError("--kind \(name) is not a kind: use \(TimelineEvent.Kind.allCases.map(\.rawValue).joined(separator: ", ")).")
        }
    }

    func run() async throws {
        try await withSession(global) { session, printer in
            let records = try await CustomerRecords.load(id, session: session, what: "timeline")
            let kinds = Set(kind.compactMap(TimelineEvent.Kind.init(rawValue:)))
            let events = records.timeline.filter { kinds.isEmpty || kinds.contains($0.kind) }
            let spent = Timeline.spent(records.customer)
            printer.emit(TimelineOutput(
                query: id, originalTransactionId: records.customer.anchorId,
                spent: spent.map { TimelineOutput.Spent(currency: $0.currency, paid: $0.paid, refunded: $0.refunded, net: $0.paid - $0.refunded) },
                events: events.map(TimelineOutput.Event.init)))
            var table = TextTable("WHEN", "WHAT", "EVENT", "FROM")
            for event in events {
                table.add(DisplayFormat.date(event.time), event.kind.rawValue, event.detail.map { "\(event.summary) · \($0)" } ?? event.summary, event.source.rawValue)
            }
            printer.text("Customer \(records.customer.anchorId ?? id): \(DisplayFormat.count(events.count, "event")); spent \(Timeline.spentLine(records.customer)).")
            printer.text(table.render())
        }
    }
}

/// `timeline --json`: what the customer spent per currency, and every event in time order.
struct TimelineOutput: Encodable {
    struct Spent: Encodable {
        var currency: String
        var paid: Int64
        var refunded: Int64
        var net: Int64
    }

    struct Event: Encodable {
        var kind: String
        var summary: String
        var source: String
        var transactionId: String?
        var detail: String?
        var time: String?
        var timeMs: Int64?

        init(_ event: TimelineEvent) {
            (kind, summary, source) = (event.kind.rawValue, event.summary, event.source.rawValue)
            (transactionId, detail) = (event.transactionId, event.detail)
            (time, timeMs) = DatePair.of(event.time)
        }
    }

    var query: String
    var originalTransactionId: String?
    var spent: [Spent]
    var events: [Event]
}
