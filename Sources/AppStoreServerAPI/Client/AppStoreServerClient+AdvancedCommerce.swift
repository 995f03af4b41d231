import Foundation

// The Advanced Commerce API's server actions, one typed method each. A body over Apple's limits is
// refused before any request is made, with every problem named.
extension AppStoreServerClient {
    public func cancelAdvancedCommerceSubscription(
        transactionId: String, request: AdvancedCommerceSubscriptionCancelRequest
    ) async throws(APIError) -> AdvancedCommerceActionResponse {
        try await send(Endpoints.cancelAdvancedCommerceSubscription(transactionId: try checked(transactionId, request), request: request))
    }

    public func revokeAdvancedCommerceSubscription(
        transactionId: String, request: AdvancedCommerceSubscriptionRevokeRequest
    ) async throws(APIError) -> AdvancedCommerceActionResponse {
        try await send(Endpoints.revokeAdvancedCommerceSubscription(transactionId: try checked(transactionId, request), request: request))
    }

    public func requestAdvancedCommerceRefund(
        transactionId: String, request: AdvancedCommerceRequestRefundRequest
    ) async throws(APIError) -> AdvancedCommerceActionResponse {
        try await send(Endpoints.requestAdvancedCommerceRefund(transactionId: try checked(transactionId, request), request: request))
    }

    public func changeAdvancedCommerceSubscriptionMetadata(
        transactionId: String, request: AdvancedCommerceSubscriptionChangeMetadataRequest
    ) async throws(APIError) -> AdvancedCommerceActionResponse {
        try await send(Endpoints.changeAdvancedCommerceSubscriptionMetadata(transactionId: try checked(transactionId, request), request: request))
    }

    public func changeAdvancedCommerceSubscriptionPrice(
        transactionId: String, request: AdvancedCommerceSubscriptionPriceChangeRequest
    ) async throws(APIError) -> AdvancedCommerceActionResponse {
        try await send(Endpoints.changeAdvancedCommerceSubscriptionPrice(transactionId: try checked(transactionId, request), request: request))
    }

    public func migrateToAdvancedCommerce(
        transactionId: String, request: AdvancedCommerceSubscriptionMigrateRequest
    ) async throws(APIError) -> AdvancedCommerceActionResponse {
        try await send(Endpoints.migrateToAdvancedCommerce(transactionId: try checked(transactionId, request), request: request))
    }

    /// The transaction ID trimmed, once it and the body are known to be sendable.
    private func checked(_ transactionId: String, _ request: some AdvancedCommerceCheckable) throws(APIError) -> String {
        let id = try requireID(transactionId, "transaction ID")
        let problems = AdvancedCommerceLimits.problems(request)
        guard problems.isEmpty else { throw .invalidRequest("Not sent: " + problems.joined(separator: "; ") + ".") }
        return id
    }
}
