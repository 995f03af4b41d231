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

    static func isUUID(_ text: String) -> Bool { text.utf8.count == 36 && UUID(uuidString: text) != nil }

    /// A test notification token as Apple hands them out: a UUID, alone or followed by `_` and the
    /// epoch milliseconds of the request. Anything else is malformed (4000020), not unknown (4040008).
    static func isTestNotificationToken(_ text: String) -> Bool {
        let parts = text.split(separator: "_", maxSplits: 1, omittingEmptySubsequences: false)
        guard isUUID(String(parts[0])) else { return false }
        guard parts.count == 2 else { return true }
        return (1...13).contains(parts[1].utf8.count) && parts[1].utf8.allSatisfy { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }
    }

    /// App Store Connect product IDs: letters, digits, periods and underscores (hyphens are tolerated).
    static func isProductId(_ text: String) -> Bool {
        !text.isEmpty && text.utf8.count <= 255 && text.unicodeScalars.allSatisfy {
            ($0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0))) || $0 == "." || $0 == "_" || $0 == "-"
        }
    }

    /// A storefront as Apple names it: an uppercase ISO 3166-1 alpha-3 code.
    static func isStorefront(_ text: String) -> Bool { CountryCodes.alpha3.contains(text) }

    /// Checks a JSON body's fields for type before it is decoded, so a wrongly typed field gets that
    /// field's error code rather than a generic one. Null counts as absent; unknown keys are ignored.
    static func checkFields(_ data: Data, _ fields: [String: (FieldType, DemoAPIError)]) throws(DemoAPIError) {
        guard let value = try? JSONValue.parse(data), case .object(let members) = value else { throw .generalBadRequest }
        for member in members {
            guard let (type, error) = fields[member.key], member.value != .null else { continue }
            guard type.accepts(member.value) else { throw error }
        }
    }

    static func decodeBody<T: Decodable>(_ type: T.Type, _ data: Data, invalid: DemoAPIError = .generalBadRequest) throws(DemoAPIError) -> T {
        do {
            return try AppStoreJSON.decode(type, from: data)
        } catch {
            throw invalid
        }
    }
}

/// The JSON type a body field must have.
enum FieldType {
    /// A whole number that fits in 64 bits (dates in milliseconds, counts, integer enums).
    case integer, boolean, string, strings

    func accepts(_ value: JSONValue) -> Bool {
        switch (self, value) {
        case (.integer, .number(let text)): return Int64(text) != nil
        case (.boolean, .bool), (.string, .string): return true
        case (.strings, .array(let items)): return items.allSatisfy { if case .string = $0 { return true } else { return false } }
        default: return false
        }
    }
}

/// Opaque paging cursors bound to the filters they were issued for.
enum PagingCursor {
    static func make(kind: String, offset: Int, filters: String, issued: Date? = nil) -> String {
        var text = "\(kind)|\(offset)|\(fingerprint(filters))"
        if let issued { text += "|\(issued.epochMilliseconds)" }
        return Base64URL.encode(Data(text.utf8))
    }

    /// The offset a cursor stands for (and when it was issued, when it says), or nil when it is not
    /// one of ours for these filters.
    static func read(_ cursor: String, kind: String, filters: String) -> (offset: Int, issued: Date?)? {
        guard let data = Base64URL.decode(Substring(cursor)), let text = String(data: data, encoding: .utf8) else { return nil }
        let parts = text.split(separator: "|")
        guard parts.count == 3 || parts.count == 4, parts[0] == kind, let offset = Int(parts[1]), offset >= 0,
              parts[2] == fingerprint(filters)
        else { return nil }
        guard parts.count == 4 else { return (offset, nil) }
        guard let issued = Int64(parts[3]) else { return nil }
        return (offset, Date(epochMilliseconds: issued))
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
