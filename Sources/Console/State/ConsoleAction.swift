import AppStoreServerAPI
import DeskCore
import Foundation
import TerminalUI

/// Everything that can happen to the console: input, time, and answers to its requests.
public enum ConsoleAction: Sendable {
    case key(Key)
    /// The terminal's size, sent at start and after each resize (mouse clicks are mapped with it).
    case screenSize(width: Int, height: Int)
    /// The clock: the reducer's only source of time.
    case tick(now: Date)
    /// One part of the customer being looked up.
    case customer(request: Int, CustomerPart)
    /// What a long paging has fetched so far; the final answer follows.
    case historyPage(request: Int, [VerifiedTransaction], pages: Int)
    case notificationsPage(request: Int, [NotificationRow], pages: Int)
    case paneHistory(request: Int, Result<[VerifiedTransaction], DisplayError>)
    case paneNotifications(request: Int, Result<[NotificationRow], DisplayError>)
    case extensionsCounted(request: Int, Result<ExtensionCount, DisplayError>)
    /// The subscription and its earlier extensions read again for the confirmation, with the
    /// identifier the request will carry.
    case extensionReviewed(request: Int, Result<ExtensionReview, DisplayError>)
    case extended(request: Int, WriteResult<ExtendRenewalDateResponse>)
    case transactionFinished(request: Int, WriteResult<NoContent>)
    /// A write of an earlier session was closed by the agent (or could not be).
    case writeResolved(requestIdentifier: String, Result<Void, DisplayError>)
    case testRequested(request: Int, Result<String, DisplayError>)
    case testStatus(request: Int, Result<CheckTestNotificationResponse, DisplayError>)
    /// The answer of a `PaneTask`, for the pane that started it.
    case answer(request: Int, any Sendable)
    case finished(request: Int)
    case themeChanged(Result<String, DisplayError>)
    case environmentChanged(Result<AppStoreEnvironment, DisplayError>)
    case notice(String, isError: Bool)
}

/// Work the console asks for; the runner performs it and answers with actions.
public enum ConsoleEffect: Sendable, Equatable {
    case lookUpOrder(request: Int, orderId: String)
    /// `environment` nil: find it (Production, then Sandbox); otherwise every request goes there.
    case loadCustomer(request: Int, anchorId: String, includeTransaction: Bool, environment: AppStoreEnvironment?)
    case loadHistory(request: Int, anchorId: String, query: TransactionHistoryQuery, environment: AppStoreEnvironment?)
    case loadNotifications(request: Int, filters: NotificationRequestSpec)
    case countExtensions(request: Int, originalTransactionId: String, environment: AppStoreEnvironment?)
    /// Reads the subscription and its extensions again right before the confirmation is drawn,
    /// and makes the request's identifier (identity comes from outside the reducer).
    case reviewExtension(request: Int, originalTransactionId: String, environment: AppStoreEnvironment?)
    case extend(request: Int, ExtendTarget)
    /// Sends a confirmed Finish Transaction through the ledger (the runner makes its identifier).
    case finishTransaction(request: Int, FinishTarget)
    /// Records that the agent closed an earlier write with no known outcome.
    case resolveWrite(UnresolvedWrite, note: String)
    case requestTestNotification(request: Int)
    case pollTestNotification(request: Int, token: String, delay: TimeInterval)
    /// Work a pane describes itself; its answer comes back as `.answer` to that pane.
    case task(PaneTask)
    case cancel(request: Int)
    case copy(String)
    case saveRecentLookups([String])
    case setTheme(String)
    case switchEnvironment(AppStoreEnvironment)
    case quit
}

/// Work a pane hands to the effect runner: it runs with the console's services and its result
/// is posted back as `.answer(request:, result)`; a pane adds one without touching the runner.
public struct PaneTask: Sendable, Equatable, CustomStringConvertible {
    public typealias Work = @Sendable (DeskServices, _ progress: @escaping @Sendable (any Sendable) -> Void) async -> any Sendable

    public let request: Int
    /// What it does, in words: tests and logs compare tasks by request and name.
    public let name: String
    public let work: Work

    public init(request: Int, name: String, work: @escaping Work) {
        self.request = request
        self.name = name
        self.work = work
    }

    public var description: String { "\(name) (request \(request))" }

    public static func == (lhs: PaneTask, rhs: PaneTask) -> Bool { lhs.request == rhs.request && lhs.name == rhs.name }
}

extension ConsoleAction {
    /// The request an answer belongs to; nil for input, time and notices.
    var request: Int? {
        switch self {
        case .customer(let request, _), .historyPage(let request, _, _), .notificationsPage(let request, _, _), .paneHistory(let request, _),
             .paneNotifications(let request, _), .testRequested(let request, _), .testStatus(let request, _), .answer(let request, _):
            return request
        default:
            return nil
        }
    }
}
