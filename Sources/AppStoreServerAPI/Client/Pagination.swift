/// Pages of a paged endpoint, fetched one at a time as the caller iterates; stop iterating to stop fetching.
public struct PageSequence<Page: Sendable>: AsyncSequence, Sendable {
    public typealias Element = Page
    /// Fetches the page for a cursor (nil = first page) and returns it with the next cursor, if any.
    let fetch: @Sendable (String?) async throws(APIError) -> (page: Page, next: String?)

    public init(fetch: @escaping @Sendable (String?) async throws(APIError) -> (page: Page, next: String?)) {
        self.fetch = fetch
    }

    public func makeAsyncIterator() -> Iterator { Iterator(fetch: fetch) }

    public struct Iterator: AsyncIteratorProtocol {
        let fetch: @Sendable (String?) async throws(APIError) -> (page: Page, next: String?)
        var cursor: String?
        var finished = false
        var seen: Set<String> = []

        public mutating func next() async throws -> Page? {
            guard !finished else { return nil }
            let (page, next) = try await fetch(cursor)
            if let next {
                // A server that hands back a cursor it already gave would loop forever.
                guard seen.insert(next).inserted else {
                    finished = true
                    throw APIError.decoding(
                        endpoint: "paging",
                        failure: JSONDecodeFailure(path: "", reason: "the server repeated a page cursor", typeName: "page"))
                }
                cursor = next
            } else {
                finished = true
            }
            return page
        }
    }

    /// Every page, in order (for callers that want the whole history).
    public func collect() async throws(APIError) -> [Page] {
        var pages: [Page] = []
        do {
            for try await page in self { pages.append(page) }
        } catch let error as APIError {
            throw error
        } catch is CancellationError {
            throw .cancelled
        } catch {
            throw .invalidRequest("\(error)")
        }
        return pages
    }
}

/// How a walk through pages ended.
public enum PagingEnd: Sendable, Equatable {
    /// The last page arrived.
    case complete
    /// The caller had enough (a limit was reached).
    case stopped
    /// The task was cancelled (Ctrl-C): the pages before it were kept.
    case interrupted
    /// A page could not be fetched (after any retries, or at the deadline): the pages before it were kept.
    case failed(APIError)

    public var isComplete: Bool { self == .complete || self == .stopped }
}

extension PageSequence {
    /// Fetches page after page and hands each to `body`, which returns false to stop, until the
    /// last page, a failure or cancellation. It never throws, so whatever arrived before the end is
    /// still the caller's to show; the result says how it ended.
    public func walk(isolation: isolated (any Actor)? = #isolation, _ body: (Page) async -> Bool) async -> PagingEnd {
        var iterator = makeAsyncIterator()
        while true {
            if Task.isCancelled { return .interrupted }
            let page: Page?
            do {
                page = try await iterator.next()
            } catch let error as APIError {
                return error == .cancelled || Task.isCancelled ? .interrupted : .failed(error)
            } catch {
                return Task.isCancelled ? .interrupted : .failed(.invalidRequest("\(error)"))
            }
            guard let page else { return .complete }
            guard await body(page) else { return .stopped }
        }
    }
}

func nextCursor(hasMore: Bool?, token: String?, endpoint: String, field: String) throws(APIError) -> String? {
    guard hasMore == true else { return nil }
    guard let token, !token.isEmpty else {
        throw .decoding(endpoint: endpoint, failure: JSONDecodeFailure(
            path: field, reason: "hasMore is true but no \(field) was given", typeName: endpoint))
    }
    return token
}
