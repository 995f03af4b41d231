import AppStoreServerAPI
import DeskCore
import Foundation

/// Signed records as table cells and fields, with their verification always alongside (`SignedRecords.swift` has them as JSON).
enum Records {
    static func mark(_ status: VerificationStatus) -> String {
        switch status {
        case .verified: return "ok"
        case .failed: return "FAILED"
        case .notChecked: return "unchecked"
        }
    }

    /// The `--raw` line under a row: the member name a script would find it under, then the string whole.
    static func rawLine(_ name: String, _ signed: String?) -> String {
        "\(name): \(signed ?? "(none)")"
    }

    /// Product, type, purchase date, price, ownership, revocation, verification.
    static let transactionHeaders = ["TRANSACTION", "PRODUCT", "TYPE", "PURCHASED", "PRICE", "OWNERSHIP", "REVOKED", "SIGNED"]

    static func transactionRow(_ verified: VerifiedPayload<TransactionPayload>) -> [String] {
        guard let t = verified.payload else { return ["?", "(unreadable)", "", "", "", "", "", mark(verified.status)] }
        var revoked = "-"
        if let date = t.revocationDate {
            revoked = DisplayFormat.day(date) + " " + (t.revocationType?.label ?? "")
            if let percentage = t.revocationPercentage { revoked += " " + DisplayFormat.percentage(percentage) }
        }
        if t.isUpgraded == true { revoked = "upgraded" }
        return [
            t.transactionId ?? "-", t.productId ?? "-", t.type?.label ?? "-", DisplayFormat.date(t.purchaseDate),
            DisplayFormat.money(t.price, t.currency), t.inAppOwnershipType?.label ?? "-", revoked, mark(verified.status),
        ]
    }

    static func transactionFields(_ verified: VerifiedPayload<TransactionPayload>) -> FieldList {
        var fields = FieldList()
        fields.add("Verification", verified.verdict)
        guard let t = verified.payload else { return fields }
        fields.add("Transaction ID", t.transactionId)
        fields.add("Original transaction ID", t.originalTransactionId)
        fields.add("Web order line item ID", t.webOrderLineItemId)
        fields.add("Product", t.productId)
        fields.add("Type", t.type?.label)
        fields.add("Subscription group", t.subscriptionGroupIdentifier)
        fields.add("Purchased", DisplayFormat.date(t.purchaseDate))
        fields.add("Original purchase", DisplayFormat.date(t.originalPurchaseDate))
        fields.add("Expires", DisplayFormat.date(t.expiresDate))
        fields.add("Price", DisplayFormat.money(t.price, t.currency))
        fields.add("Quantity", t.quantity.map(String.init))
        fields.add("Reason", t.transactionReason?.label)
        fields.add("Ownership", t.inAppOwnershipType?.label)
        fields.add("Offer", t.offerType.map { "\($0.label)" + (t.offerIdentifier.map { " \($0)" } ?? "") + (t.offerDiscountType.map { ", \($0.label)" } ?? "") + (t.offerPeriod.map { ", \($0)" } ?? "") })
        fields.add("Upgraded", t.isUpgraded == true ? "yes: superseded by a higher-level subscription" : nil)
        fields.add("Revoked", t.revocationDate.map { DisplayFormat.date($0) })
        fields.add("Revocation reason", revocationReasonLabel(t))
        fields.add("Revocation type", t.revocationType?.label)
        fields.add("Refunded share", t.revocationPercentage.map { DisplayFormat.percentage($0) })
        fields.add("Storefront", t.storefront.map { "\($0) (\(t.storefrontId ?? "-"))" })
        fields.add("App account token", t.appAccountToken)
        fields.add("App transaction ID", t.appTransactionId)
        fields.add("Bundle ID", t.bundleId)
        fields.add("Environment", t.environment?.label)
        fields.add("Signed", DisplayFormat.date(t.signedDate, seconds: true))
        if let info = t.advancedCommerceInfo {
            fields.fields += advancedCommerceLines(AdvancedCommerceRecord(info), currency: t.currency)
        }
        return fields
    }

    /// Every field of an app transaction, as Apple names them in words.
    static func appTransactionFields(_ verified: VerifiedPayload<AppTransactionPayload>) -> FieldList {
        var fields = FieldList()
        fields.add("Verification", verified.verdict)
        guard let a = verified.payload else { return fields }
        fields.add("App transaction ID", a.appTransactionId)
        fields.add("First download", DisplayFormat.date(a.originalPurchaseDate))
        fields.add("Original app version", a.originalApplicationVersion)
        fields.add("Original platform", a.originalPlatform?.rawValue)
        fields.add("Pre-ordered", a.preorderDate.map { DisplayFormat.date($0) })
        fields.add("App version", a.applicationVersion)
        fields.add("Version identifier", a.versionExternalIdentifier.map(String.init))
        fields.add("Bundle ID", a.bundleId)
        fields.add("App Apple ID", a.appAppleId.map(String.init))
        fields.add("Environment", a.receiptType?.label)
        fields.add("Device verification", a.deviceVerification)
        fields.add("Device verification nonce", a.deviceVerificationNonce)
        fields.add("Signed", DisplayFormat.date(a.receiptCreationDate, seconds: true))
        return fields
    }

    /// A table of transactions, with each one's signed string under its row when `raw`.
    static func transactionTable(_ transactions: [VerifiedPayload<TransactionPayload>], raw: Bool) -> TextTable {
        var table = TextTable()
        table.headers = transactionHeaders
        for transaction in transactions {
            table.add(transactionRow(transaction))
            if raw { table.note(rawLine("signedTransactionInfo", transaction.signed)) }
        }
        return table
    }
}
