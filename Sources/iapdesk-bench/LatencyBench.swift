import AppStoreServerAPI
import Console
import DemoServer
import DeskCore
import Foundation
import Synchronization
import TerminalUI

/// Time to answer with the demo server answering after `latency` (Apple's round trip is about 150 ms):
/// Enter on an order ID to the status and renewal date on screen, and to the complete summary, for a
/// typical customer and the 517-transaction one; and the whole history through the client layer,
/// page after page and as concurrent windows.
enum LatencyBench {
    static let typical = "Active monthly subscription"
    static let busiest = "Power user with 500+ transactions"

    static func run(latencyMs: Int, runs: Int = 3) async throws {
        var configuration = DemoServer.Configuration()
        configuration.faults.latency = Double(latencyMs) / 1000
        let server = try await DemoServer.start(configuration)
        defer { Task { await server.stop() } }
        print("latency_round_trip: \(latencyMs) ms")
        for (label, scenario) in [("typical", typical), ("busiest", busiest)] {
            guard let customer = server.seedIDs().customers.first(where: { $0.scenario == scenario }) else { continue }
            var status: [Double] = []
            var complete: [Double] = []
            for _ in 0..<runs {
                let (toStatus, toComplete) = try await consoleTimes(server: server, orderId: customer.orderId)
                status.append(toStatus)
                complete.append(toComplete)
            }
            print("latency_\(label)_order_to_status_ms: \(median(status)) ms (\(String(format: "%.1f", Double(median(status)) / Double(max(1, latencyMs)))) round trips)")
            print("latency_\(label)_order_to_summary_console_ms: \(median(complete)) ms")

            // The client layer alone: the summary's five parts at once, the history paged or windowed.
            let client = try server.makeClient()
            let verifier = try server.makeVerifier()
            var paged: [Double] = []
            var windowed: [Double] = []
            var summary: [Double] = []
            var pages = 0
            var windowedPages = 0
            for _ in 0..<runs {
                paged.append(try await time {
                    var count = 0
                    for try await page in client.transactionHistoryPages(anyTransactionId: customer.originalTransactionId) {
                        count += page.signedTransactions?.count ?? 0
                        pages += 1
                    }
                })
                windowed.append(try await time {
                    let history = await client.transactionHistoryConcurrently(anyTransactionId: customer.originalTransactionId)
                    guard history.end == .complete else { throw BenchError("windowed history ended \(history.end)") }
                    windowedPages = history.pages
                    for jws in history.signedTransactions { _ = await verifier.verifyTransaction(jws) }
                })
                summary.append(try await time { try await clientSummary(client, verifier, customer) })
            }
            print("latency_\(label)_history_paged_ms: \(median(paged)) ms (\(pages / runs) pages)")
            print("latency_\(label)_history_windowed_ms: \(median(windowed)) ms (\(windowedPages) requests, verified)")
            print("latency_\(label)_order_to_summary_client_ms: \(median(summary)) ms")
        }
        await server.stop()
    }

    static func median(_ values: [Double]) -> Int { Int(values.sorted()[values.count / 2]) }

    static func time(_ body: () async throws -> Void) async throws -> Double {
        let start = ContinuousClock.now
        try await body()
        return (ContinuousClock.now - start).seconds * 1000
    }

    /// What the console's summary fetches, through the client layer with the windowed history:
    /// order lookup, then subscriptions, refunds, history, notifications and the app transaction at once.
    static func clientSummary(_ client: AppStoreServerClient, _ verifier: SignedDataVerifier, _ customer: DemoSeedCustomer) async throws {
        let order = try await client.lookUpOrderId(orderId: customer.orderId)
        guard let first = order.signedTransactions?.first else { throw BenchError("the order has no transactions") }
        let anchor = await verifier.verifyTransaction(first).payload?.originalTransactionId ?? customer.originalTransactionId
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                let statuses = try await client.getAllSubscriptionStatuses(anyTransactionId: anchor)
                for item in statuses.data ?? [] {
                    for last in item.lastTransactions ?? [] {
                        if let jws = last.signedTransactionInfo { _ = await verifier.verifyTransaction(jws) }
                        if let jws = last.signedRenewalInfo { _ = await verifier.verifyRenewalInfo(jws) }
                    }
                }
            }
            group.addTask {
                for try await page in client.refundHistoryPages(anyTransactionId: anchor) {
                    for jws in page.signedTransactions ?? [] { _ = await verifier.verifyTransaction(jws) }
                }
            }
            group.addTask {
                let history = await client.transactionHistoryConcurrently(anyTransactionId: anchor, query: TransactionHistoryQuery(sort: .descending))
                guard history.end == .complete else { throw BenchError("history ended \(history.end)") }
                for jws in history.signedTransactions { _ = await verifier.verifyTransaction(jws) }
            }
            group.addTask {
                let now = Date()
                var request = NotificationHistoryRequest(startDate: now.addingTimeInterval(-30 * 86_400 + 3600), endDate: now)
                request.transactionId = anchor
                for try await page in client.notificationHistoryPages(request: request) {
                    for item in page.notificationHistory ?? [] { _ = await verifier.verifyNotification(item.signedPayload ?? "") }
                }
            }
            group.addTask {
                if customer.appTransactionId != nil {
                    let app = try await client.getAppTransactionInfo(anyTransactionId: anchor)
                    _ = await verifier.verifyAppTransaction(app.signedAppTransactionInfo ?? "")
                }
            }
            try await group.waitForAll()
        }
    }

    /// Drives the console's program as the app does: Enter on the order ID in the lookup field,
    /// every posted answer reduced and its effects run. Returns the milliseconds until the
    /// subscriptions (status, renewal date) are on the customer pane, and until every part is.
    static func consoleTimes(server: DemoServer, orderId: String) async throws -> (Double, Double) {
        let services = DeskServices(client: try server.makeClient(), verifier: try server.makeVerifier())
        let inbox = ConsoleInbox()
        let runner = EffectRunner(services: services, makeServices: { _ in services }, post: { inbox.post($0) })
        var state = ConsoleState(profileName: "bench", environment: .production, isDemo: true, bundleId: DemoServer.bundleId, readOnly: false, themeName: "default")
        state.focus = .paneInput
        state.lookupInput = TextInputState(text: orderId, maxLength: 64)
        let program = ConsoleProgram(state: state, inbox: inbox, runner: runner)
        defer { program.stop() }
        let start = ContinuousClock.now
        program.send(.key(.enter))
        var toStatus: Double?
        while !program.state.inFlight.isEmpty {
            await inbox.arrival()
            program.drain()
            guard let customer = program.state.customer else { continue }
            let elapsed = (ContinuousClock.now - start).seconds * 1000
            if toStatus == nil, customer.subscriptions.value != nil { toStatus = elapsed }
            let parts: [Bool] = [
                customer.subscriptions.isSettled, customer.refunds.isSettled, customer.history.isSettled,
                customer.notifications.isSettled, customer.appTransaction.isSettled,
            ]
            if parts.allSatisfy({ $0 }) {
                guard customer.history.value != nil else { throw BenchError("the console's history failed") }
                return (toStatus ?? elapsed, elapsed)
            }
        }
        throw BenchError("the console never finished the summary")
    }
}

extension Loadable {
    /// Loaded or failed: nothing more will come.
    var isSettled: Bool {
        switch self {
        case .loaded, .failed: return true
        case .idle, .loading: return false
        }
    }
}

struct BenchError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
