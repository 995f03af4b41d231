import AppStoreServerAPI
import DeskCore
import Foundation

/// Signed records as JSON objects and table cells, with their verification always alongside.
enum Records {
    /// The status and, when known, each check: {"check": "bundle ID", "outcome": "passed", "text": ...}.
    static func verification(_ status: VerificationStatus, checks: [VerificationCheck] = []) -> [String: Any?] {
        var object: [String: Any?]
        switch status {
        case .verified: object = ["status": "verified"]
        case .failed(let failure): object = ["status": "failed", "appleStatus": failure.appleStatus, "reason": failure.description]
        case .notChecked(let reason): object = ["status": "not_checked", "reason": reason]
        }
        if !checks.isEmpty { object["checks"] = checks.map(check) }
        return object
    }

    static func check(_ check: VerificationCheck) -> [String: Any?] {
        let outcome: String
        switch check.outcome {
        case .passed: outcome = "passed"
        case .failed: outcome = "failed"
        case .notGiven: outcome = "not_given"
        case .notCarried: outcome = "not_carried"
        case .notApplicable: outcome = "not_applicable"
        case .notMade: outcome = "not_made"
        }
        return ["check": check.subject.rawValue, "outcome": outcome, "text": check.text]
    }

    static func mark(_ status: VerificationStatus) -> String {
        switch status {
        case .verified: return "ok"
        case .failed: return "FAILED"
        case .notChecked: return "unchecked"
        }
    }

    static func attempt(_ attempt: SendAttemptItem) -> [String: Any?] {
        var object: [String: Any?] = ["result": attempt.sendAttemptResult?.rawValue]
        object.merge(Printer.date("attemptDate", attempt.attemptDate))
        return object
    }

    static func transaction(_ verified: VerifiedPayload<TransactionPayload>) -> [String: Any?] {
        // The signed string as it arrived, beside what it says, so a script can keep or re-verify it.
        var object: [String: Any?] = ["verification": verification(verified.status, checks: verified.checks), "signedTransactionInfo": verified.signed]
        guard let t = verified.payload else { return object }
        object.merge([
            "transactionId": t.transactionId, "originalTransactionId": t.originalTransactionId,
            "webOrderLineItemId": t.webOrderLineItemId, "bundleId": t.bundleId, "productId": t.productId,
            "subscriptionGroupIdentifier": t.subscriptionGroupIdentifier, "quantity": t.quantity.map { Int($0) },
            "type": t.type?.rawValue, "appAccountToken": t.appAccountToken, "inAppOwnershipType": t.inAppOwnershipType?.rawValue,
            "revocationReason": t.revocationReason?.rawValue, "revocationType": t.revocationType?.rawValue,
            "revocationPercentage": t.revocationPercentage.map { Int($0) }, "isUpgraded": t.isUpgraded,
            "offerType": t.offerType?.rawValue, "offerIdentifier": t.offerIdentifier, "offerDiscountType": t.offerDiscountType?.rawValue,
            "offerPeriod": t.offerPeriod, "environment": t.environment?.rawValue, "storefront": t.storefront,
            "storefrontId": t.storefrontId, "transactionReason": t.transactionReason?.rawValue, "currency": t.currency,
            "price": t.price, "appTransactionId": t.appTransactionId,
        ])
        for (name, date) in [("purchaseDate", t.purchaseDate), ("originalPurchaseDate", t.originalPurchaseDate),
                             ("expiresDate", t.expiresDate), ("signedDate", t.signedDate), ("revocationDate", t.revocationDate)] {
            object.merge(Printer.date(name, date))
        }
        return object
    }

    static func renewal(_ verified: VerifiedPayload<RenewalInfoPayload>) -> [String: Any?] {
        var object: [String: Any?] = ["verification": verification(verified.status, checks: verified.checks), "signedRenewalInfo": verified.signed]
        guard let r = verified.payload else { return object }
        object.merge([
            "originalTransactionId": r.originalTransactionId, "productId": r.productId, "autoRenewProductId": r.autoRenewProductId,
            "autoRenewStatus": r.autoRenewStatus?.rawValue, "expirationIntent": r.expirationIntent?.rawValue,
            "isInBillingRetryPeriod": r.isInBillingRetryPeriod, "priceIncreaseStatus": r.priceIncreaseStatus?.rawValue,
            "offerType": r.offerType?.rawValue, "offerIdentifier": r.offerIdentifier, "offerDiscountType": r.offerDiscountType?.rawValue,
            "offerPeriod": r.offerPeriod, "environment": r.environment?.rawValue, "currency": r.currency,
            "renewalPrice": r.renewalPrice, "eligibleWinBackOfferIds": r.eligibleWinBackOfferIds, "appAccountToken": r.appAccountToken,
            "appTransactionId": r.appTransactionId,
        ])
        for (name, date) in [("renewalDate", r.renewalDate), ("gracePeriodExpiresDate", r.gracePeriodExpiresDate),
                             ("recentSubscriptionStartDate", r.recentSubscriptionStartDate), ("signedDate", r.signedDate)] {
            object.merge(Printer.date(name, date))
        }
        return object
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
        fields.add("Revocation reason", t.revocationReason?.label)
        fields.add("Revocation type", t.revocationType?.label)
        fields.add("Refunded share", t.revocationPercentage.map { DisplayFormat.percentage($0) })
        fields.add("Storefront", t.storefront.map { "\($0) (\(t.storefrontId ?? "-"))" })
        fields.add("App account token", t.appAccountToken)
        fields.add("App transaction ID", t.appTransactionId)
        fields.add("Bundle ID", t.bundleId)
        fields.add("Environment", t.environment?.label)
        fields.add("Signed", DisplayFormat.date(t.signedDate, seconds: true))
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
