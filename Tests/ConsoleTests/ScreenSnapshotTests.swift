import AppStoreServerAPI
@testable import Console
import DemoServer
@testable import DeskCore
import Foundation
import TerminalUI
import Testing

/// Every pane rendered headlessly with demo data at 80x24 and 120x36, compared with the
/// snapshots in Snapshots/ (dates and UUIDs masked).
@Suite(.serialized) struct ScreenSnapshotTests {
    static let sizes = [(80, 24), (120, 36)]

    func check(_ harness: ConsoleHarness, _ name: String, sizes: [(Int, Int)] = sizes) {
        for (width, height) in sizes {
            let screen = harness.screen(width: width, height: height)
            #expect(screen.split(separator: "\n", omittingEmptySubsequences: false).count == height)
            if let problem = Snapshot.check(screen, "\(name)-\(width)x\(height)") { Issue.record("\(problem)") }
            // Styles as well as text: a lost highlight or a wrong colour role fails too.
            let styles = Snapshot.steadyStyles(harness.styles(width: width, height: height), text: screen)
            if let problem = Snapshot.check(styles, "\(name)-\(width)x\(height).styles") { Issue.record("\(problem)") }
        }
    }

    func lookUp(_ harness: ConsoleHarness, _ id: String) async throws {
        if harness.state.focus != .paneInput { harness.send(.character("i")) }
        harness.send(.control("u"))
        harness.type(id)
        harness.send(.enter)
        try await harness.settle()
    }

    @Test func customerPaneBeforeAndAfterLookup() async throws {
        let harness = try await ConsoleHarness.start()
        check(harness, "customer-empty")
        try await lookUp(harness, "2000000499999999")
        let unknown = harness.screen(width: 120, height: 36)
        #expect(unknown.components(separatedBy: "TransactionIdNotFoundError").count == 3, "one message in the pane, one in the status line")
        try await lookUp(harness, "MK5TTTVWJH")
        #expect(harness.screen(width: 120, height: 36).contains("✓ all 12 signatures verified"))
        check(harness, "customer-MK5TTTVWJH")
        harness.send(.character("2"))
        check(harness, "order-MK5TTTVWJH")
        await harness.stop()
    }

    @Test func refundsAndTransactionsOfTheRefundedCustomer() async throws {
        let harness = try await ConsoleHarness.start()
        try await lookUp(harness, "8SAVFG75PQ")
        harness.send(.character("3"))
        let refunds = harness.screen(width: 120, height: 36)
        #expect(refunds.contains("Issue in the app"))
        #expect(refunds.contains("Other (e.g. accidental)"))
        check(harness, "refunds-8SAVFG75PQ")
        harness.send(.character("5"))
        check(harness, "transactions-8SAVFG75PQ")
        harness.send(.enter)
        #expect(harness.screen(width: 120, height: 36).contains("Verification: Verified"))
        check(harness, "transaction-detail-8SAVFG75PQ")
        await harness.stop()
    }

    @Test func subscriptionsInGracePeriodAndTheExtensionDialog() async throws {
        let harness = try await ConsoleHarness.start()
        try await lookUp(harness, "MK5TTTVWJH")
        harness.send(.character("4"))
        check(harness, "subscriptions-MK5TTTVWJH")
        harness.send(.character("e"))
        try await harness.settle()
        check(harness, "extend-form")
        harness.send(.enter)
        try await harness.settle()
        check(harness, "extend-confirm")
        harness.send(.enter)
        try await harness.settle()
        #expect(harness.state.toasts.contains { $0.text.hasPrefix("Extended to ") && $0.text.contains(": original transaction") })
        try await lookUp(harness, "RWPVUMZJWB")
        harness.send(.character("4"))
        let grace = harness.screen(width: 120, height: 36)
        #expect(grace.contains("Grace period"))
        #expect(grace.contains("Grace period ends"))
        // What was said about the last customer is gone with it.
        #expect(!grace.contains("Extended to "))
        check(harness, "subscriptions-grace-period")
        await harness.stop()
    }

    @Test func notificationsWithAttemptsAndATestNotification() async throws {
        let harness = try await ConsoleHarness.start()
        harness.send(.escape)
        harness.send(.character("6"))
        try await harness.settle()
        check(harness, "notifications-7-days")
        harness.send(.character("f"))
        harness.send(.character("d"))
        harness.send(.character("d"))
        try await harness.settle()
        let failures = harness.screen(width: 120, height: 36)
        #expect(failures.contains("undelivered only"))
        harness.send(.enter)
        let detail = harness.screen(width: 120, height: 36)
        #expect(detail.contains("Send attempts"))
        #expect(detail.contains("Next retry") || detail.contains("Retries"))
        check(harness, "notification-detail")
        harness.send(.escape)
        harness.send(.character("t"))
        try await harness.settle()
        #expect(harness.screen(width: 120, height: 36).contains("SUCCESS  The server answered"))
        await harness.stop()
    }

    @Test func inspectorVerifiesAPastedJWS() async throws {
        let harness = try await ConsoleHarness.start()
        let seeds = harness.server.seedIDs()
        let info = try await harness.server.makeClient().getTransactionInfo(transactionId: seeds.originalTransactionIds[0])
        harness.send(.escape)
        harness.send(.character("7"))
        #expect(harness.state.focus == .paneInput)
        check(harness, "inspector-empty")
        // A paste is verified at once, without Enter.
        harness.send(.paste(info.signedTransactionInfo ?? ""))
        try await harness.settle()
        let screen = harness.screen(width: 120, height: 36)
        #expect(screen.contains("1 signed payload: all verified"))
        #expect(screen.contains("Transaction at $"))
        #expect(screen.contains("Verification: Verified"))
        #expect(screen.contains("transactionId"))
        harness.send(.character("7"))
        #expect(harness.state.focus == .paneInput)
        harness.send(.paste("garbage.not.jws"))
        try await harness.settle()
        #expect(harness.screen(width: 120, height: 36).contains("Not App Store signed data"))
        await harness.stop()
    }

    @Test func inspectorTakesAWebhookBodyAndKeysTypedAfterThePasteStayOutOfIt() async throws {
        let harness = try await ConsoleHarness.start()
        harness.send(.escape)
        harness.send(.character("7"))
        let history = try await harness.server.makeClient().getNotificationHistory(
            request: NotificationHistoryRequest(startDate: Date().addingTimeInterval(-7 * 86_400), endDate: Date()))
        let notification = try #require(history.notificationHistory?.first?.signedPayload)
        let body = #"{"signedPayload":"\#(notification)"}"#
        harness.send(.paste(body))
        // Typed while the paste is being verified: these reach the report, not the field.
        harness.send(.character("j"))
        harness.send(.character("x"))
        #expect(harness.state.inspectorInput.text == body)
        try await harness.settle()
        #expect(harness.state.inspectorInput.text == body)
        let screen = harness.screen(width: 120, height: 36)
        #expect(screen.contains("Notification at $.signedPayload"))
        #expect(!screen.contains("INVALID_JWT_FORMAT"))
        #expect(harness.state.inspected.value?.report?.parts.allSatisfy(\.status.isVerified) == true)
        await harness.stop()
    }

    @Test func retentionMessagingScreen() async throws {
        let harness = try await RetentionScreenTests.harness(reviewDelay: 0)
        _ = try await RetentionScreenTests.upload(harness.server, approve: true)
        try await RetentionScreenTests.open(harness)
        #expect(harness.state.retention.overview?.isComplete == true)
        check(harness, "retention")
        await harness.stop()
    }

    @Test func helpOverlayAndTinyTerminals() async throws {
        let harness = try await ConsoleHarness.start()
        harness.send(.escape)
        harness.send(.character("?"))
        check(harness, "help")
        harness.send(.escape)
        let tiny = harness.screen(width: 39, height: 11)
        #expect(tiny.contains("Terminal too small: 39x11."))
        // A resize storm: every size from 1x1 to 130x40 renders without trapping.
        for width in stride(from: 1, through: 130, by: 3) {
            for height in stride(from: 1, through: 40, by: 3) {
                #expect(harness.screen(width: width, height: height).split(separator: "\n", omittingEmptySubsequences: false).count == height)
            }
        }
        await harness.stop()
    }
}
