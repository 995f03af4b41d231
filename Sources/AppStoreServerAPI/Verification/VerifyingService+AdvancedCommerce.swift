/// An Advanced Commerce action's answer with its signed transaction and renewal info verified, as
/// every signed payload is: nil where Apple sent none (a refund answers no renewal info).
public struct VerifiedAdvancedCommerceAnswer: Sendable {
    public let transaction: VerifiedPayload<TransactionPayload>?
    public let renewal: VerifiedPayload<RenewalInfoPayload>?

    /// Every payload the answer carried verified.
    public var isVerified: Bool {
        (transaction?.status.isVerified ?? true) && (renewal?.status.isVerified ?? true)
    }
}

extension VerifyingService {
    public func advancedCommerce(_ answer: AdvancedCommerceActionResponse) async -> VerifiedAdvancedCommerceAnswer {
        var transaction: VerifiedPayload<TransactionPayload>?
        if let signed = answer.signedTransactionInfo { transaction = await self.transaction(signed) }
        var renewal: VerifiedPayload<RenewalInfoPayload>?
        if let signed = answer.signedRenewalInfo { renewal = await renewalInfo(signed) }
        return VerifiedAdvancedCommerceAnswer(transaction: transaction, renewal: renewal)
    }
}
