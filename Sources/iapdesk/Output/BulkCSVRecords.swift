import AppStoreServerAPI
import Foundation

/// The columns of the read commands' documents in a bulk run's CSV file: one row per transaction,
/// or per subscription for `status`, with the fields a spreadsheet filters on (the JSON lines
/// output carries every field).
enum CSVCell {
    /// An enum or number as its JSON value without quotes; nil as an empty cell.
    static func of<Value: Encodable>(_ value: Value?) -> String {
        guard let value else { return "" }
        guard let data = try? JSONEncoder().encode(value) else { return "" }
        let text = String(decoding: data, as: UTF8.self)
        return text.hasPrefix("\"") && text.hasSuffix("\"") && text.count >= 2 ? String(text.dropFirst().dropLast()) : text
    }
}

extension TransactionRecord {
    static let csvColumns = [
        "transactionId", "originalTransactionId", "productId", "type", "purchaseDate", "expiresDate", "price", "currency",
        "revocationDate", "revocationReason", "environment", "verification",
    ]

    var csvRow: [String] {
        [
            transactionId ?? "", originalTransactionId ?? "", productId ?? "", CSVCell.of(type), purchaseDate ?? "", expiresDate ?? "",
            CSVCell.of(price), currency ?? "", revocationDate ?? "", CSVCell.of(revocationReason), CSVCell.of(environment),
            verification.status,
        ]
    }
}

extension StatusOutput: CSVRecords {
    static let csvColumns = [
        "subscriptionGroupIdentifier", "originalTransactionId", "productId", "status", "expiresDate", "renewalDate",
        "autoRenewStatus", "autoRenewProductId", "isInBillingRetryPeriod", "gracePeriodExpiresDate", "expirationIntent",
        "environment", "verification",
    ]

    var csvRows: [[String]] {
        groups.flatMap { group in
            group.lastTransactions.map { item in
                let t = item.transaction
                let r = item.renewalInfo
                let verification = [t?.verification.status, r?.verification.status].compactMap { $0 }
                return [
                    group.subscriptionGroupIdentifier ?? "", item.originalTransactionId ?? "", t?.productId ?? "", item.statusLabel ?? "",
                    t?.expiresDate ?? "", r?.renewalDate ?? "", CSVCell.of(r?.autoRenewStatus), r?.autoRenewProductId ?? "",
                    CSVCell.of(r?.isInBillingRetryPeriod), r?.gracePeriodExpiresDate ?? "", CSVCell.of(r?.expirationIntent),
                    CSVCell.of(environment), verification.contains("failed") ? "failed" : (verification.first ?? ""),
                ]
            }
        }
    }
}

extension HistoryOutput: CSVRecords {
    static var csvColumns: [String] { TransactionRecord.csvColumns }
    var csvRows: [[String]] { transactions.map(\.csvRow) }
}

extension RefundsOutput: CSVRecords {
    static var csvColumns: [String] { TransactionRecord.csvColumns }
    var csvRows: [[String]] { refunds.map(\.csvRow) }
}

extension TransactionOutput: CSVRecords {
    static var csvColumns: [String] { TransactionRecord.csvColumns }
    var csvRows: [[String]] { [transaction.csvRow] }
}

extension LookupOutput.Order: CSVRecords {
    static var csvColumns: [String] { TransactionRecord.csvColumns }
    var csvRows: [[String]] { transactions.map(\.csvRow) }
}

extension LookupOutput.AppTransaction: CSVRecords {
    static var csvColumns: [String] { TransactionRecord.csvColumns }
    var csvRows: [[String]] { transactions.map(\.csvRow) }
}

/// An account token's links are original transactions, not transactions: their ID fills the
/// original transaction's column and the environment's.
extension LookupOutput.Account: CSVRecords {
    static var csvColumns: [String] { TransactionRecord.csvColumns }
    var csvRows: [[String]] {
        originalTransactions.map { link in
            var row = Array(repeating: "", count: TransactionRecord.csvColumns.count)
            row[1] = link.originalTransactionId
            row[10] = link.environment ?? ""
            return row
        }
    }
}
