import Foundation

/// Any App Store JWS, recognised by its payload's fields and verified as that kind.
public enum DecodedSignedData: Sendable {
    case notification(DecodedNotification)
    case transaction(VerifiedPayload<TransactionPayload>)
    case renewalInfo(VerifiedPayload<RenewalInfoPayload>)
    case appTransaction(VerifiedPayload<AppTransactionPayload>)
    /// What Apple POSTs to a Retention Messaging realtime URL.
    case realtimeRequest(VerifiedPayload<RealtimeRequestPayload>)
    /// Not a JWS, or a payload of no App Store kind.
    case unrecognised(String)

    public var kindName: String {
        switch self {
        case .notification: return "notification"
        case .transaction: return "transaction"
        case .renewalInfo: return "renewal info"
        case .appTransaction: return "app transaction"
        case .realtimeRequest: return "real-time request"
        case .unrecognised: return "unrecognised"
        }
    }
}

/// One signed payload of a result, the same for every kind: where it sits, what it is, its verdict.
public struct VerifiedPart: Sendable {
    /// Where the payload sits in the data it came with ("data.signedTransactionInfo"), empty for the data itself.
    public let path: String
    public let kind: String
    public let status: VerificationStatus
    public let checks: [VerificationCheck]
    /// The payload's JSON exactly as signed, when it could be read.
    public let rawPayload: Data?

    public init(path: String, kind: String, status: VerificationStatus, checks: [VerificationCheck], rawPayload: Data?) {
        self.path = path
        self.kind = kind
        self.status = status
        self.checks = checks
        self.rawPayload = rawPayload
    }

    public init<Payload>(path: String, kind: String, _ verified: VerifiedPayload<Payload>) {
        self.init(path: path, kind: kind, status: verified.status, checks: verified.checks, rawPayload: verified.rawPayload)
    }

    /// The same part, placed under `outer` in the data it came with.
    func located(under outer: String) -> VerifiedPart {
        VerifiedPart(path: path.isEmpty ? outer : outer + " → " + path, kind: kind, status: status, checks: checks, rawPayload: rawPayload)
    }

    public var headline: String { VerificationCheck.headline(status, checks) }
    public var verdict: String { VerificationCheck.verdict(status, checks) }
}

extension DecodedSignedData {
    /// The payload, then each payload nested in it, each with its own verdict.
    public var parts: [VerifiedPart] {
        switch self {
        case .notification(let n): return n.parts
        case .transaction(let t): return [VerifiedPart(path: "", kind: kindName, t)]
        case .renewalInfo(let r): return [VerifiedPart(path: "", kind: kindName, r)]
        case .appTransaction(let a): return [VerifiedPart(path: "", kind: kindName, a)]
        case .realtimeRequest(let r): return [VerifiedPart(path: "", kind: kindName, r)]
        case .unrecognised: return []
        }
    }
}

extension DecodedNotification {
    public var parts: [VerifiedPart] {
        var parts = [VerifiedPart(path: "", kind: "notification", notification)]
        if let transaction { parts.append(VerifiedPart(path: "data.signedTransactionInfo", kind: "transaction", transaction)) }
        if let renewalInfo { parts.append(VerifiedPart(path: "data.signedRenewalInfo", kind: "renewal info", renewalInfo)) }
        if let appTransaction { parts.append(VerifiedPart(path: "appData.signedAppTransactionInfo", kind: "app transaction", appTransaction)) }
        return parts
    }
}

extension SignedDataVerifier {
    /// Works out what a pasted JWS holds (notification, transaction, renewal info, app transaction or
    /// a Retention Messaging real-time request)
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
        // A real-time request carries a user locale and a request identifier, which no transaction or renewal info does.
        if tree["userLocale"] != nil || (tree["requestIdentifier"] != nil && tree["originalTransactionId"] != nil && tree["transactionId"] == nil) {
            return .realtimeRequest(await verifyRealtimeRequest(jws.text))
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
        return .unrecognised(
            "The payload has none of the fields of an App Store notification, transaction, renewal info, app transaction or real-time request.")
    }
}
