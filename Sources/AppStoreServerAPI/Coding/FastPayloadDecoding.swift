import Foundation

/// A payload type the byte reader can fill without `JSONDecoder`: each known key with the code that
/// reads its value. Decoding a signed payload costs about as much as its signature check when done
/// by JSONDecoder, so the verifier reads these first and falls back to JSONDecoder for anything else.
protocol FastJSONDecodable: Sendable {
    init()
    static var jsonFields: JSONObjectFields<Self> { get }
}

/// An object's known keys and how to read each one's value into it.
struct JSONObjectFields<Object>: Sendable {
    typealias Read = @Sendable (inout JSONByteReader, inout Object) -> Bool
    private let table: JSONKeyTable
    private let reads: [Read]

    init(_ fields: KeyValuePairs<String, Read>) {
        table = JSONKeyTable(fields.map(\.key))
        reads = fields.map(\.value)
    }

    func read(_ reader: inout JSONByteReader) -> Object? where Object: FastJSONDecodable {
        var object = Object()
        // The object goes in and out as a parameter, not captured: no dynamic exclusivity checks.
        let complete = reader.readObject(table, into: &object) { reader, object, index in reads[index](&reader, &object) }
        return complete ? object : nil
    }
}

extension FastJSONDecodable {
    /// The document as one object of this type, or nil when the fast reader is not sure of it.
    static func fastDecode(_ data: Data) -> Self? {
        data.withUnsafeBytes { raw -> Self? in
            var reader = JSONByteReader(raw.bindMemory(to: UInt8.self))
            guard let value = jsonFields.read(&reader) else { return nil }
            reader.skipWhitespace()
            return reader.isAtEnd ? value : nil
        }
    }
}

extension AppStoreJSON {
    /// Decodes a signed payload: by the byte reader when it reads the whole document, otherwise
    /// (and for every error) by `decode`.
    static func decodePayload<T: FastJSONDecodable & Decodable>(_ type: T.Type, from data: Data) throws(JSONDecodeFailure) -> T {
        if let value = T.fastDecode(data) { return value }
        return try decode(type, from: data)
    }
}

// MARK: Values as the models type them

extension JSONByteReader {
    mutating func read(_ value: inout String?) -> Bool {
        guard let read = readString() else { return false }
        value = read
        return true
    }

    mutating func read(_ value: inout [String]?) -> Bool {
        guard let read = readStringArray() else { return false }
        value = read
        return true
    }

    mutating func read(_ value: inout Bool?) -> Bool {
        guard let read = readBool() else { return false }
        value = read
        return true
    }

    mutating func read(_ value: inout Int64?) -> Bool {
        guard let read = readInteger() else { return false }
        value = read
        return true
    }

    mutating func read(_ value: inout Int32?) -> Bool {
        guard let read = readInteger(), let narrow = Int32(exactly: read) else { return false }
        value = narrow
        return true
    }

    /// Epoch milliseconds, checked as `AppStoreJSON.decoder()` checks them.
    mutating func read(_ value: inout Date?) -> Bool {
        guard let read = readInteger(), let date = Date(checkedEpochMilliseconds: Double(read)) else { return false }
        value = date
        return true
    }

    mutating func read<E: OpenEnum>(_ value: inout E?) -> Bool where E.RawValue == String {
        guard let read = readString() else { return false }
        value = E(read)
        return true
    }

    mutating func read<E: OpenEnum>(_ value: inout E?) -> Bool where E.RawValue == Int {
        guard let read = readInteger(), let raw = Int(exactly: read) else { return false }
        value = E(raw)
        return true
    }

    mutating func read<T: FastJSONDecodable>(_ value: inout T?) -> Bool {
        guard let read = T.jsonFields.read(&self) else { return false }
        value = read
        return true
    }

    /// A nested type the fast reader does not cover: any value but null sends the document to JSONDecoder.
    mutating func unsupported() -> Bool { false }
}

// MARK: The payloads

extension TransactionPayload: FastJSONDecodable {
    static let jsonFields = JSONObjectFields<TransactionPayload>([
        "originalTransactionId": { $0.read(&$1.originalTransactionId) },
        "transactionId": { $0.read(&$1.transactionId) },
        "webOrderLineItemId": { $0.read(&$1.webOrderLineItemId) },
        "bundleId": { $0.read(&$1.bundleId) },
        "productId": { $0.read(&$1.productId) },
        "subscriptionGroupIdentifier": { $0.read(&$1.subscriptionGroupIdentifier) },
        "purchaseDate": { $0.read(&$1.purchaseDate) },
        "originalPurchaseDate": { $0.read(&$1.originalPurchaseDate) },
        "expiresDate": { $0.read(&$1.expiresDate) },
        "quantity": { $0.read(&$1.quantity) },
        "type": { $0.read(&$1.type) },
        "appAccountToken": { $0.read(&$1.appAccountToken) },
        "inAppOwnershipType": { $0.read(&$1.inAppOwnershipType) },
        "signedDate": { $0.read(&$1.signedDate) },
        "revocationReason": { $0.read(&$1.revocationReason) },
        "revocationDate": { $0.read(&$1.revocationDate) },
        "isUpgraded": { $0.read(&$1.isUpgraded) },
        "offerType": { $0.read(&$1.offerType) },
        "offerIdentifier": { $0.read(&$1.offerIdentifier) },
        "environment": { $0.read(&$1.environment) },
        "storefront": { $0.read(&$1.storefront) },
        "storefrontId": { $0.read(&$1.storefrontId) },
        "transactionReason": { $0.read(&$1.transactionReason) },
        "currency": { $0.read(&$1.currency) },
        "price": { $0.read(&$1.price) },
        "offerDiscountType": { $0.read(&$1.offerDiscountType) },
        "appTransactionId": { $0.read(&$1.appTransactionId) },
        "offerPeriod": { $0.read(&$1.offerPeriod) },
        "revocationType": { $0.read(&$1.revocationType) },
        "revocationPercentage": { $0.read(&$1.revocationPercentage) },
        "advancedCommerceInfo": { reader, _ in reader.unsupported() },
        "billingPlanType": { $0.read(&$1.billingPlanType) },
        "commitmentInfo": { reader, _ in reader.unsupported() },
        "previousOriginalTransactionId": { $0.read(&$1.previousOriginalTransactionId) },
    ])
}

extension RenewalInfoPayload: FastJSONDecodable {
    static let jsonFields = JSONObjectFields<RenewalInfoPayload>([
        "expirationIntent": { $0.read(&$1.expirationIntent) },
        "originalTransactionId": { $0.read(&$1.originalTransactionId) },
        "autoRenewProductId": { $0.read(&$1.autoRenewProductId) },
        "productId": { $0.read(&$1.productId) },
        "autoRenewStatus": { $0.read(&$1.autoRenewStatus) },
        "isInBillingRetryPeriod": { $0.read(&$1.isInBillingRetryPeriod) },
        "priceIncreaseStatus": { $0.read(&$1.priceIncreaseStatus) },
        "gracePeriodExpiresDate": { $0.read(&$1.gracePeriodExpiresDate) },
        "offerType": { $0.read(&$1.offerType) },
        "offerIdentifier": { $0.read(&$1.offerIdentifier) },
        "signedDate": { $0.read(&$1.signedDate) },
        "environment": { $0.read(&$1.environment) },
        "recentSubscriptionStartDate": { $0.read(&$1.recentSubscriptionStartDate) },
        "renewalDate": { $0.read(&$1.renewalDate) },
        "currency": { $0.read(&$1.currency) },
        "renewalPrice": { $0.read(&$1.renewalPrice) },
        "offerDiscountType": { $0.read(&$1.offerDiscountType) },
        "eligibleWinBackOfferIds": { $0.read(&$1.eligibleWinBackOfferIds) },
        "appAccountToken": { $0.read(&$1.appAccountToken) },
        "appTransactionId": { $0.read(&$1.appTransactionId) },
        "offerPeriod": { $0.read(&$1.offerPeriod) },
        "advancedCommerceInfo": { reader, _ in reader.unsupported() },
        "commitmentInfo": { reader, _ in reader.unsupported() },
        "renewalBillingPlanType": { $0.read(&$1.renewalBillingPlanType) },
    ])
}

extension AppTransactionPayload: FastJSONDecodable {
    static let jsonFields = JSONObjectFields<AppTransactionPayload>([
        "receiptType": { $0.read(&$1.receiptType) },
        "appAppleId": { $0.read(&$1.appAppleId) },
        "bundleId": { $0.read(&$1.bundleId) },
        "applicationVersion": { $0.read(&$1.applicationVersion) },
        "versionExternalIdentifier": { $0.read(&$1.versionExternalIdentifier) },
        "receiptCreationDate": { $0.read(&$1.receiptCreationDate) },
        "originalPurchaseDate": { $0.read(&$1.originalPurchaseDate) },
        "originalApplicationVersion": { $0.read(&$1.originalApplicationVersion) },
        "deviceVerification": { $0.read(&$1.deviceVerification) },
        "deviceVerificationNonce": { $0.read(&$1.deviceVerificationNonce) },
        "preorderDate": { $0.read(&$1.preorderDate) },
        "appTransactionId": { $0.read(&$1.appTransactionId) },
        "originalPlatform": { $0.read(&$1.originalPlatform) },
    ])
}

extension NotificationPayload: FastJSONDecodable {
    static let jsonFields = JSONObjectFields<NotificationPayload>([
        "notificationType": { $0.read(&$1.notificationType) },
        "subtype": { $0.read(&$1.subtype) },
        "notificationUUID": { $0.read(&$1.notificationUUID) },
        "data": { $0.read(&$1.data) },
        "version": { $0.read(&$1.version) },
        "signedDate": { $0.read(&$1.signedDate) },
        "summary": { $0.read(&$1.summary) },
        "externalPurchaseToken": { $0.read(&$1.externalPurchaseToken) },
        "appData": { $0.read(&$1.appData) },
    ])
}

extension NotificationData: FastJSONDecodable {
    static let jsonFields = JSONObjectFields<NotificationData>([
        "environment": { $0.read(&$1.environment) },
        "appAppleId": { $0.read(&$1.appAppleId) },
        "bundleId": { $0.read(&$1.bundleId) },
        "bundleVersion": { $0.read(&$1.bundleVersion) },
        "signedTransactionInfo": { $0.read(&$1.signedTransactionInfo) },
        "signedRenewalInfo": { $0.read(&$1.signedRenewalInfo) },
        "status": { $0.read(&$1.status) },
        "consumptionRequestReason": { $0.read(&$1.consumptionRequestReason) },
    ])
}

extension NotificationSummary: FastJSONDecodable {
    static let jsonFields = JSONObjectFields<NotificationSummary>([
        "environment": { $0.read(&$1.environment) },
        "appAppleId": { $0.read(&$1.appAppleId) },
        "bundleId": { $0.read(&$1.bundleId) },
        "productId": { $0.read(&$1.productId) },
        "requestIdentifier": { $0.read(&$1.requestIdentifier) },
        "storefrontCountryCodes": { $0.read(&$1.storefrontCountryCodes) },
        "succeededCount": { $0.read(&$1.succeededCount) },
        "failedCount": { $0.read(&$1.failedCount) },
    ])
}

extension ExternalPurchaseToken: FastJSONDecodable {
    static let jsonFields = JSONObjectFields<ExternalPurchaseToken>([
        "externalPurchaseId": { $0.read(&$1.externalPurchaseId) },
        "tokenCreationDate": { $0.read(&$1.tokenCreationDate) },
        "appAppleId": { $0.read(&$1.appAppleId) },
        "bundleId": { $0.read(&$1.bundleId) },
        "tokenType": { $0.read(&$1.tokenType) },
        "tokenExpirationDate": { $0.read(&$1.tokenExpirationDate) },
    ])
}

extension NotificationAppData: FastJSONDecodable {
    static let jsonFields = JSONObjectFields<NotificationAppData>([
        "appAppleId": { $0.read(&$1.appAppleId) },
        "bundleId": { $0.read(&$1.bundleId) },
        "environment": { $0.read(&$1.environment) },
        "signedAppTransactionInfo": { $0.read(&$1.signedAppTransactionInfo) },
    ])
}
