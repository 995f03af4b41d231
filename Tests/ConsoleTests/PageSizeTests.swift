import AppStoreServerAPI
@testable import Console
@testable import DeskCore
import DeskStore
import Foundation
import TerminalUI
import Testing

/// PageDown and PageUp move by the rows the table shows, in every list pane and at any size.
@Suite struct PageSizeTests {
    static let count = 300

    static func transactions() -> [VerifiedTransaction] {
        (0..<count).map { index in
            var payload = TransactionPayload()
            payload.transactionId = String(2_000_000_400_011_000 + index)
            payload.originalTransactionId = String(2_000_000_400_011_000 + index)
            payload.purchaseDate = Date(timeIntervalSince1970: 1_790_000_000 + Double(index) * 60)
            return VerifiedPayload(payload: payload, rawPayload: nil, header: nil, status: .verified, chainSubjects: [])
        }
    }

    static func notifications() -> [NotificationRow] {
        (0..<count).map { index in
            var payload = NotificationPayload()
            payload.notificationType = .didRenew
            payload.notificationUUID = "uuid-\(index)"
            let notification = VerifiedPayload(payload: payload, rawPayload: nil, header: nil, status: .verified, chainSubjects: [])
            return NotificationRow(decoded: DecodedNotification(notification: notification, transaction: nil, renewalInfo: nil, appTransaction: nil),
                                   signedPayload: "", attempts: [])
        }
    }

    static func arrivals() -> [StoredNotification] {
        (0..<count).map { index in
            StoredNotification(
                id: Int64(index), notificationUUID: "uuid-\(index)", notificationType: "DID_RENEW", subtype: nil, environment: "Sandbox", bundleId: nil,
                appAppleId: nil, transactionId: nil, originalTransactionId: nil, productId: nil, signedDate: nil, verdict: "verified", verdictDetail: nil,
                rawBody: Data(), decodedPayload: nil, firstReceivedAt: Date(), lastReceivedAt: Date(), remoteAddress: nil, answeredStatus: 200,
                elapsedMilliseconds: 1, forwardResult: nil, forwardStatus: nil, deliveryCount: 1, lastDeliveryId: Int64(count - index))
        }
    }

    static func refundRequests() -> RefundRequestQueue {
        let requests = (0..<count).map { index in
            RefundRequest(
                notificationUUID: "request-\(index)", transactionId: String(2_000_000_400_011_000 + index), originalTransactionId: nil, productId: "coins",
                price: 990, currency: "USD", reason: .unintendedPurchase, requestedAt: Date(timeIntervalSince1970: 1_790_000_000 - Double(index) * 60),
                environment: "Production")
        }
        return RefundRequestQueue(requests: requests, notes: [], complete: true, readAt: Date(timeIntervalSince1970: 1_790_000_000))
    }

    /// A state whose every list pane has `count` rows.
    static func filled(width: Int, height: Int) -> ConsoleState {
        var state = ConsoleState(profileName: "p", environment: .production, isDemo: false, bundleId: "com.example", readOnly: false, themeName: "default")
        state.screenWidth = width
        state.screenHeight = height
        state.focus = .content
        var customer = CustomerState(query: "2000000400011000", lookup: 1)
        customer.order = .loaded(OrderResult(orderId: "MK5TTTVWJH", status: .valid, transactions: transactions()))
        customer.refunds = .loaded(transactions())
        customer.history = .loaded(transactions())
        customer.subscriptions = .loaded(transactions().map {
            SubscriptionRow(groupIdentifier: "21000001", originalTransactionId: $0.payload?.originalTransactionId ?? "", status: .active, transaction: $0, renewal: nil)
        })
        state.customer = customer
        state.transactionsPane = .loaded(transactions())
        state.notificationsPane = .loaded(notifications())
        state.live.rows = arrivals()
        state.live.loaded = true
        state.refundRequests.queue = refundRequests()
        return state
    }

    @Test(arguments: [(120, 36), (80, 24), (40, 12)])
    func aPageIsTheRowsTheTableShows(width: Int, height: Int) throws {
        let panes = Panes.all.filter(\.isList).map(\.pane)
        #expect(panes.count == 8)
        for pane in panes {
            var state = Self.filled(width: width, height: height)
            state.pane = pane
            #expect(PaneRows.count(state, pane) == Self.count, "\(pane)")
            let visible = Table.visibleRows(height: try #require(PaneLayout.table(state)).height)
            #expect(visible >= 1)
            _ = ConsoleReducer.reduce(&state, .key(.pageDown))
            #expect(state.list(pane).selected == visible, "\(pane) at \(width)x\(height): a page is \(visible) rows")
            // The next page is shown whole, the selection on the line it was on.
            #expect(state.list(pane).offset == visible, "\(pane)")
            _ = ConsoleReducer.reduce(&state, .key(.pageDown))
            _ = ConsoleReducer.reduce(&state, .key(.pageUp))
            #expect(state.list(pane).selected == visible, "\(pane)")
            // The rows on screen are those of the page (where the rows show their IDs).
            let screen = ConsoleHarnessless.screen(state, width: width, height: height)
            let ids = Panes.description(pane).rowIDs(state)
            if width >= 120, [.orders, .transactions].contains(pane), let first = ids[visible], let last = ids[2 * visible - 1] {
                #expect(screen.contains(first), "\(pane):\n\(screen)")
                #expect(screen.contains(last), "\(pane):\n\(screen)")
                #expect(!screen.contains(ids[2 * visible] ?? "-"), "\(pane):\n\(screen)")
            }
        }
    }

    @Test func aWheelNotchMovesAFixedStep() {
        var state = Self.filled(width: 120, height: 36)
        state.pane = .transactions
        _ = ConsoleReducer.reduce(&state, .key(.scrollDown))
        #expect(state.list(.transactions).selected == ListNavigation.wheelStep)
    }

    @Test func pagesStopAtTheEnds() {
        var state = Self.filled(width: 120, height: 36)
        state.pane = .transactions
        for _ in 0..<20 { _ = ConsoleReducer.reduce(&state, .key(.pageDown)) }
        #expect(state.list(.transactions).selected == Self.count - 1)
        for _ in 0..<20 { _ = ConsoleReducer.reduce(&state, .key(.pageUp)) }
        #expect(state.list(.transactions).selected == 0)
        #expect(state.list(.transactions).offset == 0)
    }
}

/// Renders a state without a harness's demo server.
enum ConsoleHarnessless {
    static func screen(_ state: ConsoleState, width: Int, height: Int) -> String {
        let backend = HeadlessBackend(width: width, height: height)
        Terminal(backend: backend).draw { area, buffer in ConsoleView.render(state, theme: .fallback, area: area, buffer: &buffer) }
        return backend.text
    }
}
