import Foundation

/// A payload type the byte reader can fill without `JSONDecoder`: each known key with the code that
/// reads its value. Decoding a signed payload costs about as much as its signature check when done
/// by JSONDecoder, so the verifier reads these first and falls back to JSONDecoder for anything else.
protocol FastJSONDecodable: Sendable {
    init()
    static var jsonFields: JSONObjectFields<Self> { get }
}

/// How to read one key's value into an object. Wrapped in a struct because a bare closure stored
/// as a collection's element is reabstracted: every call would go through a thunk and retain its context.
struct JSONField<Object>: Sendable {
    let read: @Sendable (inout JSONByteReader, inout Object) -> Bool
}

/// An object's known keys and how to read each one's value into it.
struct JSONObjectFields<Object>: Sendable {
    private let table: JSONKeyTable
    private let fields: [JSONField<Object>]

    init(_ fields: KeyValuePairs<String, JSONField<Object>>) {
        table = JSONKeyTable(fields.map(\.key))
        self.fields = fields.map(\.value)
    }

    func read(_ reader: inout JSONByteReader) -> Object? where Object: FastJSONDecodable {
        var object = Object()
        // The object goes in and out as a parameter, not captured: no dynamic exclusivity checks.
        guard reader.readObject(table, into: &object, { reader, object, index in fields[index].read(&reader, &object) }) else {
            return nil
        }
        return object
    }
}

extension FastJSONDecodable {
    /// The document as one object of this type, or nil when the fast reader is not sure of it.
    static func fastDecode(_ data: Data) -> Self? {
        data.withUnsafeBytes { raw -> Self? in
            var reader = JSONByteReader(raw.bindMemory(to: UInt8.self))
            guard let value = jsonFields.read(&reader) else { return nil }
            reader.skipWhitespace()
            guard reader.isAtEnd else { return nil }
            return value
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
        "originalTransactionId": .init { $0.read(&$1.originalTransactionId) },
        "transactionId": .init { $0.read(&$1.transactionId) },
        "webOrderLineItemId": .init { $0.read(&$1.webOrderLineItemId) },
        "bundleId": .init { $0.read(&$1.bundleId) },
        "productId": .init { $0.read(&$1.productId) },
        "subscriptionGroupIdentifier": .init { $0.read(&$1.subscriptionGroupIdentifier) },
        "purchaseDate": .init { $0.read(&$1.purchaseDate) },
        "originalPurchaseDate": .init { $0.read(&$1.originalPurchaseDate) },
        "expiresDate": .init { $0.read(&$1.expiresDate) },
        "quantity": .init { $0.read(&$1.quantity) },
        "type": .init { $0.read(&$1.type) },
        "appAccountToken": .init { $0.read(&$1.appAccountToken) },
        "inAppOwnershipType": .init { $0.read(&$1.inAppOwnershipType) },
        "signedDate": .init { $0.read(&$1.signedDate) },
        "revocationReason": .init { $0.read(&$1.revocationReason) },
        "revocationDate": .init { $0.read(&$1.revocationDate) },
        "isUpgraded": .init { $0.read(&$1.isUpgraded) },
        "offerType": .init { $0.read(&$1.offerType) },
        "offerIdentifier": .init { $0.read(&$1.offerIdentifier) },
        "environment": .init { $0.read(&$1.environment) },
        "storefront": .init { $0.read(&$1.storefront) },
        "storefrontId": .init { $0.read(&$1.storefrontId) },
        "transactionReason": .init { $0.read(&$1.transactionReason) },
        "currency": .init { $0.read(&$1.currency) },
        "price": .init { $0.read(&$1.price) },
        "offerDiscountType": .init { $0.read(&$1.offerDiscountType) },
        "appTransactionId": .init { $0.read(&$1.appTransactionId) },
        "offerPeriod": .init { $0.read(&$1.offerPeriod) },
        "revocationType": .init { $0.read(&$1.revocationType) },
        "revocationPercentage": .init { $0.read(&$1.revocationPercentage) },
        "advancedCommerceInfo": .init { reader, _ in reader.unsupported() },
        "billingPlanType": .init { $0.read(&$1.billingPlanType) },
        "commitmentInfo": .init { reader, _ in reader.unsupported() },
        "previousOriginalTransactionId": .init { $0.read(&$1.previousOriginalTransactionId) },
    ])
}

extension RenewalInfoPayload: FastJSONDecodable {
    static let jsonFields = JSONObjectFields<RenewalInfoPayload>([
        "expirationIntent": .init { $0.read(&$1.expirationIntent) },
        "originalTransactionId": .init { $0.read(&$1.originalTransactionId) },
        "autoRenewProductId": .init { $0.read(&$1.autoRenewProductId) },
        "productId": .init { $0.read(&$1.productId) },
        "autoRenewStatus": .init { $0.read(&$1.autoRenewStatus) },
        "isInBillingRetryPeriod": .init { $0.read(&$1.isInBillingRetryPeriod) },
        "priceIncreaseStatus": .init { $0.read(&$1.priceIncreaseStatus) },
        "gracePeriodExpiresDate": .init { $0.read(&$1.gracePeriodExpiresDate) },
        "offerType": .init { $0.read(&$1.offerType) },
        "offerIdentifier": .init { $0.read(&$1.offerIdentifier) },
        "signedDate": .init { $0.read(&$1.signedDate) },
        "environment": .init { $0.read(&$1.environment) },
        "recentSubscriptionStartDate": .init { $0.read(&$1.recentSubscriptionStartDate) },
        "renewalDate": .init { $0.read(&$1.renewalDate) },
        "currency": .init { $0.read(&$1.currency) },
        "renewalPrice": .init { $0.read(&$1.renewalPrice) },
        "offerDiscountType": .init { $0.read(&$1.offerDiscountType) },
        "eligibleWinBackOfferIds": .init { $0.read(&$1.eligibleWinBackOfferIds) },
        "appAccountToken": .init { $0.read(&$1.appAccountToken) },
        "appTransactionId": .init { $0.read(&$1.appTransactionId) },
        "offerPeriod": .init { $0.read(&$1.offerPeriod) },
        "advancedCommerceInfo": .init { reader, _ in reader.unsupported() },
        "commitmentInfo": .init { reader, _ in reader.unsupported() },
        "renewalBillingPlanType": .init { $0.read(&$1.renewalBillingPlanType) },
    ])
}

extension AppTransactionPayload: FastJSONDecodable {
    static let jsonFields = JSONObjectFields<AppTransactionPayload>([
        "receiptType": .init { $0.read(&$1.receiptType) },
        "appAppleId": .init { $0.read(&$1.appAppleId) },
        "bundleId": .init { $0.read(&$1.bundleId) },
        "applicationVersion": .init { $0.read(&$1.applicationVersion) },
        "versionExternalIdentifier": .init { $0.read(&$1.versionExternalIdentifier) },
        "receiptCreationDate": .init { $0.read(&$1.receiptCreationDate) },
        "originalPurchaseDate": .init { $0.read(&$1.originalPurchaseDate) },
        "originalApplicationVersion": .init { $0.read(&$1.originalApplicationVersion) },
        "deviceVerification": .init { $0.read(&$1.deviceVerification) },
        "deviceVerificationNonce": .init { $0.read(&$1.deviceVerificationNonce) },
        "preorderDate": .init { $0.read(&$1.preorderDate) },
        "appTransactionId": .init { $0.read(&$1.appTransactionId) },
        "originalPlatform": .init { $0.read(&$1.originalPlatform) },
    ])
}

extension NotificationPayload: FastJSONDecodable {
    static let jsonFields = JSONObjectFields<NotificationPayload>([
        "notificationType": .init { $0.read(&$1.notificationType) },
        "subtype": .init { $0.read(&$1.subtype) },
        "notificationUUID": .init { $0.read(&$1.notificationUUID) },
        "data": .init { $0.read(&$1.data) },
        "version": .init { $0.read(&$1.version) },
        "signedDate": .init { $0.read(&$1.signedDate) },
        "summary": .init { $0.read(&$1.summary) },
        "externalPurchaseToken": .init { $0.read(&$1.externalPurchaseToken) },
        "appData": .init { $0.read(&$1.appData) },
    ])
}

extension NotificationData: FastJSONDecodable {
    static let jsonFields = JSONObjectFields<NotificationData>([
        "environment": .init { $0.read(&$1.environment) },
        "appAppleId": .init { $0.read(&$1.appAppleId) },
        "bundleId": .init { $0.read(&$1.bundleId) },
        "bundleVersion": .init { $0.read(&$1.bundleVersion) },
        "signedTransactionInfo": .init { $0.read(&$1.signedTransactionInfo) },
        "signedRenewalInfo": .init { $0.read(&$1.signedRenewalInfo) },
        "status": .init { $0.read(&$1.status) },
        "consumptionRequestReason": .init { $0.read(&$1.consumptionRequestReason) },
    ])
}

extension NotificationSummary: FastJSONDecodable {
    static let jsonFields = JSONObjectFields<NotificationSummary>([
        "environment": .init { $0.read(&$1.environment) },
        "appAppleId": .init { $0.read(&$1.appAppleId) },
        "bundleId": .init { $0.read(&$1.bundleId) },
        "productId": .init { $0.read(&$1.productId) },
        "requestIdentifier": .init { $0.read(&$1.requestIdentifier) },
        "storefrontCountryCodes": .init { $0.read(&$1.storefrontCountryCodes) },
        "succeededCount": .init { $0.read(&$1.succeededCount) },
        "failedCount": .init { $0.read(&$1.failedCount) },
    ])
}

extension ExternalPurchaseToken: FastJSONDecodable {
    static let jsonFields = JSONObjectFields<ExternalPurchaseToken>([
        "externalPurchaseId": .init { $0.read(&$1.externalPurchaseId) },
        "tokenCreationDate": .init { $0.read(&$1.tokenCreationDate) },
        "appAppleId": .init { $0.read(&$1.appAppleId) },
        "bundleId": .init { $0.read(&$1.bundleId) },
        "tokenType": .init { $0.read(&$1.tokenType) },
        "tokenExpirationDate": .init { $0.read(&$1.tokenExpirationDate) },
    ])
}

extension NotificationAppData: FastJSONDecodable {
    static let jsonFields = JSONObjectFields<NotificationAppData>([
        "appAppleId": .init { $0.read(&$1.appAppleId) },
        "bundleId": .init { $0.read(&$1.bundleId) },
        "environment": .init { $0.read(&$1.environment) },
        "signedAppTransactionInfo": .init { $0.read(&$1.signedAppTransactionInfo) },
    ])
}

/// A JWS header not seen before is read by the byte reader too: a forged body under a header of its
/// own should not cost a JSONDecoder.
extension JWSHeader: FastJSONDecodable {
    init() {
        self.init(alg: nil, x5c: nil, kid: nil, typ: nil)
    }

    static let jsonFields = JSONObjectFields<JWSHeader>([
        "alg": .init { $0.read(&$1.alg) },
        "x5c": .init { $0.read(&$1.x5c) },
        "kid": .init { $0.read(&$1.kid) },
        "typ": .init { $0.read(&$1.typ) },
    ])
}

extension RealtimeRequestPayload: FastJSONDecodable {
    static let jsonFields = JSONObjectFields<RealtimeRequestPayload>([
        "originalTransactionId": .init { $0.read(&$1.originalTransactionId) },
        "appAppleId": .init { $0.read(&$1.appAppleId) },
        "productId": .init { $0.read(&$1.productId) },
        "userLocale": .init { $0.read(&$1.userLocale) },
        "requestIdentifier": .init { $0.read(&$1.requestIdentifier) },
        "signedDate": .init { $0.read(&$1.signedDate) },
        "environment": .init { $0.read(&$1.environment) },
    ])
}
