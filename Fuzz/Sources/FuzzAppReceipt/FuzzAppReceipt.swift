@testable import AppStoreServerAPI
import Foundation
import FuzzSupport

/// The legacy receipt reader on any bytes: a receipt or an `AppReceiptError`, never a trap; the
/// same bytes read the same as DER and as base64 text; what is read holds what the reader promises.
@main enum FuzzAppReceipt {
    static func main() {
        Fuzz.run { data in
            let bytes = Array(data)
            let der: Result<AppReceipt, AppReceiptError> = Result { () throws(AppReceiptError) in try AppReceiptReader.read(der: bytes) }
            let text: Result<AppReceipt, AppReceiptError> = Result { () throws(AppReceiptError) in
                try AppReceiptReader.read(text: Data(bytes).base64EncodedString())
            }
            switch (der, text) {
            case (.success(let a), .success(let b)):
                invariant(a == b, "DER and its base64 read differently")
                check(a)
            case (.failure(let error), .failure):
                invariant(!error.description.isEmpty, "an error without words")
            case (.success, .failure(let error)):
                invariant(bytes.first != 0x30, "DER read, its base64 refused: \(error)")
            case (.failure(let error), .success):
                invariant(false, "base64 read, its DER refused: \(error)")
            }
            // Whatever the bytes say as text (pasted garbage, a log line) is read or refused, never a trap.
            _ = try? AppReceiptReader.read(text: String(decoding: data, as: UTF8.self))
            _ = AppReceiptReader.looksLikeReceipt(String(decoding: data, as: UTF8.self))
        }
    }

    static func check(_ receipt: AppReceipt) {
        let originals = receipt.originalTransactionIds
        invariant(Set(originals).count == originals.count, "an original transaction ID listed twice")
        invariant(originals.allSatisfy { id in receipt.inAppPurchases.contains { ($0.originalTransactionId ?? $0.transactionId) == id } }, "an ID from nowhere")
        invariant(receipt.newestFirst.count == receipt.inAppPurchases.count, "purchases lost in sorting")
        invariant(receipt.bundleId?.isEmpty != true, "an empty bundle ID kept")
    }
}
