import AppStoreServerAPI
import Foundation

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
