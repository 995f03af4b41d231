import AppStoreServerAPI
import DeskStore
import Foundation

/// What the receiver makes of a body before storing it: the signed payload found, verified with
/// every payload nested in it, and the fields the store keeps; or why it is refused.
public enum NotificationIntake {
    public struct Refused: Error, Sendable, Equatable {
        /// not-json, no-signed-payload, invalid-signature, wrong-bundle-id, ...
        public var reason: String
        public var detail: String
        public var notificationUUID: String?
        public var notificationType: String?
    }

    public static func delivery(
        from body: Data, verifier: SignedDataVerifier, receivedAt: Date, remoteAddress: String?
    ) async -> Result<NotificationDelivery, Refused> {
        let signedPayload: String
        switch DeliveryHandler.signedPayload(in: body) {
        case .success(let jws): signedPayload = jws
        case .failure(let refusal): return .failure(Refused(reason: refusal.reason, detail: refusal.detail))
        }
        // Cheapest first: what the payload claims before its chain and signature, and nothing nested
        // in a notification that failed (an attacker's body should cost less than Apple's).
        let decoded = await verifier.verifyNotification(signedPayload, cheapestFirst: true)
        let payload = decoded.notification.payload
        if let refusal = DeliveryHandler.refusal(for: decoded) {
            return .failure(Refused(
                reason: refusal.reason, detail: refusal.detail, notificationUUID: payload?.notificationUUID, notificationType: payload?.notificationType?.rawValue))
        }
        guard let payload, let uuid = payload.notificationUUID, !uuid.isEmpty else {
            return .failure(Refused(
                reason: "no-notification-uuid", detail: "The notification verified but carries no notificationUUID.",
                notificationType: payload?.notificationType?.rawValue))
        }
        var delivery = NotificationDelivery(notificationUUID: uuid, rawBody: body, verdict: "verified", receivedAt: receivedAt, answeredStatus: 200)
        delivery.decodedPayload = decoded.notification.rawPayload
        delivery.verdictDetail = DeliveryHandler.verifiedParts(decoded)
        delivery.notificationType = payload.notificationType?.rawValue
        delivery.subtype = payload.subtype?.rawValue
        let identity = DeliveryHandler.identity(of: payload)
        delivery.environment = identity.environment?.rawValue
        delivery.bundleId = identity.bundleId
        delivery.appAppleId = identity.appAppleId
        let transaction = decoded.transaction?.payload
        let renewal = decoded.renewalInfo?.payload
        delivery.transactionId = transaction?.transactionId
        delivery.originalTransactionId = transaction?.originalTransactionId ?? renewal?.originalTransactionId
        delivery.productId = transaction?.productId ?? renewal?.productId ?? payload.summary?.productId
        delivery.signedDate = payload.signedDate
        delivery.appAccountToken = transaction?.appAccountToken ?? renewal?.appAccountToken
        delivery.appTransactionId = transaction?.appTransactionId ?? renewal?.appTransactionId
        delivery.remoteAddress = remoteAddress
        return .success(delivery)
    }
}
