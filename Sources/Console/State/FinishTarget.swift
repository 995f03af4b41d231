import AppStoreServerAPI
import DeskCore
import Foundation

/// A Finish Transaction as the agent confirms it: the transaction, what it is, the environment its
/// customer was found in and the customer's words for the ledger. One value for the confirmation
/// and the send, so what the dialog shows is what goes.
public struct FinishTarget: Sendable, Equatable {
    public var transactionId: String
    public var productId: String
    public var productType: String
    public var purchaseDate: Date?
    public var environment: AppStoreEnvironment?
    /// "transaction 2000000400000171, original transaction 2000000400000044 (order MK5TTTVWJH)".
    public var subject: String
    /// The lookup on screen when it was opened: it is sent only while that customer is shown.
    public var customerLookup: Int

    public init(
        transactionId: String, productId: String, productType: String, purchaseDate: Date?, environment: AppStoreEnvironment?,
        subject: String, customerLookup: Int
    ) {
        self.transactionId = transactionId
        self.productId = productId
        self.productType = productType
        self.purchaseDate = purchaseDate
        self.environment = environment
        self.subject = subject
        self.customerLookup = customerLookup
    }

    /// The request that is sent and recorded: a POST with no body.
    public var endpoint: Endpoint<NoContent> { Endpoints.finishTransaction(transactionId: transactionId) }

    /// Why Apple's Finish Transaction cannot take this row, or nil when it can. The endpoint takes
    /// the transaction ID of an in-app purchase of any product type, finished or not (finishing
    /// twice changes nothing); it cannot take what Apple's servers never saw, and the console does
    /// not write on the strength of data whose signature failed.
    public static func refusal(_ row: VerifiedTransaction) -> String? {
        guard let payload = row.payload, let id = payload.transactionId, !id.isEmpty else {
            return "this row could not be read, so there is no transaction ID to send."
        }
        if case .failed(let failure) = row.status {
            return "its signature did not verify (\(failure.appleStatus)); a write is never based on unverified data."
        }
        if let environment = payload.environment, environment == .xcode || environment == .localTesting {
            return "it is \(environment.label) data, made on this machine: the App Store has no such transaction to finish."
        }
        return nil
    }
}
