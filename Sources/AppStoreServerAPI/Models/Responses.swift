import Foundation

// Response bodies of the App Store Server API. Every field is optional, as Apple's are.

public struct TransactionInfoResponse: Codable, Sendable, Equatable {
    public var signedTransactionInfo: String?
    public init(signedTransactionInfo: String? = nil) { self.signedTransactionInfo = signedTransactionInfo }
}

public struct HistoryResponse: Codable, Sendable, Equatable {
    public var revision: String?
    public var hasMore: Bool?
    public var bundleId: String?
    public var appAppleId: Int64?
    public var environment: AppStoreEnvironment?
    public var signedTransactions: [String]?
    public init() {}
}

public struct StatusResponse: Codable, Sendable, Equatable {
    public var environment: AppStoreEnvironment?
    public var bundleId: String?
    public var appAppleId: Int64?
    public var data: [SubscriptionGroupIdentifierItem]?
    public init() {}
}

public struct SubscriptionGroupIdentifierItem: Codable, Sendable, Equatable {
    public var subscriptionGroupIdentifier: String?
    public var lastTransactions: [LastTransactionsItem]?
    public init(subscriptionGroupIdentifier: String? = nil, lastTransactions: [LastTransactionsItem]? = nil) {
        self.subscriptionGroupIdentifier = subscriptionGroupIdentifier
        self.lastTransactions = lastTransactions
    }
}

public struct LastTransactionsItem: Codable, Sendable, Equatable {
    public var status: SubscriptionStatus?
    public var originalTransactionId: String?
    public var signedTransactionInfo: String?
    public var signedRenewalInfo: String?
    public init() {}
}

public struct RefundHistoryResponse: Codable, Sendable, Equatable {
    public var signedTransactions: [String]?
    public var revision: String?
    public var hasMore: Bool?
    public init() {}
}

public struct OrderLookupResponse: Codable, Sendable, Equatable {
    public var status: OrderLookupStatus?
    public var signedTransactions: [String]?
    public init(status: OrderLookupStatus? = nil, signedTransactions: [String]? = nil) {
        self.status = status
        self.signedTransactions = signedTransactions
    }
}

public struct ExtendRenewalDateResponse: Codable, Sendable, Equatable {
    public var originalTransactionId: String?
    public var webOrderLineItemId: String?
    public var success: Bool?
    /// The new expiry date.
    public var effectiveDate: Date?
    public init() {}
}

public struct MassExtendRenewalDateResponse: Codable, Sendable, Equatable {
    public var requestIdentifier: String?
    public init(requestIdentifier: String? = nil) { self.requestIdentifier = requestIdentifier }
}

public struct MassExtendRenewalDateStatusResponse: Codable, Sendable, Equatable {
    public var requestIdentifier: String?
    public var complete: Bool?
    public var completeDate: Date?
    public var succeededCount: Int64?
    public var failedCount: Int64?
    public init() {}
}

public struct NotificationHistoryResponse: Codable, Sendable, Equatable {
    public var paginationToken: String?
    public var hasMore: Bool?
    public var notificationHistory: [NotificationHistoryResponseItem]?
    public init() {}
}

public struct NotificationHistoryResponseItem: Codable, Sendable, Equatable {
    public var signedPayload: String?
    /// Every delivery attempt, oldest first.
    public var sendAttempts: [SendAttemptItem]?
    public init(signedPayload: String? = nil, sendAttempts: [SendAttemptItem]? = nil) {
        self.signedPayload = signedPayload
        self.sendAttempts = sendAttempts
    }
}

public struct SendAttemptItem: Codable, Sendable, Equatable {
    public var attemptDate: Date?
    public var sendAttemptResult: SendAttemptResult?
    public init(attemptDate: Date? = nil, sendAttemptResult: SendAttemptResult? = nil) {
        self.attemptDate = attemptDate
        self.sendAttemptResult = sendAttemptResult
    }
}

public struct SendTestNotificationResponse: Codable, Sendable, Equatable {
    public var testNotificationToken: String?
    public init(testNotificationToken: String? = nil) { self.testNotificationToken = testNotificationToken }
}

public struct CheckTestNotificationResponse: Codable, Sendable, Equatable {
    public var signedPayload: String?
    public var sendAttempts: [SendAttemptItem]?
    public init(signedPayload: String? = nil, sendAttempts: [SendAttemptItem]? = nil) {
        self.signedPayload = signedPayload
        self.sendAttempts = sendAttempts
    }
}

public struct AppTransactionInfoResponse: Codable, Sendable, Equatable {
    public var signedAppTransactionInfo: String?
    public init(signedAppTransactionInfo: String? = nil) { self.signedAppTransactionInfo = signedAppTransactionInfo }
}

/// The error body of every endpoint.
public struct ErrorPayload: Codable, Sendable, Equatable {
    public var errorCode: Int64?
    public var errorMessage: String?
    public init(errorCode: Int64? = nil, errorMessage: String? = nil) {
        self.errorCode = errorCode
        self.errorMessage = errorMessage
    }
}
