import AppStoreServerAPI
import Foundation

/// What a listing command fetched page by page, and how the fetch ended. Listings show progress on
/// standard error, stop on Ctrl-C, and keep what arrived before an interruption or a failure, so
/// it can be printed with a line saying the list is partial.
struct PagedListing<Item: Sendable>: Sendable {
    var items: [Item] = []
    var pages = 0
    var end: PagingEnd = .complete

    /// Fetches until the last page, `limit` items, Ctrl-C or a failure; `items` turns a page into
    /// what the command lists.
    static func fetch<Page: Sendable>(
        _ sequence: PageSequence<Page>, noun: String, limit: Int? = nil, items: @escaping @Sendable (Page) async -> [Item]
    ) async -> PagedListing<Item> {
        // A bulk run shows its own progress and owns Ctrl-C: one ID's listing takes neither.
        if BulkRun.isActive { return await collect(sequence, limit: limit, progress: nil, items: items) }
        let progress = ProgressLine(noun: noun)
        progress.startTicking()
        let task = Task { await collect(sequence, limit: limit, progress: progress, items: items) }
        let listing = await Interruption.cancelling(task)
        progress.finish()
        return listing
    }

    /// A customer's whole history as concurrent date windows (`transactionHistoryConcurrently`),
    /// merged in the query's order; Ctrl-C keeps what arrived, in that order.
    static func fetchHistory(
        _ client: AppStoreServerClient, anyTransactionId: String, query: TransactionHistoryQuery,
        items: @escaping @Sendable ([String]) async -> [Item]
    ) async -> PagedListing<Item> {
        let bulk = BulkRun.isActive
        let progress = bulk ? nil : ProgressLine(noun: "transactions")
        progress?.startTicking()
        let fetch: @Sendable () async -> PagedListing<Item> = {
            let history = await client.transactionHistoryConcurrently(anyTransactionId: anyTransactionId, query: query) { update in
                progress?.update(pages: update.pages, records: update.received)
            }
            var listing = PagedListing()
            listing.items = await items(history.signedTransactions)
            listing.pages = history.pages
            listing.end = history.end
            return listing
        }
        // A bulk run shows its own progress and owns Ctrl-C: one ID's listing takes neither.
        if bulk { return await fetch() }
        let listing = await Interruption.cancelling(Task { await fetch() })
        progress?.finish()
        return listing
    }

    static func collect<Page: Sendable>(
        _ sequence: PageSequence<Page>, limit: Int?, progress: ProgressLine?, items: @Sendable (Page) async -> [Item]
    ) async -> PagedListing<Item> {
        var listing = PagedListing()
        listing.end = await sequence.walk { page in
            listing.pages += 1
            for item in await items(page) {
                listing.items.append(item)
                if let limit, listing.items.count >= limit { return false }
            }
            progress?.update(pages: listing.pages, records: listing.items.count)
            return true
        }
        return listing
    }

    var isPartial: Bool { !end.isComplete }

    /// Before printing: an end before the first page arrived is reported as the plain error.
    func requireFirstPage() throws {
        guard pages == 0 else { return }
        switch end {
        case .interrupted: throw CLIError("Interrupted before the first page arrived.", status: .interrupted)
        case .failed(let error): throw CLIError(error)
        case .complete, .stopped: return
        }
    }

    /// After printing what arrived: the line saying the list is partial, as the error the command
    /// exits with; nothing when the fetch ended normally.
    func requireComplete(noun: String) throws {
        let shown = "the \(items.count) \(noun) shown arrived in \(pages) page\(pages == 1 ? "" : "s")"
        switch end {
        case .complete, .stopped: return
        case .interrupted:
            throw CLIError("Partial list: interrupted; \(shown).", status: .interrupted)
        case .failed(let error):
            let cause = CLIError(error)
            throw CLIError("Partial list: \(shown), then: \(error.summary)", hint: cause.hint, status: cause.status)
        }
    }

    /// For --json: whether the list is whole, and if not, why (`stoppedBy`: interrupted, deadline
    /// or error, with the `error`); a listing's document carries these three members.
    var jsonEnd: (partial: Bool, stoppedBy: String?, error: String?) {
        switch end {
        case .interrupted: return (isPartial, "interrupted", nil)
        case .failed(let error):
            if case .deadlineExceeded = error { return (isPartial, "deadline", error.summary) }
            return (isPartial, "error", error.summary)
        case .complete, .stopped: return (isPartial, nil, nil)
        }
    }
}
