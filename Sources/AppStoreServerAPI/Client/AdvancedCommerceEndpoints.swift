import Foundation

// The Advanced Commerce API's six server actions. Each body carries a requestReferenceId Apple
// refuses to apply twice (4000097), so none is retried on its own: a lost answer is settled by
// running the same request again (docs/advanced-commerce.md).
extension Endpoints {
    public static func cancelAdvancedCommerceSubscription(
        transactionId: String, request: AdvancedCommerceSubscriptionCancelRequest
    ) -> Endpoint<AdvancedCommerceActionResponse> {
        .json("Cancel a Subscription", "POST", "/advancedCommerce/v1/subscription/cancel/\(pathSegment(transactionId))",
              body: encode(request), idempotent: false)
    }

    public static func revokeAdvancedCommerceSubscription(
        transactionId: String, request: AdvancedCommerceSubscriptionRevokeRequest
    ) -> Endpoint<AdvancedCommerceActionResponse> {
        .json("Revoke Subscription", "POST", "/advancedCommerce/v1/subscription/revoke/\(pathSegment(transactionId))",
              body: encode(request), idempotent: false)
    }

    public static func requestAdvancedCommerceRefund(
        transactionId: String, request: AdvancedCommerceRequestRefundRequest
    ) -> Endpoint<AdvancedCommerceActionResponse> {
        .json("Request Transaction Refund", "POST", "/advancedCommerce/v1/transaction/requestRefund/\(pathSegment(transactionId))",
              body: encode(request), idempotent: false)
    }

    public static func changeAdvancedCommerceSubscriptionMetadata(
        transactionId: String, request: AdvancedCommerceSubscriptionChangeMetadataRequest
    ) -> Endpoint<AdvancedCommerceActionResponse> {
        .json("Change Subscription Metadata", "POST", "/advancedCommerce/v1/subscription/changeMetadata/\(pathSegment(transactionId))",
              body: encode(request), idempotent: false)
    }

    public static func changeAdvancedCommerceSubscriptionPrice(
        transactionId: String, request: AdvancedCommerceSubscriptionPriceChangeRequest
    ) -> Endpoint<AdvancedCommerceActionResponse> {
        .json("Change Subscription Price", "POST", "/advancedCommerce/v1/subscription/changePrice/\(pathSegment(transactionId))",
              body: encode(request), idempotent: false)
    }

    public static func migrateToAdvancedCommerce(
        transactionId: String, request: AdvancedCommerceSubscriptionMigrateRequest
    ) -> Endpoint<AdvancedCommerceActionResponse> {
        .json("Migrate a Subscription to Advanced Commerce API", "POST",
              "/advancedCommerce/v1/subscription/migrate/\(pathSegment(transactionId))",
              body: encode(request), idempotent: false)
    }
}
