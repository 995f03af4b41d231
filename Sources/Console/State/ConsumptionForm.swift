import AppStoreServerAPI
import DeskCore
import Foundation
import TerminalUI

/// An answer to Apple's consumption request as the agent confirmed it: one value for the
/// confirmation and the send, so what the dialog shows is what goes.
public struct ConsumptionTarget: Sendable, Equatable {
    public var transactionId: String
    public var body: ConsumptionRequest
    public var environment: AppStoreEnvironment?
    /// "transaction 2000000400000171 (com.example.coins.100)", for the ledger.
    public var subject: String
    /// The request answered, and when its 12 hours end: the send is stopped after that.
    public var notificationUUID: String
    public var deadline: Date
    /// When the queue behind the confirmation was read: an answer by anyone (an agent, the policy)
    /// recorded since stops this one.
    public var seenLedgerAt: Date

    public init(
        transactionId: String, body: ConsumptionRequest, environment: AppStoreEnvironment?, subject: String, notificationUUID: String, deadline: Date,
        seenLedgerAt: Date
    ) {
        self.transactionId = transactionId
        self.body = body
        self.environment = environment
        self.subject = subject
        self.notificationUUID = notificationUUID
        self.deadline = deadline
        self.seenLedgerAt = seenLedgerAt
    }

    /// The request that is sent and recorded in the ledger.
    public var endpoint: Endpoint<NoContent> { Endpoints.sendConsumptionInformation(transactionId: transactionId, request: body) }
}

/// The Send Consumption Information form: the transaction, the request it answers, the five
/// fields, and what Apple would refuse.
public struct ConsumptionForm: Sendable, Equatable {
    public enum Field: Int, CaseIterable, Sendable {
        case delivery, share, sample, preference, consent
    }

    public var transactionId: String
    public var productId: String
    public var transaction: TransactionPayload?
    public var environment: AppStoreEnvironment?
    public var subject: String
    /// The answer as the fields now say; `share` holds the percent as typed.
    public var answer: ConsumptionAnswer
    public var share: TextInputState
    public var field: Field = .delivery
    /// The request answered, from the queue read when the form opened (nil until it is read).
    public var request: RefundRequest?
    /// Whether the queue is being read for this form: Enter waits for it.
    public var readingQueue = false
    /// When the queue behind the confirmation was read.
    public var queueReadAt: Date?
    public var requestsComplete = true
    /// The rules the answer breaks, as of the last check.
    public var refusals: [ConsumptionRefusal] = []
    public var confirming = false
    public var error: String?
    /// The customer on screen when it was opened from the Transactions pane: sent only while it is.
    public var customerLookup: Int?

    /// The percent typed, in Apple's thousandths of a percent; nil when empty (left out).
    public var typedShare: Result<Int32?, ConsumptionRefusal> {
        let text = share.text.trimmingCharacters(in: .whitespaces)
        guard !text.isEmpty else { return .success(nil) }
        guard let value = ConsumptionRules.percentage(fromPercent: text) else {
            return .failure(ConsumptionRefusal(.percentageOutOfRange, "The share used must be a number from 0 to 100 (%), or empty.", appleError: "ConsumptionPercentageOutOfRangeError"))
        }
        return .success(value)
    }

    /// Whether the share may be given at all: Apple works it out for auto-renewable subscriptions.
    public var takesShare: Bool { transaction?.type != .autoRenewableSubscription }
}
