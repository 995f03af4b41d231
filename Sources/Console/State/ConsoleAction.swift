import AppStoreServerAPI
import Foundation
import TerminalUI

/// Everything that can happen to the console: input, time, and answers to its requests.
public enum ConsoleAction: Sendable {
    case key(Key)
    /// The terminal's size, sent at start and after each resize (mouse clicks are mapped with it).
    case screenSize(width: Int, height: Int)
    /// The clock: the reducer's only source of time.
    case tick(now: Date)
    case order(request: Int, Result<OrderResult, DisplayError>)
    case transaction(request: Int, Result<Located<VerifiedTransaction>, DisplayError>)
    case subscriptions(request: Int, Result<[SubscriptionRow], DisplayError>)
    case refunds(request: Int, Result<[VerifiedTransaction], DisplayError>)
    case history(request: Int, Result<[VerifiedTransaction], DisplayError>)
    /// What a long paging has fetched so far; the final answer follows.
    case historyPage(request: Int, [VerifiedTransaction], pages: Int)
    case notificationsPage(request: Int, [NotificationRow], pages: Int)
    case customerNotifications(request: Int, Result<[NotificationRow], DisplayError>)
    case appTransaction(request: Int, Result<VerifiedPayload<AppTransactionPayload>, DisplayError>)
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
    public typealias Work = @Sendable (ConsoleServices, _ progress: @escaping @Sendable (any Sendable) -> Void) async -> any Sendable

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
        case .order(let request, _), .transaction(let request, _), .subscriptions(let request, _), .refunds(let request, _),
             .history(let request, _), .historyPage(let request, _, _), .notificationsPage(let request, _, _),
             .customerNotifications(let request, _), .appTransaction(let request, _), .paneHistory(let request, _),
             .paneNotifications(let request, _), .testRequested(let request, _), .testStatus(let request, _), .answer(let request, _):
            return request
        default:
            return nil
        }
    }
}

/// A notification history request as the pane builds it (dates are made absolute by the runner).
public struct NotificationRequestSpec: Sendable, Equatable {
    public var since: TimeInterval
    public var type: NotificationType?
    public var subtype: NotificationSubtype?
    public var transactionId: String?
    public var onlyFailures: Bool
}

/// An extension as the agent confirmed it: the subscription, the environment its customer was
/// found in, and the customer's words for the ledger.
public struct ExtendTarget: Sendable, Equatable {
    public var originalTransactionId: String
    public var body: ExtendRenewalDateRequest
    public var environment: AppStoreEnvironment?
    /// "original transaction 2000000400000044 (order MK5TTTVWJH)".
    public var subject: String
    /// A re-send of an earlier intent with its request identifier.
    public var isResend: Bool
    /// When the ledger was read for the confirmation: the send waits for any other agent's write to
    /// this subscription, and is stopped when one was made since.
    public var seenLedgerAt: Date?
    /// The renewal date the confirmation showed, read from Apple for it: the send is stopped when
    /// Apple has another one by then.
    public var confirmedRenewal: Date?

    /// The request that is sent, and recorded in the ledger, exactly as the confirmation shows it.
    public var endpoint: Endpoint<ExtendRenewalDateResponse> {
        Endpoints.extendSubscriptionRenewalDate(originalTransactionId: originalTransactionId, request: body)
    }

    public init(
        originalTransactionId: String, body: ExtendRenewalDateRequest, environment: AppStoreEnvironment?, subject: String, isResend: Bool = false,
        seenLedgerAt: Date? = nil, confirmedRenewal: Date? = nil
    ) {
        self.originalTransactionId = originalTransactionId
        self.body = body
        self.environment = environment
        self.subject = subject
        self.isResend = isResend
        self.seenLedgerAt = seenLedgerAt
        self.confirmedRenewal = confirmedRenewal
    }
}
