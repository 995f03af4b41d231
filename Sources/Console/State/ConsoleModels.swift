import AppStoreServerAPI
import Foundation

/// An error as the console shows it: what happened and what to do.
public struct DisplayError: Error, Sendable, Equatable {
    public var summary: String
    public var hint: String?

    public init(summary: String, hint: String? = nil) {
        self.summary = summary
        self.hint = hint
    }

    public init(_ error: APIError) {
        self.init(summary: error.summary, hint: error.hint)
    }

    public init(_ error: any Error) {
        if let api = error as? APIError {
            self.init(api)
        } else if error is CancellationError {
            self.init(summary: "Cancelled.")
        } else {
            self.init(summary: "\(error)")
        }
    }
}

/// Loading state of one part of a pane.
public enum Loadable<Value: Sendable>: Sendable {
    case idle
    case loading
    case loaded(Value)
    case failed(DisplayError)

    public var value: Value? {
        if case .loaded(let value) = self { return value }
        return nil
    }

    public var isLoading: Bool {
        if case .loading = self { return true }
        return false
    }

    public var error: DisplayError? {
        if case .failed(let error) = self { return error }
        return nil
    }
}

public typealias VerifiedTransaction = VerifiedPayload<TransactionPayload>
public typealias VerifiedRenewal = VerifiedPayload<RenewalInfoPayload>

/// One subscription chain as Get All Subscription Statuses reports it.
public struct SubscriptionRow: Sendable {
    public var groupIdentifier: String
    public var originalTransactionId: String
    public var status: SubscriptionStatus?
    public var transaction: VerifiedTransaction?
    public var renewal: VerifiedRenewal?

    public init(groupIdentifier: String, originalTransactionId: String, status: SubscriptionStatus?, transaction: VerifiedTransaction?, renewal: VerifiedRenewal?) {
        self.groupIdentifier = groupIdentifier
        self.originalTransactionId = originalTransactionId
        self.status = status
        self.transaction = transaction
        self.renewal = renewal
    }
}

/// One notification from the history with its delivery attempts.
public struct NotificationRow: Sendable {
    public var decoded: DecodedNotification?
    public var signedPayload: String
    public var attempts: [SendAttemptItem]

    public init(decoded: DecodedNotification?, signedPayload: String, attempts: [SendAttemptItem]) {
        self.decoded = decoded
        self.signedPayload = signedPayload
        self.attempts = attempts
    }

    public var payload: NotificationPayload? { decoded?.notification.payload }
    public var delivered: Bool { attempts.contains { $0.sendAttemptResult == .success } }
}

/// The order lookup of the customer pane.
public struct OrderResult: Sendable {
    public var orderId: String
    public var status: OrderLookupStatus?
    public var transactions: [VerifiedTransaction]

    public init(orderId: String, status: OrderLookupStatus?, transactions: [VerifiedTransaction]) {
        self.orderId = orderId
        self.status = status
        self.transactions = transactions
    }
}

/// What a typed ID is, judged by its shape.
public enum IDKind: Sendable, Equatable {
    case orderId(String)
    case transactionId(String)
    case invalid(String)

    /// Order IDs mix capital letters and digits (MK5TTTVWJH); transaction IDs are digits only.
    public static func classify(_ raw: String) -> IDKind {
        let text = raw.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !text.isEmpty else { return .invalid("Type an order ID (such as MK5TTTVWJH) or a transaction ID.") }
        guard text.count <= 40 else { return .invalid("That is too long to be an order or transaction ID.") }
        if text.allSatisfy(\.isASCII), text.allSatisfy(\.isNumber) { return .transactionId(text) }
        let upper = text.uppercased()
        if upper.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber) }), (6...20).contains(upper.count) {
            return .orderId(upper)
        }
        return .invalid("\"\(text)\" is neither an order ID (letters and digits, such as MK5TTTVWJH) nor a transaction ID (digits).")
    }
}
