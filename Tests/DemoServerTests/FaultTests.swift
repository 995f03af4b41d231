import AppStoreServerAPI
@testable import DemoServer
import Foundation
import Testing

@Suite struct FaultTests {
    @Test func rateLimitIsRetriedByTheClientUsingRetryAfter() async throws {
        var configuration = DemoServer.Configuration()
        configuration.faults.rateLimits = true
        configuration.webhookURL = URL(string: "http://127.0.0.1:9/none")
        let server = try await DemoServer.start(configuration)
        // Request a Test Notification allows 1 per second; Get Test Notification Status too.
        let retrying = try server.makeClient(retryPolicy: RetryPolicy(maxAttempts: 3, maxRetryAfterWait: 5))
        let plain = try server.plainClient()
        let token = try await retrying.requestTestNotification().testNotificationToken ?? ""
        // One request per second is allowed: of a quick burst, some must be refused.
        var limited: APIError?
        for _ in 0..<6 where limited?.code != 4_290_000 {
            limited = await apiError { try await plain.getTestNotificationStatus(testNotificationToken: token) }
        }
        guard case .server(let failure)? = limited else { Issue.record("expected 429, got \(String(describing: limited))"); return }
        #expect(failure.status == 429)
        #expect(failure.code == .rateLimitExceeded)
        #expect(failure.retryAfter != nil)
        // The retrying client waits until Retry-After and gets through.
        let started = Date()
        _ = try? await retrying.getTestNotificationStatus(testNotificationToken: token)
        let outcome = await apiError { try await retrying.getTestNotificationStatus(testNotificationToken: token) }
        #expect(outcome == nil || outcome?.code == 4_040_008)
        #expect(Date().timeIntervalSince(started) < 5)
        await server.stop()
    }

    @Test func serverErrorsAreRetried() async throws {
        var configuration = DemoServer.Configuration()
        configuration.faults.failEvery = 2
        let server = try await DemoServer.start(configuration)
        let client = try server.makeClient(retryPolicy: RetryPolicy(maxAttempts: 3, baseDelay: 0.01, maxDelay: 0.05))
        let id = try server.customer("Active monthly subscription").originalTransactionId
        for _ in 0..<4 { _ = try await client.getTransactionInfo(transactionId: id) }
        let plain = try server.plainClient()
        var errors: [Int64?] = []
        for _ in 0..<2 { errors.append(await apiError { try await plain.getTransactionInfo(transactionId: id) }?.code) }
        #expect(errors.contains(5_000_001))
        await server.stop()
    }

    @Test func malformedAndTruncatedBodiesAreDecodingErrors() async throws {
        var configuration = DemoServer.Configuration()
        configuration.faults.malformedEvery = 1
        let server = try await DemoServer.start(configuration)
        let id = try server.customer("Active monthly subscription").originalTransactionId
        guard case .decoding? = await apiError({ try await server.plainClient().getTransactionInfo(transactionId: id) }) else {
            Issue.record("malformed body must be a decoding error"); return
        }
        await server.stop()
        var truncated = DemoServer.Configuration()
        truncated.faults.truncatedEvery = 1
        let second = try await DemoServer.start(truncated)
        guard case .decoding? = await apiError({ try await second.plainClient().getAllSubscriptionStatuses(anyTransactionId: id) }) else {
            Issue.record("truncated body must be a decoding error"); return
        }
        await second.stop()
    }

    @Test func badSignaturesFailVerification() async throws {
        var configuration = DemoServer.Configuration()
        configuration.faults.badSignatures = true
        let server = try await DemoServer.start(configuration)
        let id = try server.customer("Active monthly subscription").originalTransactionId
        let info = try await server.plainClient().getTransactionInfo(transactionId: id)
        let result = try await server.makeVerifier().verifyTransaction(info.signedTransactionInfo ?? "")
        #expect(result.status == .failed(.invalidSignature))
        #expect(result.payload?.transactionId == id)
        await server.stop()
    }
}
