import AppStoreServerAPI
import Foundation

/// Input checks shared by the routes, answering with Apple's error codes.
enum RouteValidation {
    static func isDigits(_ text: String) -> Bool {
        !text.isEmpty && text.count <= 32 && text.utf8.allSatisfy { $0 >= 0x30 && $0 <= 0x39 }
    }

    /// A transaction ID of this environment, resolved to its customer.
    static func customer(for id: String, in data: DemoEnvironmentData, malformed: DemoAPIError = .invalidTransactionId) throws(DemoAPIError) -> Int {
        guard isDigits(id) else { throw malformed }
        guard let customer = data.customerByID[id] else { throw .transactionIdNotFound }
        return customer
    }

    /// A transaction ID that must name a purchase (not an app transaction).
    static func transaction(_ id: String, in data: DemoEnvironmentData) throws(DemoAPIError) -> DemoTransaction {
        guard isDigits(id) else { throw .invalidTransactionId }
        if data.appTransactions[id] != nil { throw .appTransactionIdNotSupported }
        guard let transaction = data.transactions[id] else { throw .transactionIdNotFound }
        return transaction
    }

    static func bool(_ text: String) -> Bool? {
        switch text.lowercased() {
        case "true": return true
        case "false": return false
        default: return nil
        }
    }

    static func isUUID(_ text: String) -> Bool { UUID(uuidString: text) != nil }

    static func decodeBody<T: Decodable>(_ type: T.Type, _ data: Data, invalid: DemoAPIError) throws(DemoAPIError) -> T {
        do {
            return try AppStoreJSON.decode(type, from: data)
        } catch {
            throw invalid
        }
    }
}

/// Opaque paging cursors bound to the filters they were issued for.
enum PagingCursor {
    static func make(kind: String, offset: Int, filters: String) -> String {
        Base64URL.encode(Data("\(kind)|\(offset)|\(fingerprint(filters))".utf8))
    }

    /// The offset a cursor stands for, or nil when it is not one of ours for these filters.
    static func offset(_ cursor: String, kind: String, filters: String) -> Int? {
        guard let data = Base64URL.decode(Substring(cursor)), let text = String(data: data, encoding: .utf8) else { return nil }
        let parts = text.split(separator: "|")
        guard parts.count == 3, parts[0] == kind, let offset = Int(parts[1]), offset >= 0, parts[2] == fingerprint(filters) else {
            return nil
        }
        return offset
    }

    /// FNV-1a, stable across runs (Swift's hashValue is seeded per process).
    static func fingerprint(_ text: String) -> String {
        var hash: UInt64 = 0xCBF2_9CE4_8422_2325
        for byte in text.utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01B3
        }
        return String(hash, radix: 16)
    }
}
