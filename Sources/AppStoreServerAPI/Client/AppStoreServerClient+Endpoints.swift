import Foundation

// One typed method per endpoint; each is a thin wrapper over its declaration in `Endpoints`.
extension AppStoreServerClient {
    public func getTransactionInfo(transactionId: String) async throws(APIError) -> TransactionInfoResponse {
        try await send(Endpoints.getTransactionInfo(transactionId: try requireID(transactionId, "transaction ID")))
    }

    public func getTransactionHistory(
        anyTransactionId: String, revision: String? = nil, query: TransactionHistoryQuery = .init()
    ) async throws(APIError) -> HistoryResponse {
        try await send(Endpoints.getTransactionHistory(
            anyTransactionId: try requireID(anyTransactionId, "transaction ID"), revision: revision, query: query))
    }

    public func getTransactionHistoryV1(
        transactionId: String, revision: String? = nil, query: TransactionHistoryQuery = .init()
    ) async throws(APIError) -> HistoryResponse {
        try await send(Endpoints.getTransactionHistoryV1(
            transactionId: try requireID(transactionId, "transaction ID"), revision: revision, query: query))
    }

    /// Every page of a customer's transaction history with the same filters.
    public func transactionHistoryPages(anyTransactionId: String, query: TransactionHistoryQuery = .init()) -> PageSequence<HistoryResponse> {
        PageSequence { revision throws(APIError) in
            let page = try await self.getTransactionHistory(anyTransactionId: anyTransactionId, revision: revision, query: query)
            return (page, try nextCursor(hasMore: page.hasMore, token: page.revision, endpoint: "Get Transaction History", field: "revision"))
        }
    }

    public func getAllSubscriptionStatuses(
        anyTransactionId: String, status: [SubscriptionStatus] = []
    ) async throws(APIError) -> StatusResponse {
        try await send(Endpoints.getAllSubscriptionStatuses(
            anyTransactionId: try requireID(anyTransactionId, "transaction ID"), status: status))
    }

    public func getRefundHistory(anyTransactionId: String, revision: String? = nil) async throws(APIError) -> RefundHistoryResponse {
        try await send(Endpoints.getRefundHistory(anyTransactionId: try requireID(anyTransactionId, "transaction ID"), revision: revision))
    }

    /// Every page of a customer's refunds.
    public func refundHistoryPages(anyTransactionId: String) -> PageSequence<RefundHistoryResponse> {
        PageSequence { revision throws(APIError) in
            let page = try await self.getRefundHistory(anyTransactionId: anyTransactionId, revision: revision)
            return (page, try nextCursor(hasMore: page.hasMore, token: page.revision, endpoint: "Get Refund History", field: "revision"))
        }
    }

    public func lookUpOrderId(orderId: String) async throws(APIError) -> OrderLookupResponse {
        try await send(Endpoints.lookUpOrderId(orderId: try requireID(orderId, "order ID")))
    }

    public func extendSubscriptionRenewalDate(
        originalTransactionId: String, request: ExtendRenewalDateRequest
    ) async throws(APIError) -> ExtendRenewalDateResponse {
        try await send(Endpoints.extendSubscriptionRenewalDate(
            originalTransactionId: try requireID(originalTransactionId, "original transaction ID"), request: request))
    }

    public func extendRenewalDateForAllActiveSubscribers(
        request: MassExtendRenewalDateRequest
    ) async throws(APIError) -> MassExtendRenewalDateResponse {
        try await send(Endpoints.extendRenewalDateForAllActiveSubscribers(request: request))
    }

    public func getStatusOfSubscriptionRenewalDateExtensions(
        productId: String, requestIdentifier: String
    ) async throws(APIError) -> MassExtendRenewalDateStatusResponse {
        try await send(Endpoints.getStatusOfSubscriptionRenewalDateExtensions(
            productId: try requireID(productId, "product ID"), requestIdentifier: try requireID(requestIdentifier, "request identifier")))
    }

    public func getNotificationHistory(
        paginationToken: String? = nil, request: NotificationHistoryRequest
    ) async throws(APIError) -> NotificationHistoryResponse {
        try await send(Endpoints.getNotificationHistory(paginationToken: paginationToken, request: request))
    }

    /// Every page of notification history for the same request body.
    public func notificationHistoryPages(request: NotificationHistoryRequest) -> PageSequence<NotificationHistoryResponse> {
        PageSequence { token throws(APIError) in
            let page = try await self.getNotificationHistory(paginationToken: token, request: request)
            return (page, try nextCursor(
                hasMore: page.hasMore, token: page.paginationToken, endpoint: "Get Notification History", field: "paginationToken"))
        }
    }

    public func requestTestNotification() async throws(APIError) -> SendTestNotificationResponse {
        try await send(Endpoints.requestTestNotification())
    }

    public func getTestNotificationStatus(testNotificationToken: String) async throws(APIError) -> CheckTestNotificationResponse {
        try await send(Endpoints.getTestNotificationStatus(
            testNotificationToken: try requireID(testNotificationToken, "test notification token")))
    }

    public func sendConsumptionInformation(transactionId: String, request: ConsumptionRequest) async throws(APIError) {
        _ = try await send(Endpoints.sendConsumptionInformation(
            transactionId: try requireID(transactionId, "transaction ID"), request: request))
    }

    public func sendConsumptionInformationV1(transactionId: String, request: ConsumptionRequestV1) async throws(APIError) {
        _ = try await send(Endpoints.sendConsumptionInformationV1(
            transactionId: try requireID(transactionId, "transaction ID"), request: request))
    }

    public func setAppAccountToken(originalTransactionId: String, request: UpdateAppAccountTokenRequest) async throws(APIError) {
        _ = try await send(Endpoints.setAppAccountToken(
            originalTransactionId: try requireID(originalTransactionId, "original transaction ID"), request: request))
    }

    public func getAppTransactionInfo(anyTransactionId: String) async throws(APIError) -> AppTransactionInfoResponse {
        try await send(Endpoints.getAppTransactionInfo(anyTransactionId: try requireID(anyTransactionId, "transaction ID")))
    }

    public func finishTransaction(transactionId: String) async throws(APIError) {
        _ = try await send(Endpoints.finishTransaction(transactionId: try requireID(transactionId, "transaction ID")))
    }

    /// Trims an ID and refuses an empty one before any request is made.
    func requireID(_ value: String, _ what: String) throws(APIError) -> String {
        let trimmed = value.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !trimmed.isEmpty else { throw .invalidRequest("The \(what) is empty.") }
        guard trimmed.count <= 256, !trimmed.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
            throw .invalidRequest("The \(what) is not valid: it is too long or holds control characters.")
        }
        return trimmed
    }
}
