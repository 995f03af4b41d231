import AppStoreServerAPI
import DeskStore
import Foundation

/// One answer of a customer's lookup, as it arrives: the console draws each at once, the command
/// line waits for them all.
public enum CustomerPart: Sendable {
    /// Look Up Order ID: the order's purchases, from which the customer is read.
    case order(Result<OrderResult, DisplayError>)
    /// What the store's account index holds under an app account token.
    case accountLinks(Result<[AccountLink], DisplayError>)
    /// Apple answered that the typed ID is an app transaction ID, found in `environment`.
    case appTransactionFound(anchor: String, environment: AppStoreEnvironment)
    case transaction(Result<Located<VerifiedTransaction>, DisplayError>)
    case subscriptions(Result<[SubscriptionRow], DisplayError>)
    case refunds(Result<[VerifiedTransaction], DisplayError>)
    /// What the history's paging has fetched so far (decoded, still being verified); the whole
    /// history follows as `.history`.
    case historyPage([VerifiedTransaction], pages: Int)
    case history(Result<[VerifiedTransaction], DisplayError>)
    case notifications(Result<[NotificationRow], DisplayError>)
    case appTransaction(Result<VerifiedPayload<AppTransactionPayload>, DisplayError>)

    /// The failure this part carries, when it is one the agent is told of at once.
    public var failure: DisplayError? {
        switch self {
        case .transaction(.failure(let error)), .subscriptions(.failure(let error)), .refunds(.failure(let error)), .history(.failure(let error)):
            return error
        default:
            return nil
        }
    }
}

/// Where a customer's lookup goes after a part.
public enum CustomerStep: Sendable, Equatable {
    /// Nothing more to start: the parts in flight finish the lookup.
    case wait
    /// Read every part of the customer under `anchor` (in the environment the customer now has).
    case loadParts(anchor: String, includeTransaction: Bool)
    /// Nothing can be found: every part says why.
    case nothingFound(DisplayError)
}
