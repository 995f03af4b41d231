import AppStoreServerAPI
import DeskStore
import Foundation

/// What the receiver makes of a body before storing it: the signed payload found, verified with
/// every payload nested in it, and the fields the store keeps; or why it is refused. Every verdict
/// the receiver gives is worded here; `DeliveryHandler` reads the body, answers and counts.
public enum NotificationIntake {
    public struct Refused: Error, Sendable, Equatable {
        /// not-json, no-signed-payload, invalid-signature, wrong-bundle-id, ...
        public var reason: String
        /// The text answered in `{"error": ...}`.
        public var detail: String
        public var notificationUUID: String?
        public var notificationType: String?
    }

    public static func delivery(
        from body: Data, verifier: SignedDataVerifier, receivedAt: Date, remoteAddress: String?
    ) async -> Result<NotificationDelivery, Refused> {
        let signedPayload: String
        switch Self.signedPayload(in: body) {
        case .success(let jws): signedPayload = jws
        case .failure(let refused): return .failure(refused)
        }
        // Cheapest first: what the payload claims before its chain and signature, and nothing nested
        // in a notification that failed (an attacker's body should cost less than Apple's).
        let decoded = await verifier.verifyNotification(signedPayload, cheapestFirst: true)
        let payload = decoded.notification.payload
        if var refused = refusal(for: decoded) {
            refused.notificationUUID = payload?.notificationUUID
            refused.notificationType = payload?.notificationType?.rawValue
            return .failure(refused)
        }
        guard let payload, let uuid = payload.notificationUUID, !uuid.isEmpty else {
            return .failure(Refused(
                reason: "no-notification-uuid", detail: "The notification verified but carries no notificationUUID.",
                notificationType: payload?.notificationType?.rawValue))
        }
        var delivery = NotificationDelivery(notificationUUID: uuid, rawBody: body, verdict: "verified", receivedAt: receivedAt, answeredStatus: 200)
        delivery.decodedPayload = decoded.notification.rawPayload
        delivery.verdictDetail = verifiedParts(decoded)
        delivery.notificationType = payload.notificationType?.rawValue
        delivery.subtype = payload.subtype?.rawValue
        let identity = SignedDataVerifier.identity(of: payload)
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

    // MARK: Parsing

    /// The `signedPayload` string of a body: found by the scanner when it can read it exactly as the
    /// JSON parser would, by the parser otherwise.
    static func signedPayload(in data: Data) -> Result<String, Refused> {
        if let jws = SignedPayloadScanner.signedPayload(in: data) { return .success(jws) }
        guard let object = try? JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed]) else {
            return .failure(Refused(reason: "not-json", detail: "The body is not JSON."))
        }
        guard let members = object as? [String: Any] else {
            return .failure(Refused(reason: "not-json-object", detail: "The body is JSON but not an object like {\"signedPayload\": \"...\"}."))
        }
        guard let jws = members["signedPayload"] as? String, !jws.isEmpty else {
            return .failure(Refused(reason: "no-signed-payload", detail: "The body has no signedPayload string."))
        }
        return .success(jws)
    }

    // MARK: Verdicts

    /// Why a notification is refused: its own verdict first, then each nested payload's.
    static func refusal(for decoded: DecodedNotification) -> Refused? {
        let parts: [(String, VerificationStatus?)] = [
            ("notification", decoded.notification.status), ("nested transaction", decoded.transaction?.status),
            ("nested renewal info", decoded.renewalInfo?.status), ("nested app transaction", decoded.appTransaction?.status),
        ]
        for (name, status) in parts {
            switch status {
            case .verified?, nil: continue
            case .failed(let failure)?:
                let what = name == "notification" ? "The notification did not verify" : "The \(name) did not verify"
                return Refused(reason: reason(for: failure), detail: "\(what): \(failure)")
            case .notChecked(let why)?:
                return Refused(reason: "not-checked", detail: "The \(name)'s signature cannot be checked: \(why)")
            }
        }
        return nil
    }

    static func reason(for failure: VerificationFailure) -> String {
        switch failure {
        case .malformedJWS: return "malformed-jws"
        case .unsupportedAlgorithm: return "unsupported-algorithm"
        case .missingCertificateChain, .wrongChainLength, .invalidCertificate: return "bad-certificate-chain"
        case .untrustedChain: return "untrusted-chain"
        case .invalidSignature: return "invalid-signature"
        case .undecodablePayload: return "undecodable-payload"
        case .wrongBundleId: return "wrong-bundle-id"
        case .wrongAppAppleId: return "wrong-app-apple-id"
        case .wrongEnvironment: return "wrong-environment"
        }
    }

    static func verifiedParts(_ decoded: DecodedNotification) -> String {
        var parts = ["notification"]
        if decoded.transaction != nil { parts.append("transaction") }
        if decoded.renewalInfo != nil { parts.append("renewal info") }
        if decoded.appTransaction != nil { parts.append("app transaction") }
        return "Verified: " + parts.joined(separator: ", ")
    }
}

// MARK: Bodies that could not be read whole

extension NotificationIntake.Refused {
    /// The connection failed while the body arrived.
    static func unreadable(_ error: String) -> Self {
        Self(reason: "unreadable-body", detail: "The body could not be read: \(error).")
    }

    /// The body did not arrive within `timeout` of the request's first byte.
    static func readTimeout(_ timeout: Duration) -> Self {
        Self(reason: "read-timeout", detail: "The body did not arrive within \(timeout) of the request's first byte.")
    }

    /// The body is over `limit` bytes: `size` is its declared length, or what arrived before the read stopped.
    static func tooLarge(limit: Int, size: Int) -> Self {
        Self(reason: "too-large", detail: "The body is larger than \(limit) bytes (\(size) bytes or more).")
    }
}
