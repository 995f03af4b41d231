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
    case extensionsCounted(request: Int, Result<ExtensionCount, DisplayError>)
    /// The subscription and its earlier extensions read again for the confirmation, with the
    /// identifier the request will carry.
    case extensionReviewed(request: Int, Result<ExtensionReview, DisplayError>)
    case extended(request: Int, WriteResult<ExtendRenewalDateResponse>)
    case transactionFinished(request: Int, WriteResult<NoContent>)
    /// The outcome of an answer to a refund request.
    case consumptionAnswered(request: Int, WriteResult<NoContent>)
    /// A write of an earlier session was closed by the agent (or could not be).
    case writeResolved(requestIdentifier: String, Result<Void, DisplayError>)
    /// The answer of a `PaneTask`, for the pane that started it.
    case answer(request: Int, any PaneAnswer)
    case finished(request: Int)
    case themeChanged(Result<String, DisplayError>)
    case environmentChanged(Result<AppStoreEnvironment, DisplayError>)
    case notice(String, isError: Bool)
}

/// Work the console asks for; the runner performs it and answers with actions.
public enum ConsoleEffect: Sendable, Equatable {
    case countExtensions(request: Int, originalTransactionId: String, environment: AppStoreEnvironment?)
    /// Reads the subscription and its extensions again right before the confirmation is drawn,
    /// and makes the request's identifier (identity comes from outside the reducer).
    case reviewExtension(request: Int, originalTransactionId: String, environment: AppStoreEnvironment?)
    case extend(request: Int, ExtendTarget)
    /// Sends a confirmed Finish Transaction through the ledger (the runner makes its identifier).
    case finishTransaction(request: Int, FinishTarget)
    /// Sends a confirmed answer to a refund request through the ledger, stopped when anyone
    /// answered it since the agent looked, or its 12 hours ended.
    case answerConsumption(request: Int, ConsumptionTarget)
    /// Records that the agent closed an earlier write with no known outcome.
    case resolveWrite(UnresolvedWrite, note: String)
    /// Work a pane describes itself; its answer comes back as `.answer` to that pane.
    case task(PaneTask)
    case cancel(request: Int)
    case copy(String)
    case saveRecentLookups([String])
    case setTheme(String)
    case switchEnvironment(AppStoreEnvironment)
    /// Hands the terminal back to the shell until the process is continued (Ctrl-Z; `fg` resumes).
    case suspend
    case quit
}

/// Work a pane hands to the effect runner: it runs with the console's services and its result
/// is posted back as `.answer(request:, result)`; a pane adds one without touching the runner.
public struct PaneTask: Sendable, Equatable, CustomStringConvertible {
    /// Its answers: any sent as `progress` while it runs, then the one it returns (nil: none more).
    public typealias Work = @Sendable (DeskServices, _ progress: @escaping @Sendable (any PaneAnswer) -> Void) async -> (any PaneAnswer)?

    public let request: Int
    /// What it does, in words: tests and logs compare tasks by request and name.
    public let name: String
    /// False for a step of a longer request (a status polled under the request that asked): the
    /// request stays in flight after this task's answer.
    public let finishes: Bool
    public let work: Work

    public init(request: Int, name: String, finishes: Bool = true, work: @escaping Work) {
        self.request = request
        self.name = name
        self.finishes = finishes
        self.work = work
    }

    public var description: String { "\(name) (request \(request))" }

    public static func == (lhs: PaneTask, rhs: PaneTask) -> Bool { lhs.request == rhs.request && lhs.name == rhs.name }
}
