import Foundation

/// Every App Store Server API endpoint iapdesk calls, each a few declarative lines.
public enum Endpoints {
    public static func getTransactionInfo(transactionId: String) -> Endpoint<TransactionInfoResponse> {
        .json("Get Transaction Info", "GET", "/inApps/v1/transactions/\(pathSegment(transactionId))", idempotent: true)
    }

    public static func getTransactionHistory(
        anyTransactionId: String, revision: String?, query: TransactionHistoryQuery
    ) -> Endpoint<HistoryResponse> {
        .json("Get Transaction History", "GET", "/inApps/v2/history/\(pathSegment(anyTransactionId))",
              query: revisionItem(revision) + query.queryItems.map { (name: $0.0, value: $0.1) }, idempotent: true)
    }

    /// The deprecated V1 history, which leaves out finished consumables.
    public static func getTransactionHistoryV1(
        transactionId: String, revision: String?, query: TransactionHistoryQuery
    ) -> Endpoint<HistoryResponse> {
        .json("Get Transaction History V1", "GET", "/inApps/v1/history/\(pathSegment(transactionId))",
              query: revisionItem(revision) + query.queryItems.map { (name: $0.0, value: $0.1) }, idempotent: true)
    }

    public static func getAllSubscriptionStatuses(
        anyTransactionId: String, status: [SubscriptionStatus] = []
    ) -> Endpoint<StatusResponse> {
        .json("Get All Subscription Statuses", "GET", "/inApps/v1/subscriptions/\(pathSegment(anyTransactionId))",
              query: status.map { (name: "status", value: String($0.rawValue)) }, idempotent: true)
    }

    public static func getRefundHistory(anyTransactionId: String, revision: String?) -> Endpoint<RefundHistoryResponse> {
        .json("Get Refund History", "GET", "/inApps/v2/refund/lookup/\(pathSegment(anyTransactionId))",
              query: revisionItem(revision), idempotent: true)
    }

    public static func lookUpOrderId(orderId: String) -> Endpoint<OrderLookupResponse> {
        .json("Look Up Order ID", "GET", "/inApps/v1/lookup/\(pathSegment(orderId))", idempotent: true, productionOnly: true)
    }

    public static func extendSubscriptionRenewalDate(
        originalTransactionId: String, request: ExtendRenewalDateRequest
    ) -> Endpoint<ExtendRenewalDateResponse> {
        .json("Extend a Subscription Renewal Date", "PUT",
              "/inApps/v1/subscriptions/extend/\(pathSegment(originalTransactionId))",
              body: encode(request), idempotent: request.requestIdentifier != nil)
    }

    public static func extendRenewalDateForAllActiveSubscribers(
        request: MassExtendRenewalDateRequest
    ) -> Endpoint<MassExtendRenewalDateResponse> {
        .json("Extend Subscription Renewal Dates for All Active Subscribers", "POST",
              "/inApps/v1/subscriptions/extend/mass", body: encode(request), idempotent: request.requestIdentifier != nil)
    }

    public static func getStatusOfSubscriptionRenewalDateExtensions(
        productId: String, requestIdentifier: String
    ) -> Endpoint<MassExtendRenewalDateStatusResponse> {
        .json("Get Status of Subscription Renewal Date Extensions", "GET",
              "/inApps/v1/subscriptions/extend/mass/\(pathSegment(productId))/\(pathSegment(requestIdentifier))",
              idempotent: true)
    }

    public static func getNotificationHistory(
        paginationToken: String?, request: NotificationHistoryRequest
    ) -> Endpoint<NotificationHistoryResponse> {
        .json("Get Notification History", "POST", "/inApps/v1/notifications/history",
              query: paginationToken.map { [(name: "paginationToken", value: $0)] } ?? [],
              body: encode(request), idempotent: true)
    }

    public static func requestTestNotification() -> Endpoint<SendTestNotificationResponse> {
        .json("Request a Test Notification", "POST", "/inApps/v1/notifications/test", idempotent: false)
    }

    public static func getTestNotificationStatus(testNotificationToken: String) -> Endpoint<CheckTestNotificationResponse> {
        .json("Get Test Notification Status", "GET", "/inApps/v1/notifications/test/\(pathSegment(testNotificationToken))",
              idempotent: true)
    }

    public static func sendConsumptionInformation(transactionId: String, request: ConsumptionRequest) -> Endpoint<NoContent> {
        .empty("Send Consumption Information", "PUT", "/inApps/v2/transactions/consumption/\(pathSegment(transactionId))",
               body: encode(request), idempotent: false)
    }

    public static func sendConsumptionInformationV1(transactionId: String, request: ConsumptionRequestV1) -> Endpoint<NoContent> {
        .empty("Send Consumption Information V1", "PUT", "/inApps/v1/transactions/consumption/\(pathSegment(transactionId))",
               body: encode(request), idempotent: false)
    }

    public static func setAppAccountToken(originalTransactionId: String, request: UpdateAppAccountTokenRequest) -> Endpoint<NoContent> {
        .empty("Set App Account Token", "PUT", "/inApps/v1/transactions/\(pathSegment(originalTransactionId))/appAccountToken",
               body: encode(request), idempotent: false)
    }

    public static func getAppTransactionInfo(anyTransactionId: String) -> Endpoint<AppTransactionInfoResponse> {
        .json("Get App Transaction Info", "GET", "/inApps/v1/transactions/appTransactions/\(pathSegment(anyTransactionId))",
              idempotent: true)
    }

    public static func finishTransaction(transactionId: String) -> Endpoint<NoContent> {
        .empty("Finish Transaction", "POST", "/inApps/v1/transactions/\(pathSegment(transactionId))/finish", idempotent: false)
    }

    private static func revisionItem(_ revision: String?) -> [(name: String, value: String)] {
        revision.map { [(name: "revision", value: $0)] } ?? []
    }

    static func encode(_ value: some Encodable) -> Data {
        // Request models hold only strings, numbers, booleans and dates: encoding cannot fail.
        try! AppStoreJSON.encoder().encode(value)
    }
}
