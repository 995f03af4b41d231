import AppStoreServerAPI
import DeskStore
import Foundation

extension RefundRequests.Sighting {
    /// A notification the receiver stored (verified when it arrived), as the refund queue and the
    /// policy read it; nil for one that did not verify or has no payload.
    public init?(stored: StoredNotification) {
        guard stored.verdict == "verified", let payload = stored.decodedPayload,
              let object = try? JSONSerialization.jsonObject(with: payload) as? [String: Any],
              let data = object["data"] as? [String: Any]
        else { return nil }
        let transaction = (data["signedTransactionInfo"] as? String).flatMap {
            SignedDataInspector.decodeUnverified($0, as: TransactionPayload.self, reason: "verified on arrival").payload
        }
        self.init(
            notificationUUID: stored.notificationUUID, type: stored.notificationType.map(NotificationType.init),
            signedDate: stored.signedDate ?? stored.firstReceivedAt, transaction: transaction,
            reason: (data["consumptionRequestReason"] as? String).map(ConsumptionRequestReason.init), environment: stored.environment,
            fromApple: false)
    }
}

extension RefundPolicyCase {
    /// The refund request a stored CONSUMPTION_REQUEST is, with its transaction; nil for any other notification.
    public init?(stored: StoredNotification) {
        guard let sighting = RefundRequests.Sighting(stored: stored), sighting.type == .consumptionRequest,
              let request = RefundRequests.merge([sighting], writes: []).first
        else { return nil }
        self.init(request: request, transaction: sighting.transaction)
    }
}
