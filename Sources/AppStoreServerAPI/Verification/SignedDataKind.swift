import Foundation

/// Any App Store JWS, recognised by its payload's fields and verified as that kind.
public enum DecodedSignedData: Sendable {
    case notification(DecodedNotification)
    case transaction(VerifiedPayload<TransactionPayload>)
    case renewalInfo(VerifiedPayload<RenewalInfoPayload>)
    case appTransaction(VerifiedPayload<AppTransactionPayload>)
    /// Not a JWS, or a payload of no App Store kind.
    case unrecognised(String)

    public var kindName: String {
        switch self {
        case .notification: return "notification"
        case .transaction: return "transaction"
        case .renewalInfo: return "renewal info"
        case .appTransaction: return "app transaction"
        case .unrecognised: return "unrecognised"
        }
    }
}

extension SignedDataVerifier {
    /// Works out what a pasted JWS holds (notification, transaction, renewal info or app transaction)
    /// and verifies it as such.
    public func verifyAny(_ text: String) async -> DecodedSignedData {
        let jws: CompactJWS
        let tree: JSONValue
        do {
            jws = try CompactJWS(text)
            tree = try JSONValue.parse(try jws.payloadData())
        } catch let failure as VerificationFailure {
            return .unrecognised(failure.description)
        } catch {
            return .unrecognised("The payload is not JSON: \(error).")
        }
        guard case .object = tree else { return .unrecognised("The payload is not a JSON object.") }
        if tree["notificationType"] != nil || tree["notificationUUID"] != nil {
            return .notification(await verifyNotification(jws.text))
        }
        if tree["receiptType"] != nil || (tree["appTransactionId"] != nil && tree["transactionId"] == nil
            && tree["autoRenewStatus"] == nil && tree["originalTransactionId"] == nil) {
            return .appTransaction(await verifyAppTransaction(jws.text))
        }
        if tree["transactionId"] != nil || tree["purchaseDate"] != nil || tree["bundleId"] != nil {
            return .transaction(await verifyTransaction(jws.text))
        }
        if tree["autoRenewStatus"] != nil || tree["autoRenewProductId"] != nil || tree["renewalDate"] != nil
            || tree["originalTransactionId"] != nil || tree["signedDate"] != nil {
            return .renewalInfo(await verifyRenewalInfo(jws.text))
        }
        return .unrecognised("The payload has none of the fields of an App Store notification, transaction, renewal info or app transaction.")
    }
}
