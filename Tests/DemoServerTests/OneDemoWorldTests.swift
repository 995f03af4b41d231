import AppStoreServerAPI
import DemoServer
import Foundation
import Testing

/// Two demo processes on one state folder (here two servers in one test) are one App Store Server:
/// what one accepts, the other serves at its next request, and Apple's limits count both.
@Suite struct OneDemoWorldTests {
    static let subscription = "2000000400000044"

    static func extend(_ server: DemoServer, _ identifier: String) async throws -> ExtendRenewalDateResponse {
        try await server.makeClient().extendSubscriptionRenewalDate(
            originalTransactionId: subscription,
            request: ExtendRenewalDateRequest(extendByDays: 7, extendReasonCode: .customerSatisfaction, requestIdentifier: identifier))
    }

    static func expiry(_ server: DemoServer) async throws -> Date? {
        let statuses = try await server.makeClient().getAllSubscriptionStatuses(anyTransactionId: subscription)
        let jws = try #require(statuses.data?.first?.lastTransactions?.first { $0.originalTransactionId == subscription }?.signedTransactionInfo)
        return await (try server.makeVerifier()).verifyTransaction(jws).verifiedPayload?.expiresDate
    }

    @Test func writesOfOneAreReadByTheOtherAndTheYearlyLimitCountsBoth() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("iapdesk-world-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: folder) }
        var configuration = DemoServer.Configuration()
        configuration.stateFolder = folder
        let a = try await DemoServer.start(configuration)
        let b = try await DemoServer.start(configuration)
        defer { Task { await a.stop(); await b.stop() } }
        let before = try #require(try await Self.expiry(b))

        let first = try await Self.extend(a, "world-1")
        #expect(try await Self.expiry(b) == first.effectiveDate, "B serves the date A's extension made")
        #expect(first.effectiveDate == before.addingTimeInterval(7 * 86_400))
        let second = try await Self.extend(b, "world-2")
        #expect(second.effectiveDate == before.addingTimeInterval(14 * 86_400), "B extends from A's date, not its own")
        // A third, through either, is Apple's 4030005.
        do {
            _ = try await Self.extend(a, "world-3")
            Issue.record("a third extension within 365 days went through")
        } catch {
            guard case .server(let failure)? = error as? APIError else { Issue.record("\(error)"); return }
            #expect(failure.code == .subscriptionMaxExtension)
        }
        // Both extensions' notifications are in either's history.
        var request = NotificationHistoryRequest(startDate: before.addingTimeInterval(-30 * 86_400), endDate: Date().addingTimeInterval(60))
        request.notificationType = .renewalExtended
        let seenByA = try await a.makeClient().getNotificationHistory(paginationToken: nil, request: request).notificationHistory ?? []
        #expect(seenByA.count >= 2)
    }

    /// Reads and writes at once in one process never wait on each other for ever: the journal's
    /// lock is always taken before the state's.
    @Test func readsAndWritesAtOnceAllComplete() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("iapdesk-world-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: folder) }
        var configuration = DemoServer.Configuration()
        configuration.stateFolder = folder
        let server = try await DemoServer.start(configuration)
        let other = try await DemoServer.start(configuration)
        defer { Task { await server.stop(); await other.stop() } }
        server.webhookURL = server.receiverURL
        let work = Task {
            await withTaskGroup(of: Void.self) { group in
                for index in 0..<40 {
                    group.addTask {
                        let client = try? (index.isMultiple(of: 2) ? server : other).makeClient()
                        if index.isMultiple(of: 4) {
                            _ = try? await client?.requestTestNotification()
                        } else {
                            _ = try? await client?.getAllSubscriptionStatuses(anyTransactionId: Self.subscription)
                        }
                    }
                }
            }
        }
        // A bound for a deadlock, not a wait: the work ends in well under a second when it is right.
        let finished = await withTaskGroup(of: Bool.self) { group in
            group.addTask { await work.value; return true }
            group.addTask { try? await Task.sleep(for: .seconds(120)); return false }
            let first = await group.next() ?? false
            group.cancelAll()
            return first
        }
        #expect(finished, "40 reads and writes at once did not all complete")
    }

    @Test func aSharedWebhookIsWhereEveryProcessSends() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("iapdesk-world-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: folder) }
        var configuration = DemoServer.Configuration()
        configuration.stateFolder = folder
        let listening = try await DemoServer.start(configuration)
        let other = try await DemoServer.start(configuration)
        defer { Task { await listening.stop(); await other.stop() } }
        other.webhookURL = other.receiverURL
        // The receiver of the first process is shared: the other's test notification goes there.
        listening.shareWebhook(listening.receiverURL)
        #expect(other.webhookURL == listening.receiverURL)
    }

    @Test func aReceiverThatStopsHandsTheDemosNotificationsBack() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("iapdesk-webhook-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: folder) }
        var configuration = DemoServer.Configuration()
        configuration.stateFolder = folder
        let one = try await DemoServer.start(configuration)
        let other = try await DemoServer.start(configuration)
        defer { Task { await one.stop(); await other.stop() } }
        let first = try #require(URL(string: "http://127.0.0.1:1/first"))
        let second = try #require(URL(string: "http://127.0.0.1:2/second"))
        #expect(one.shareWebhook(first) == nil)
        #expect(other.webhookURL == first, "every process on the state sends to the receiver shared last")
        #expect(other.shareWebhook(second) == first)
        #expect(one.webhookURL == second)
        // The first stops while the second has them: nothing changes.
        one.withdrawWebhook(first, restoring: nil)
        #expect(other.webhookURL == second)
        // The second stops: they go back to the first.
        other.withdrawWebhook(second, restoring: first)
        #expect(one.webhookURL == first)
        one.withdrawWebhook(first, restoring: nil)
        #expect(!FileManager.default.fileExists(atPath: folder + "/webhook-url"))
    }
}
