import Foundation

/// One transaction of a customer's history, with what ordering and de-duplication need read from
/// its payload. Nothing here is verified: verify `signedTransaction` before trusting it.
public struct HistoryEntry: Sendable, Equatable {
    public let signedTransaction: String
    /// Empty when the payload could not be read (such an entry is never merged with another).
    public let transactionId: String
    public let purchaseDate: Date?
    /// When the record last changed as far as its payload dates it: the revocation date when it
    /// was revoked, otherwise the purchase date. Apple orders history by the date a record was last
    /// modified, which the payload does not carry; this is its closest visible stand-in.
    public let changeDate: Date?

    public init(signedTransaction: String) {
        self.signedTransaction = signedTransaction
        let dates = HistoryEntry.peek(signedTransaction)
        transactionId = dates?.transactionId ?? ""
        purchaseDate = dates?.purchaseDate
        changeDate = [dates?.purchaseDate, dates?.revocationDate].compactMap { $0 }.max()
    }

    private struct Fields: Decodable {
        var transactionId: String?
        var purchaseDate: Date?
        var revocationDate: Date?
    }

    private static func peek(_ jws: String) -> Fields? {
        let utf8 = jws.utf8
        guard let first = utf8.firstIndex(of: UInt8(ascii: ".")) else { return nil }
        let rest = utf8.index(after: first)
        guard let second = utf8[rest...].firstIndex(of: UInt8(ascii: ".")),
              let data = Base64URL.decode(Substring(jws[rest..<second]))
        else { return nil }
        return try? AppStoreJSON.decode(Fields.self, from: data)
    }
}

/// What arrived with one page of a windowed history fetch.
public struct HistoryProgress: Sendable {
    /// Transactions not reported before (in the server's order within their page).
    public let arrived: [HistoryEntry]
    /// Distinct transactions received so far.
    public let received: Int
    /// Pages fetched so far, the first look included.
    public let pages: Int
    /// Date windows fetched completely, and planned (0 until the first look has planned them).
    public let windowsDone: Int
    public let windows: Int
}

/// A customer's transaction history fetched as concurrent date windows and merged.
public struct WindowedHistory: Sendable {
    /// Ordered as the query asked and de-duplicated by transaction ID; when `end` is not complete,
    /// what arrived (possibly with gaps), in the same order.
    public var entries: [HistoryEntry]
    public var end: PagingEnd
    /// Requests answered: the first look's pages and every window's pages.
    public var pages: Int
    /// Date windows the history was split into (0 when the first page held everything).
    public var windows: Int
    /// From the first page.
    public var environment: AppStoreEnvironment?
    public var bundleId: String?
    public var appAppleId: Int64?

    public var signedTransactions: [String] { entries.map(\.signedTransaction) }

    /// Orders entries as Apple orders a history: by the date each last changed (as far as its payload
    /// dates it), then by transaction ID; reversed for descending. For showing a partial list.
    public static func ordered(_ entries: [HistoryEntry], sort: HistorySortOrder?) -> [HistoryEntry] {
        let ascending = entries.sorted(by: precedes)
        return sort == .descending ? ascending.reversed() : ascending
    }

    static func precedes(_ lhs: HistoryEntry, _ rhs: HistoryEntry) -> Bool {
        let left = lhs.changeDate ?? .distantPast
        let right = rhs.changeDate ?? .distantPast
        return left == right ? lhs.transactionId < rhs.transactionId : left < right
    }
}

/// How a windowed fetch splits a history.
public struct HistoryWindowing: Sendable, Equatable {
    /// Windows fetched at once at most (each pages on by itself when it holds more than a page).
    public var maxWindows: Int
    /// Transactions aimed at per window: under Apple's page of 20, so most windows take one request.
    public var targetPerWindow: Int

    public init(maxWindows: Int = 32, targetPerWindow: Int = 14) {
        self.maxWindows = max(2, maxWindows)
        self.targetPerWindow = max(1, targetPerWindow)
    }
}

extension AppStoreServerClient {
    /// A customer's whole transaction history (Get Transaction History v2) with the query's filters,
    /// fetched as disjoint purchase-date windows at once instead of one page after another.
    ///
    /// Apple chains a history's pages by revision, so one query costs one round trip per 20
    /// transactions; its `startDate`/`endDate` filters are not chained, so disjoint windows can be
    /// fetched side by side. The first round trip asks for the first page oldest-first and
    /// newest-first: a history of one page ends there. Otherwise the dates on those pages give the
    /// span and density of the history, which is cut into windows of about
    /// `windowing.targetPerWindow` transactions inside the query's own dates; every window is
    /// fetched at once and pages on by itself. The windows are merged in the order the query asks
    /// (Apple's: by the date each record last changed, then transaction ID) and de-duplicated by
    /// transaction ID.
    ///
    /// Every request goes through the client's `rateLimiter` (one with Apple's limits for this call
    /// alone when the client has none), so Apple's per-endpoint rate is never exceeded and a 429
    /// pauses every window until its Retry-After; the retry policy retries it. `Deadline.current`,
    /// `callTimeout` and cancellation apply as to any call.
    ///
    /// `onProgress` is called on the calling task after each page with what it added, so a screen
    /// can show what has arrived while the rest loads. The result never throws: like
    /// `PageSequence.walk`, it says how the fetch ended and keeps whatever arrived.
    public func transactionHistoryConcurrently(
        anyTransactionId: String, query: TransactionHistoryQuery = .init(), windowing: HistoryWindowing = .init(),
        onProgress: (HistoryProgress) -> Void = { _ in }
    ) async -> WindowedHistory {
        let client = rateLimiter == nil ? limited(by: RequestRateLimiter()) : self
        var fetch = WindowedFetch(anyTransactionId: anyTransactionId, query: query, windowing: windowing, client: client)
        return await fetch.run(onProgress: onProgress)
    }
}

/// The state of one windowed fetch, driven from the calling task; requests run as child tasks.
struct WindowedFetch {
    let anyTransactionId: String
    let query: TransactionHistoryQuery
    let windowing: HistoryWindowing
    let client: AppStoreServerClient

    enum Source: Sendable, Hashable {
        case firstAscending, firstDescending
        case window(Int)
    }

    struct Answer: Sendable {
        let source: Source
        let result: Result<HistoryResponse, APIError>
    }

    var windowQueries: [TransactionHistoryQuery] = []
    var lists: [Source: [HistoryEntry]] = [:]
    var windowsDone = 0
    var pages = 0
    var reported: Set<String> = []
    var firstPage: HistoryResponse?

    init(anyTransactionId: String, query: TransactionHistoryQuery, windowing: HistoryWindowing, client: AppStoreServerClient) {
        self.anyTransactionId = anyTransactionId
        self.query = query
        self.windowing = windowing
        self.client = client
    }

    mutating func run(onProgress: (HistoryProgress) -> Void) async -> WindowedHistory {
        var ascending = query
        ascending.sort = .ascending
        var descending = query
        descending.sort = .descending
        var end: PagingEnd = .complete
        var firstAscending: HistoryResponse?
        var firstDescending: Result<HistoryResponse, APIError>?
        let client = self.client
        let id = anyTransactionId

        var planned = false
        await withTaskGroup(of: Answer.self) { group in
            func request(_ source: Source, _ query: TransactionHistoryQuery, revision: String?) {
                group.addTask {
                    do throws(APIError) {
                        return Answer(source: source, result: .success(
                            try await client.getTransactionHistory(anyTransactionId: id, revision: revision, query: query)))
                    } catch {
                        return Answer(source: source, result: .failure(error))
                    }
                }
            }
            request(.firstAscending, ascending, revision: nil)
            request(.firstDescending, descending, revision: nil)
            answers: while let answer = await group.next() {
                switch answer.result {
                case .failure(let error) where answer.source == .firstDescending:
                    // Only a hint for planning: the windows cover the history without it.
                    firstDescending = .failure(error)
                case .failure(let error):
                    end = error == .cancelled || Task.isCancelled ? .interrupted : .failed(error)
                    group.cancelAll()
                    break answers
                case .success(let page):
                    pages += 1
                    let entries = (page.signedTransactions ?? []).map(HistoryEntry.init(signedTransaction:))
                    lists[answer.source, default: []] += answer.source == .firstDescending ? Array(entries.reversed()) : entries
                    report(entries, onProgress)
                    switch answer.source {
                    case .firstAscending:
                        firstPage = page
                        firstAscending = page
                        if page.hasMore != true {
                            // One page held the whole history.
                            group.cancelAll()
                            break answers
                        }
                    case .firstDescending:
                        firstDescending = .success(page)
                    case .window(let index):
                        let next: String?
                        switch Result(catching: { () throws(APIError) -> String? in
                            try nextCursor(hasMore: page.hasMore, token: page.revision, endpoint: "Get Transaction History", field: "revision")
                        }) {
                        case .success(let cursor):
                            next = cursor
                        case .failure(let error):
                            end = .failed(error)
                            group.cancelAll()
                            break answers
                        }
                        if let next {
                            request(.window(index), windowQueries[index], revision: next)
                        } else {
                            windowsDone += 1
                            onProgress(HistoryProgress(
                                arrived: [], received: reported.count, pages: pages, windowsDone: windowsDone, windows: windowQueries.count))
                        }
                    }
                }
                if !planned, let firstAscending, let firstDescending {
                    planned = true
                    plan(ascending: firstAscending, descending: try? firstDescending.get())
                    for (index, window) in windowQueries.enumerated() { request(.window(index), window, revision: nil) }
                }
            }
        }
        let onePage = firstAscending.map { $0.hasMore != true } ?? false
        if end == .complete, !onePage, !(planned && windowsDone == windowQueries.count) {
            // The group ran dry without finishing: the task was cancelled.
            end = .interrupted
        }
        let merged: [HistoryEntry]
        if onePage {
            merged = lists[.firstAscending] ?? []
        } else {
            var sources = (0..<windowQueries.count).map { Source.window($0) }
            // Windows that did not finish leave gaps the first look may fill.
            if end != .complete { sources += [.firstAscending, .firstDescending] }
            merged = Self.merge(sources.compactMap { lists[$0] })
        }
        return WindowedHistory(
            entries: query.sort == .descending ? merged.reversed() : merged, end: end, pages: pages,
            windows: windowQueries.count, environment: firstPage?.environment, bundleId: firstPage?.bundleId,
            appAppleId: firstPage?.appAppleId)
    }

    private mutating func report(_ entries: [HistoryEntry], _ onProgress: (HistoryProgress) -> Void) {
        var fresh: [HistoryEntry] = []
        for entry in entries where entry.transactionId.isEmpty || reported.insert(entry.transactionId).inserted {
            fresh.append(entry)
        }
        onProgress(HistoryProgress(arrived: fresh, received: reported.count, pages: pages, windowsDone: windowsDone, windows: windowQueries.count))
    }

    /// Cuts the query's date span into disjoint windows, [start, end) by purchase date, from what
    /// the first pages (oldest and newest changes) show of the history's span and density.
    mutating func plan(ascending: HistoryResponse, descending: HistoryResponse?) {
        func milliseconds(_ page: HistoryResponse?) -> [Int64] {
            (page?.signedTransactions ?? []).compactMap { HistoryEntry(signedTransaction: $0).purchaseDate?.epochMilliseconds }
        }
        let early = milliseconds(ascending)
        let late = milliseconds(descending)
        let lower = query.startDate?.epochMilliseconds ?? Int64.min
        let upper = query.endDate?.epochMilliseconds ?? Int64.max
        // The oldest page's purchases go in the first window, the newest page's in the last.
        let low = min(max((early.max() ?? lower) + 1, lower), upper)
        let high = max(min(late.min() ?? query.endDate?.epochMilliseconds ?? Date().epochMilliseconds, upper), low)
        // Transactions per millisecond at each end, applied to the span between them.
        func density(_ values: [Int64]) -> Double? {
            guard let first = values.min(), let last = values.max(), values.count > 1 else { return nil }
            return Double(values.count) / Double(max(1, last - first))
        }
        let densities = [density(early), density(late)].compactMap { $0 }
        let expected = densities.isEmpty ? Double(windowing.targetPerWindow * windowing.maxWindows)
            : densities.reduce(0, +) / Double(densities.count) * Double(high - low)
        let rate = client.rateLimiter?.limit(for: "Get Transaction History", in: client.environment.environment) ?? windowing.maxWindows
        // Two windows take the ends; no more windows than one second of the endpoint's rate allows besides the first look.
        let middleLimit = max(1, min(windowing.maxWindows, rate - 2) - 2)
        let middle = high > low ? min(middleLimit, max(1, Int((expected / Double(windowing.targetPerWindow)).rounded(.up)))) : 0
        var cuts: [Int64] = [low]
        if middle > 0 {
            let step = Double(high - low) / Double(middle)
            for index in 1..<middle { cuts.append(low + Int64((step * Double(index)).rounded())) }
            cuts.append(high)
        }
        // Strictly inside the query's span and increasing: every window is [cut, next cut).
        var bounds: [Int64] = []
        for cut in cuts where cut > lower && cut < upper && (bounds.last.map { cut > $0 } ?? true) { bounds.append(cut) }
        var windows: [TransactionHistoryQuery] = []
        var start: Int64? = query.startDate?.epochMilliseconds
        for cut in bounds + [nil as Int64?] {
            var window = query
            window.sort = .ascending
            window.startDate = start.map { Date(epochMilliseconds: $0) }
            window.endDate = cut.map { Date(epochMilliseconds: $0) } ?? query.endDate
            windows.append(window)
            start = cut
        }
        windowQueries = windows
    }

    /// Merges lists that are each in the server's ascending order, keeping each list's order: the
    /// list whose next entry changed first goes first (by the latest change date seen so far in that
    /// list, a lower bound of the date the server sorted it by). Duplicates keep their last copy.
    static func merge(_ lists: [[HistoryEntry]]) -> [HistoryEntry] {
        let keyed: [[(key: Date, entry: HistoryEntry)]] = lists.map { list in
            var latest = Date.distantPast
            return list.map { entry in
                if let change = entry.changeDate, change > latest { latest = change }
                return (latest, entry)
            }
        }
        var heads = Array(repeating: 0, count: keyed.count)
        var merged: [HistoryEntry] = []
        merged.reserveCapacity(keyed.reduce(0) { $0 + $1.count })
        while true {
            var best: Int?
            for index in keyed.indices where heads[index] < keyed[index].count {
                guard let current = best else { best = index; continue }
                let candidate = keyed[index][heads[index]]
                let leader = keyed[current][heads[current]]
                if candidate.key < leader.key || (candidate.key == leader.key && candidate.entry.transactionId < leader.entry.transactionId) {
                    best = index
                }
            }
            guard let best else { break }
            merged.append(keyed[best][heads[best]].entry)
            heads[best] += 1
        }
        // De-duplicate by transaction ID, keeping the last (newest) copy in its place.
        var seen: Set<String> = []
        var result: [HistoryEntry] = []
        for entry in merged.reversed() where entry.transactionId.isEmpty || seen.insert(entry.transactionId).inserted {
            result.append(entry)
        }
        return result.reversed()
    }
}
