import AppStoreServerAPI
import DeskCore
import DeskStore
import Foundation
import TerminalUI

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
    /// Earlier extensions of this subscription, once counted.
    public var earlier: Loadable<ExtensionCount> = .idle
    public var requestIdentifier: String
    /// The lookup the form was opened for: it is only sent while that customer is on screen.
    public var customerLookup: Int
    public var environment: AppStoreEnvironment?
    /// The customer in words, shown in the confirmation and kept in the ledger.
    public var subject: String
    /// The request counting earlier extensions.
    public var countRequest: Int?
    /// The request reading the subscription and its extensions again for the confirmation.
    public var reviewRequest: Int?
    /// The renewal date the form showed when Apple's re-read for the confirmation has another.
    public var renewalBeforeReview: Date?
    public var confirming = false
    public var error: String?

    /// The number typed, in range or not (95 steps down to 90, not to 1).
    public var typedDays: Int? { Int(days.text) }

    public var dayCount: Int? {
        guard let value = Int(days.text), (1...90).contains(value) else { return nil }
        return value
    }

    public var request: ExtendRenewalDateRequest? {
        guard let dayCount else { return nil }
        return ExtendRenewalDateRequest(extendByDays: Int32(dayCount), extendReasonCode: reason, requestIdentifier: requestIdentifier)
    }

    /// The extension the confirmation shows and, confirmed, sends: one value for both.
    public var target: ExtendTarget? {
        request.map {
            ExtendTarget(
                originalTransactionId: originalTransactionId, body: $0, environment: environment, subject: subject, seenLedgerAt: earlier.value?.readAt,
                confirmedRenewal: currentRenewal)
        }
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
    /// A write from an earlier session with no known outcome, waiting for the agent's decision.
    case unresolvedWrite
    /// The last error in full, wrapped, for when the status line had to cut it.
    case message
    /// The report of `:doctor`.
    case doctor
    /// `:retention`'s screen of the Retention Messaging configuration.
    case retention
    /// The confirmation of a Finish Transaction.
    case finishTransaction
    /// The answer to a refund request (Send Consumption Information), then its confirmation.
    case consumption
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
    /// The input field of the pane on screen (the Customer pane's lookup, the Inspector's paste).
    case paneInput
    case content, commandLine, filter
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
    public var focus: Focus = .paneInput
    public var overlay: Overlay?
    /// The page of the help overlay, when it needs more than one.
    public var helpPage = 0
    public var lookupInput = TextInputState(maxLength: 64)
    public var commandInput = TextInputState(maxLength: ConsoleState.commandLineLength)
    /// Room for `:note` and the longest note kept.
    public static let commandLineLength = CaseNote.maxLength + 16
    public var filterInput = TextInputState(maxLength: 128)
    public var filters: [Pane: String] = [:]

    public var customer: CustomerState?
    public var lists: [Pane: ListState] = [:]
    /// Each pane's own state (rows, filters, input), by model type.
    public var models = PaneModels()
    public var extendForm: ExtendForm?
    /// Earlier sessions' writes of this account with no known outcome, oldest first; the first is
    /// shown in the `.unresolvedWrite` overlay.
    public var unresolvedWrites: [UnresolvedWrite] = []
    /// Extensions on their way, by request: what each is for, to report its result in words.
    public var extensionsInFlight: [Int: SentExtension] = [:]
    /// The Finish Transaction waiting for the agent's confirmation.
    public var finishConfirmation: FinishTarget?
    /// Finish Transactions on their way, by request.
    public var finishesInFlight: [Int: FinishTarget] = [:]
    /// The answer to a refund request being filled in or confirmed.
    public var consumptionForm: ConsumptionForm?
    /// Answers to refund requests on their way, by request.
    public var consumptionsInFlight: [Int: ConsumptionTarget] = [:]
    /// The profile's refund preference (`refund_preference`), suggested in every answer.
    public var appRefundPreference: RefundPreference?
    /// The consumption policy a receiver answers with (the profile's `consumption_policy`, or
    /// `--consumption-policy`): the Refund requests pane shows what it does for each request.
    public var refundPolicy: RefundPolicy?

    /// Which keys trigger which commands (the config file may rebind them).
    public var keymap = Keymap.standard
    /// IDs looked up lately, newest first; ↑ in the lookup field walks them.
    public var recentLookups: [String] = []
    /// Which recent ID the lookup field shows while ↑/↓ walk them.
    public var recallIndex: Int?
    public var inFlight: [Int: String] = [:]
    /// The pane that started each request: its answers go to that pane alone.
    public var requestOwners: [Int: Pane] = [:]
    /// "6 pages, 120 so far": the progress of a paging request, shown after its description.
    public var progress: [Int: String] = [:]
    /// A pane listing part of its rows: still loading, or stopped with Esc.
    public var partialNote: [Pane: String] = [:]
    public var lastError: DisplayError?
    /// The `:doctor` check running, and the report of the last one.
    public var doctorRequest: Int?
    public var doctorReport: DoctorReport?
    public var toasts: [ToastMessage] = []
    public var tick = 0
    /// The time of the last tick; set at start by whoever creates the state.
    public var now = Date(timeIntervalSince1970: 0)
    public var screenWidth = 80
    public var screenHeight = 24
    /// The next request's number: taken only through `takeRequestID()`.
    public private(set) var nextRequest = 1
    public var shouldQuit = false

    /// A number no request of this console has had: requests, lookups and background reads all
    /// take theirs here, so an answer always names what it answers.
    public mutating func takeRequestID() -> Int {
        defer { nextRequest += 1 }
        return nextRequest
    }

    public init(profileName: String, environment: AppStoreEnvironment, isDemo: Bool, bundleId: String, readOnly: Bool, themeName: String) {
        self.profileName = profileName
        self.environment = environment
        self.isDemo = isDemo
        self.bundleId = bundleId
        self.readOnly = readOnly
        self.themeName = themeName
    }

    public func list(_ pane: Pane) -> ListState { lists[pane] ?? ListState() }

    /// Keeps a pane's retention window: Apple's notification history in this environment.
    public var notificationRetention: TimeInterval { environment.notificationHistoryRetention }
}

/// An extension sent, and the lookup on screen when it was confirmed (nil for a re-send at start).
public struct SentExtension: Sendable, Equatable {
    public var target: ExtendTarget
    public var customerLookup: Int?
}
