import AppStoreServerAPI
import Foundation
import TerminalUI

/// Everything that can happen to the console: input, time, and answers to its requests.
public enum ConsoleAction: Sendable {
    case key(Key)
    /// The terminal's size, sent at start and after each resize (mouse clicks are mapped with it).
    case screenSize(width: Int, height: Int)
    case tick
    case order(request: Int, Result<OrderResult, DisplayError>)
    case transaction(request: Int, Result<Located<VerifiedTransaction>, DisplayError>)
    case subscriptions(request: Int, Result<[SubscriptionRow], DisplayError>)
    case refunds(request: Int, Result<[VerifiedTransaction], DisplayError>)
    case history(request: Int, Result<[VerifiedTransaction], DisplayError>)
    case customerNotifications(request: Int, Result<[NotificationRow], DisplayError>)
    case appTransaction(request: Int, Result<VerifiedPayload<AppTransactionPayload>, DisplayError>)
    case paneHistory(request: Int, Result<[VerifiedTransaction], DisplayError>)
    case paneNotifications(request: Int, Result<[NotificationRow], DisplayError>)
    case extended(request: Int, Result<ExtendRenewalDateResponse, DisplayError>)
    case testRequested(request: Int, Result<String, DisplayError>)
    case testStatus(request: Int, Result<CheckTestNotificationResponse, DisplayError>)
    case inspected(request: Int, DecodedSignedData)
    case finished(request: Int)
    case themeChanged(Result<String, DisplayError>)
    case environmentChanged(Result<AppStoreEnvironment, DisplayError>)
    case notice(String, isError: Bool)
}

/// Work the console asks for; the runner performs it and answers with actions.
public enum ConsoleEffect: Sendable, Equatable {
    case lookUpOrder(request: Int, orderId: String)
    case loadCustomer(request: Int, anchorId: String, includeTransaction: Bool)
    case loadHistory(request: Int, anchorId: String, query: TransactionHistoryQuery)
    case loadNotifications(request: Int, filters: NotificationRequestSpec)
    case extend(request: Int, originalTransactionId: String, body: ExtendRenewalDateRequest)
    case requestTestNotification(request: Int)
    case pollTestNotification(request: Int, token: String, delay: TimeInterval)
    case inspect(request: Int, text: String)
    case cancel(request: Int)
    case copy(String)
    case setTheme(String)
    case switchEnvironment(AppStoreEnvironment)
    case quit
}

/// A notification history request as the pane builds it (dates are made absolute by the runner).
public struct NotificationRequestSpec: Sendable, Equatable {
    public var since: TimeInterval
    public var type: NotificationType?
    public var subtype: NotificationSubtype?
    public var transactionId: String?
    public var onlyFailures: Bool
}
