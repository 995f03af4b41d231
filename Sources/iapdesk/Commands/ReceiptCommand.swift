import AppStoreServerAPI
import ArgumentParser
import DeskCore
import Foundation

/// `iapdesk receipt FILE|-`: the transaction IDs (and the rest) inside a legacy app receipt.
struct ReceiptCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "receipt",
        abstract: "Read a legacy app receipt (base64 or DER): its fields and the transaction IDs to look up.",
        discussion: """
            Reads FILE, or standard input with -: the app receipt as apps send it (base64 of a PKCS#7 SignedData, \
            line breaks and a {"receipt-data": ...} body allowed) or its raw DER bytes. Prints the app's fields \
            (bundle ID, app version, original app version, receipt creation date...) and each in-app purchase \
            receipt (transaction ID, original transaction ID, product ID, purchase, original purchase, expires and \
            cancellation dates, quantity, web order line item ID, offer periods), then the lookups to run next. \
            Nothing is verified: not the PKCS#7 signature, not Apple's certificate, not the device hash (Apple \
            deprecated on-device receipt validation); use the IDs to look the customer up, which verifies what Apple \
            answers. Runs offline: no profile or network needed.
            """)

    @Argument(help: ArgumentHelp("The receipt file, or - to read standard input.", valueName: "file")) var file: String
    @OptionGroup var global: GlobalOptions

    /// What is and is not checked, said with every reading.
    static let unchecked =
        "Read, not verified: the PKCS#7 signature, Apple's certificate and the device hash are not checked (Apple deprecated on-device receipt validation). Look the IDs up: the lookup verifies what Apple answers."

    func run() async throws {
        try await runReporting {
            let receipt: AppReceipt
            do {
                receipt = try AppReceiptReader.read(try readInput())
            } catch let error as AppReceiptError {
                throw CLIError(error.description, hint: Self.hint(error), status: .usage)
            }
            let printer = Printer(json: global.json)
            let next = receipt.originalTransactionIds.prefix(10).map { "iapdesk lookup \($0)\(global.followUpFlags)" }
            printer.emit(ReceiptOutput(receipt, next: next))
            var fields = FieldList()
            fields.add("Bundle ID", receipt.bundleId)
            fields.add("App version", receipt.applicationVersion)
            fields.add("Original app version", receipt.originalApplicationVersion)
            fields.add("Receipt type", receipt.receiptType)
            fields.add("App item ID", receipt.appItemId.map(String.init))
            fields.add("Created", DisplayFormat.date(receipt.creationDate, seconds: true))
            fields.add("First download", receipt.originalPurchaseDate.map { DisplayFormat.date($0) })
            fields.add("Expires", receipt.expirationDate.map { DisplayFormat.date($0) })
            fields.add("Container", "PKCS#7 SignedData, \(DisplayFormat.count(receipt.certificateCount, "certificate")), \(DisplayFormat.count(receipt.signerCount, "signer"))")
            printer.text(fields.render())
            printer.text("")
            if receipt.inAppPurchases.isEmpty {
                printer.text("No in-app purchases in this receipt: nothing bought, or consumables already finished (receipts drop them).")
            } else {
                var table = TextTable()
                table.headers = ["TRANSACTION", "ORIGINAL", "PRODUCT", "PURCHASED", "EXPIRES", "CANCELLED", "QTY"]
                for purchase in receipt.newestFirst {
                    table.add([
                        purchase.transactionId ?? "-", purchase.originalTransactionId ?? "-", purchase.productId ?? "-",
                        DisplayFormat.date(purchase.purchaseDate), purchase.expiresDate.map { DisplayFormat.date($0) } ?? "-",
                        purchase.cancellationDate.map { DisplayFormat.date($0) } ?? "-", purchase.quantity.map(String.init) ?? "-",
                    ])
                }
                printer.text("\(DisplayFormat.count(receipt.inAppPurchases.count, "in-app purchase")), newest first:")
                printer.text(table.render())
            }
            for problem in receipt.problems { printer.text("note: \(problem), left out") }
            printer.text("\n" + Self.unchecked)
            if !next.isEmpty {
                printer.text("\nNext:\n" + next.map { "  \($0)" }.joined(separator: "\n"))
            }
        }
    }

    func readInput() throws -> Data {
        if file == "-" { return FileHandle.standardInput.readDataToEndOfFile() }
        guard let data = FileManager.default.contents(atPath: file) else {
            let reason = FileManager.default.fileExists(atPath: file) ? "it cannot be read" : "there is no such file"
            throw CLIError("Cannot read the receipt \(file): \(reason).", hint: "Give the receipt's file, or - and the receipt on standard input.", status: .usage)
        }
        return data
    }

    static func hint(_ error: AppReceiptError) -> String? {
        switch error {
        case .notBase64, .empty:
            return "Paste the receipt itself (the base64 the app sent as receipt-data), or give the receipt file's bytes."
        case .truncated:
            return "Copy the whole receipt: logs often cut long lines."
        case .notPKCS7, .notSignedData, .notAReceipt:
            return "A signed transaction or notification (a JWS, three parts with dots) is read by iapdesk decode."
        case .tooLarge:
            return nil
        }
    }
}

/// `receipt --json`: the app's fields, each in-app purchase with its dates as ISO 8601 and
/// milliseconds, what was not checked, and the lookups to run next.
struct ReceiptOutput: Encodable {
    struct Purchase: Encodable {
        var transactionId: String?
        var originalTransactionId: String?
        var productId: String?
        var quantity: Int64?
        var webOrderLineItemId: String?
        var isTrialPeriod: Bool?
        var isInIntroOfferPeriod: Bool?
        var promotionalOfferId: String?
        var purchaseDate: String?
        var purchaseDateMs: Int64?
        var originalPurchaseDate: String?
        var originalPurchaseDateMs: Int64?
        var expiresDate: String?
        var expiresDateMs: Int64?
        var cancellationDate: String?
        var cancellationDateMs: Int64?

        init(_ p: InAppPurchaseReceipt) {
            (transactionId, originalTransactionId, productId, quantity) = (p.transactionId, p.originalTransactionId, p.productId, p.quantity)
            (webOrderLineItemId, isTrialPeriod, isInIntroOfferPeriod, promotionalOfferId) = (p.webOrderLineItemId, p.isTrialPeriod, p.isInIntroOfferPeriod, p.promotionalOfferId)
            (purchaseDate, purchaseDateMs) = DatePair.of(p.purchaseDate)
            (originalPurchaseDate, originalPurchaseDateMs) = DatePair.of(p.originalPurchaseDate)
            (expiresDate, expiresDateMs) = DatePair.of(p.expiresDate)
            (cancellationDate, cancellationDateMs) = DatePair.of(p.cancellationDate)
        }
    }

    var verified = false
    var notChecked = ["PKCS#7 signature", "Apple certificate chain", "device hash (SHA-1 of the device identifier, opaque value and bundle ID)"]
    var receiptType: String?
    var appItemId: Int64?
    var bundleId: String?
    var applicationVersion: String?
    var originalApplicationVersion: String?
    var receiptCreationDate: String?
    var receiptCreationDateMs: Int64?
    var originalPurchaseDate: String?
    var originalPurchaseDateMs: Int64?
    var expirationDate: String?
    var expirationDateMs: Int64?
    var certificateCount: Int
    var signerCount: Int
    var inAppPurchases: [Purchase]
    var originalTransactionIds: [String]
    var problems: [String]?
    var next: [String]

    init(_ receipt: AppReceipt, next: [String]) {
        (receiptType, appItemId, bundleId) = (receipt.receiptType, receipt.appItemId, receipt.bundleId)
        (applicationVersion, originalApplicationVersion) = (receipt.applicationVersion, receipt.originalApplicationVersion)
        (receiptCreationDate, receiptCreationDateMs) = DatePair.of(receipt.creationDate)
        (originalPurchaseDate, originalPurchaseDateMs) = DatePair.of(receipt.originalPurchaseDate)
        (expirationDate, expirationDateMs) = DatePair.of(receipt.expirationDate)
        (certificateCount, signerCount) = (receipt.certificateCount, receipt.signerCount)
        inAppPurchases = receipt.newestFirst.map(Purchase.init)
        originalTransactionIds = receipt.originalTransactionIds
        problems = receipt.problems.isEmpty ? nil : receipt.problems
        self.next = next
    }
}
