import AppStoreServerAPI
import Foundation
import TerminalUI

/// The console's panes, in tab order (their number is the key that opens them).
public enum Pane: Int, CaseIterable, Sendable {
    case customer, orders, refunds, subscriptions, transactions, notifications, inspector

    public var title: String {
        switch self {
        case .customer: return "Customer"
        case .orders: return "Order"
        case .refunds: return "Refunds"
        case .subscriptions: return "Subscriptions"
        case .transactions: return "Transactions"
        case .notifications: return "Notifications"
        case .inspector: return "Inspector"
        }
    }
}

/// Everything one looked-up customer is made of; each part loads on its own.
public struct CustomerState: Sendable {
    public var query: String
    public var anchorId: String?
    public var environment: AppStoreEnvironment?
    public var order: Loadable<OrderResult> = .idle
    public var transaction: Loadable<VerifiedTransaction> = .idle
    public var subscriptions: Loadable<[SubscriptionRow]> = .idle
    public var refunds: Loadable<[VerifiedTransaction]> = .idle
    public var history: Loadable<[VerifiedTransaction]> = .idle
    public var notifications: Loadable<[NotificationRow]> = .idle
    public var appTransaction: Loadable<VerifiedPayload<AppTransactionPayload>> = .idle

    public init(query: String) {
        self.query = query
    }
}

/// Selection and scroll of a list, and whether its detail view is open.
public struct ListState: Sendable, Equatable {
    public var selected = 0
    public var offset = 0
    public var detailOpen = false
    public var detailSelected = 0
    public var folded: Set<String> = []

    public init() {}

    public mutating func move(by delta: Int, count: Int) {
        guard count > 0 else { selected = 0; return }
        selected = min(max(0, selected + delta), count - 1)
    }
}

/// Filters of the Transactions pane, sent to Get Transaction History.
public struct HistoryFilterState: Sendable, Equatable {
    public var query = TransactionHistoryQuery(sort: .descending)
    public init() {}
}

/// Filters of the Notifications pane, sent to Get Notification History.
public struct NotificationFilterState: Sendable, Equatable {
    public var since: TimeInterval = 7 * 86_400
    public var type: NotificationType?
    public var subtype: NotificationSubtype?
    public var transactionId: String?
    public var onlyFailures = false
    public init() {}
}

/// The renewal-extension form and its confirmation.
public struct ExtendForm: Sendable, Equatable {
    public var originalTransactionId: String
    public var productId: String
    public var currentRenewal: Date?
    public var days: TextInputState
    public var reason: ExtendReasonCode = .customerSatisfaction
    public var extensionsLastYear: Int
    public var requestIdentifier: String
    public var confirming = false
    public var error: String?

    public var dayCount: Int? {
        guard let value = Int(days.text), (1...90).contains(value) else { return nil }
        return value
    }

    public var request: ExtendRenewalDateRequest? {
        guard let dayCount else { return nil }
        return ExtendRenewalDateRequest(extendByDays: Int32(dayCount), extendReasonCode: reason, requestIdentifier: requestIdentifier)
    }
}

/// A request test notification round trip, followed live.
public struct TestNotificationState: Sendable {
    public var token: String?
    public var attempts: [SendAttemptItem] = []
    public var finished = false
    public var error: DisplayError?
    public var polls = 0
}

public enum Overlay: Sendable, Equatable {
    case help
    case extend
}

public struct ToastMessage: Sendable, Equatable {
    public var text: String
    public var isError: Bool
    public var expiresAtTick: Int

    public init(text: String, isError: Bool, expiresAtTick: Int) {
        self.text = text
        self.isError = isError
        self.expiresAtTick = expiresAtTick
    }
}

/// Where keys go first.
public enum Focus: Sendable, Equatable {
    case lookupInput, content, commandLine, filter, inspectorInput
}

/// The whole console as one value: the view draws it, the reducer changes it.
public struct ConsoleState: Sendable {
    public var profileName: String
    public var environment: AppStoreEnvironment
    public var isDemo: Bool
    public var bundleId: String
    public var readOnly: Bool
    public var themeName: String

    public var pane: Pane = .customer
    public var focus: Focus = .lookupInput
    public var overlay: Overlay?
    public var lookupInput = TextInputState(maxLength: 64)
    public var commandInput = TextInputState(maxLength: 256)
    public var filterInput = TextInputState(maxLength: 128)
    public var filters: [Pane: String] = [:]
    public var inspectorInput = TextInputState(maxLength: 1 << 20)

    public var customer: CustomerState?
    public var lists: [Pane: ListState] = [:]
    public var historyFilters = HistoryFilterState()
    public var transactionsPane: Loadable<[VerifiedTransaction]> = .idle
    public var notificationFilters = NotificationFilterState()
    public var notificationsPane: Loadable<[NotificationRow]> = .idle
    public var testNotification: TestNotificationState?
    public var extendForm: ExtendForm?
    public var inspected: Loadable<DecodedSignedData> = .idle

    public var inFlight: [Int: String] = [:]
    /// The request loading the current customer, so a new lookup can cancel it.
    public var customerRequest: Int?
    public var lastError: DisplayError?
    public var toasts: [ToastMessage] = []
    public var tick = 0
    public var screenWidth = 80
    public var screenHeight = 24
    public var nextRequest = 1
    public var shouldQuit = false

    public init(profileName: String, environment: AppStoreEnvironment, isDemo: Bool, bundleId: String, readOnly: Bool, themeName: String) {
        self.profileName = profileName
        self.environment = environment
        self.isDemo = isDemo
        self.bundleId = bundleId
        self.readOnly = readOnly
        self.themeName = themeName
    }

    public func list(_ pane: Pane) -> ListState { lists[pane] ?? ListState() }

    /// Keeps a pane's retention window: 180 days in Production, 30 in Sandbox.
    public var notificationRetention: TimeInterval { (environment == .sandbox ? 30 : 180) * 86_400 }
}
