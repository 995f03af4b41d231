import Foundation

/// A legacy app receipt (the file at StoreKit's `appStoreReceiptURL`, sent base64 to servers and
/// kept in older apps' logs) as read by `AppReceiptReader`: the app's fields and each in-app
/// purchase receipt, named and typed as Apple's receipt fields are (ASN.1 field types 0-21 and
/// 1701-1721).
///
/// Read, not validated: the PKCS#7 signature and Apple's certificate are not checked (Apple
/// deprecated on-device receipt validation); what the receipt gives is the transaction IDs to
/// look up, and the lookup verifies what Apple answers.
public struct AppReceipt: Sendable, Equatable {
    /// Field 0 (undocumented; "Production", "ProductionSandbox", "Xcode").
    public var receiptType: String?
    /// Field 1 (undocumented): the app's Apple ID; 0 outside the App Store.
    public var appItemId: Int64?
    /// Field 2.
    public var bundleId: String?
    /// Field 3: the app version the receipt was made for (CFBundleVersion).
    public var applicationVersion: String?
    /// Field 4: the opaque value the device hash is computed with.
    public var opaqueValue: Data?
    /// Field 5: the SHA-1 hash checked by on-device validation.
    public var sha1Hash: Data?
    /// Field 12.
    public var creationDate: Date?
    /// Field 18 (undocumented): when the customer first got the app.
    public var originalPurchaseDate: Date?
    /// Field 19: the app version the customer first got.
    public var originalApplicationVersion: String?
    /// Field 21: only in Volume Purchase Program receipts.
    public var expirationDate: Date?
    /// Field 17, one for each in-app purchase the receipt lists.
    public var inAppPurchases: [InAppPurchaseReceipt] = []
    /// Field types present that are not read here, in order.
    public var otherFieldTypes: [Int] = []
    /// Fields that were present but not of their documented type: named, and left out.
    public var problems: [String] = []
    /// What the PKCS#7 container holds beside the receipt (not checked).
    public var certificateCount = 0
    public var signerCount = 0

    public init() {}

    /// The transaction IDs to look up: each in-app purchase's, newest purchase first.
    public var newestFirst: [InAppPurchaseReceipt] {
        inAppPurchases.sorted { ($0.purchaseDate ?? .distantPast) > ($1.purchaseDate ?? .distantPast) }
    }

    /// The original transaction IDs, each once, the most recently bought first: the customers'
    /// subscriptions and purchases to look up.
    public var originalTransactionIds: [String] {
        var seen = Set<String>()
        return newestFirst.compactMap { $0.originalTransactionId ?? $0.transactionId }.filter { seen.insert($0).inserted }
    }
}

/// One in-app purchase receipt (field 17 of the app receipt).
public struct InAppPurchaseReceipt: Sendable, Equatable {
    /// 1701.
    public var quantity: Int64?
    /// 1702.
    public var productId: String?
    /// 1703.
    public var transactionId: String?
    /// 1704.
    public var purchaseDate: Date?
    /// 1705.
    public var originalTransactionId: String?
    /// 1706.
    public var originalPurchaseDate: Date?
    /// 1708: auto-renewable subscriptions.
    public var expiresDate: Date?
    /// 1711: auto-renewable subscriptions; Apple's JSON gives it as a string.
    public var webOrderLineItemId: String?
    /// 1712: set when Apple refunded or revoked the purchase.
    public var cancellationDate: Date?
    /// 1713: 1 in a free trial.
    public var isTrialPeriod: Bool?
    /// 1719: 1 in an introductory price period.
    public var isInIntroOfferPeriod: Bool?
    /// 1721: the promotional offer the purchase used.
    public var promotionalOfferId: String?
    /// Field types present that are not read here.
    public var otherFieldTypes: [Int] = []

    public init() {}
}
