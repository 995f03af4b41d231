import AppStoreServerAPI
import Foundation
@testable import iapdesk
import Synchronization
import Testing

/// Progress of long listings, and what a listing keeps when it is cut short.
@Suite struct ListingTests {
    final class Written: Sendable {
        let text = Mutex("")
        func append(_ more: String) { text.withLock { $0 += more } }
        var value: String { text.withLock { $0 } }
    }

    @Test func progressOnATerminalShowsAfterASecondAndIsErased() {
        let start = Date()
        let out = Written()
        let line = ProgressLine(noun: "transactions", inPlace: true, start: start, write: out.append)
        line.update(pages: 1, records: 20)
        line.tick(now: start.addingTimeInterval(0.5))
        #expect(out.value.isEmpty)
        line.tick(now: start.addingTimeInterval(1.2))
        #expect(out.value == "\r\u{1B}[2Kfetching: 1 page, 20 transactions so far (1 s); Ctrl-C stops and shows them")
        line.update(pages: 3, records: 60)
        line.tick(now: start.addingTimeInterval(1.3))
        #expect(!out.value.contains("60 transactions"))
        line.tick(now: start.addingTimeInterval(1.6))
        #expect(out.value.hasSuffix("\r\u{1B}[2Kfetching: 3 pages, 60 transactions so far (1 s); Ctrl-C stops and shows them"))
        line.finish()
        #expect(out.value.hasSuffix("\r\u{1B}[2K"))
        let length = out.value.count
        line.tick(now: start.addingTimeInterval(5))
        #expect(out.value.count == length)
    }

    @Test func progressInALogIsAPlainLineNowAndThen() {
        let start = Date()
        let out = Written()
        let line = ProgressLine(noun: "refunds", inPlace: false, start: start, write: out.append)
        line.tick(now: start.addingTimeInterval(1.5))
        #expect(out.value.isEmpty)
        line.update(pages: 2, records: 40)
        line.tick(now: start.addingTimeInterval(2.1))
        line.tick(now: start.addingTimeInterval(6))
        line.tick(now: start.addingTimeInterval(12.2))
        #expect(out.value.split(separator: "\n").count == 2)
        #expect(!out.value.contains("\u{1B}"))
        line.finish()
        #expect(out.value.hasSuffix("\n"))
    }

    @Test func aQuickFetchShowsNothing() {
        let out = Written()
        let line = ProgressLine(noun: "notifications", inPlace: true, write: out.append)
        line.tick(now: Date())
        line.finish()
        #expect(out.value.isEmpty)
    }

    /// Pages from a script: the listing keeps every page that arrived when the last one hangs.
    @Test func aCutListingKeepsWhatArrivedAndSaysSo() async throws {
        let served = Mutex(0)
        let pages = PageSequence<[String]> { cursor throws(APIError) in
            let number = served.withLock { count -> Int in
                count += 1
                return count
            }
            if number > 2 {
                do {
                    try await Task.sleep(nanoseconds: 3_600_000_000_000)
                } catch {
                    throw .cancelled
                }
            }
            return (["p\(number)-a", "p\(number)-b"], "c\(number)")
        }
        let progress = ProgressLine(noun: "items", inPlace: false, write: { _ in })
        let task = Task { await PagedListing<String>.collect(pages, limit: nil, progress: progress) { $0 } }
        while served.withLock({ $0 }) < 3 { try await Task.sleep(nanoseconds: 10_000_000) }
        task.cancel()
        let listing = await task.value
        #expect(listing.items == ["p1-a", "p1-b", "p2-a", "p2-b"])
        #expect(listing.pages == 2)
        #expect(listing.end == .interrupted)
        #expect(listing.jsonEnd.partial == true)
        #expect(listing.jsonEnd.stoppedBy == "interrupted")
        #expect(throws: Never.self) { try listing.requireFirstPage() }
        do {
            try listing.requireComplete(noun: "items")
            Issue.record("a cut listing must say so")
        } catch let error as CLIError {
            #expect(error.status == .interrupted)
            #expect(error.message.contains("Partial list"))
            #expect(error.message.contains("4 items shown arrived in 2 pages"))
        }
    }

    @Test func aLimitStopsTheListingWithoutCallingItPartial() async {
        let pages = PageSequence<[Int]> { cursor throws(APIError) in
            let number = Int(cursor ?? "0")! + 1
            return (Array(number * 10..<number * 10 + 5), number < 9 ? String(number) : nil)
        }
        let listing = await PagedListing<Int>.collect(pages, limit: 7, progress: nil) { $0 }
        #expect(listing.items == [10, 11, 12, 13, 14, 20, 21])
        #expect(listing.end == .stopped)
        #expect(!listing.isPartial)
        #expect(listing.jsonEnd.partial == false)
    }

    @Test func failuresBeforeTheFirstPageAreThePlainError() async {
        let pages = PageSequence<[Int]> { _ throws(APIError) in throw .deadlineExceeded(DeadlineFailure(seconds: 2, attempts: 1)) }
        let listing = await PagedListing<Int>.collect(pages, limit: nil, progress: nil) { $0 }
        do {
            try listing.requireFirstPage()
            Issue.record("must fail")
        } catch let error as CLIError {
            #expect(error.status == .unavailable)
            #expect(error.message.contains("2 s deadline"))
            #expect(error.hint?.contains("--timeout") == true)
        } catch {
            Issue.record("unexpected \(error)")
        }
        #expect(listing.jsonEnd.stoppedBy == "deadline")
    }

    @Test func everyFailureOfVerificationHasAHint() {
        let failures: [VerificationFailure] = [
            .malformedJWS("x"), .unsupportedAlgorithm("HS256"), .missingCertificateChain, .wrongChainLength(1),
            .invalidCertificate("x"), .untrustedChain("x"), .invalidSignature,
            .undecodablePayload(JSONDecodeFailure(path: "", reason: "x", typeName: "T")),
            .wrongBundleId(expected: "a", found: "b"), .wrongAppAppleId(expected: 1, found: 2),
            .wrongEnvironment(expected: .production, found: .sandbox),
        ]
        for failure in failures {
            let error = CLIError(unverified: failure)
            #expect(error.status == .unverified)
            #expect((error.hint ?? "").count > 40, "\(failure)")
        }
        #expect(CLIError(unverified: .wrongEnvironment(expected: .production, found: .sandbox)).hint?.contains("--environment") == true)
    }

    @Test func theRateLimitHintSaysPerSecondAndPerHour() {
        let error = CLIError(APIError.server(ServerFailure(status: 429, code: .rateLimitExceeded, message: nil)))
        #expect(error.status == .rateLimited)
        #expect(error.hint?.contains("per second") == true)
        #expect(error.hint?.contains("hour") == true)
    }
}
