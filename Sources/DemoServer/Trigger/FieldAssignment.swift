import AppStoreServerAPI
import Foundation

/// The objects of a notification whose fields `--set` can change, each addressed by a prefix.
/// Their fields are read from the library's payload models, so every field Apple documents (and
/// the library models) can be set, with the model's type.
public enum PayloadObject: String, Sendable, CaseIterable {
    case payload, data, transaction, renewal, summary, externalPurchaseToken, appData, appTransaction

    /// What the prefix names, in words.
    public var meaning: String {
        switch self {
        case .payload: return "the notification itself (notificationUUID, signedDate, version)"
        case .data: return "the data object (status, consumptionRequestReason, bundleId, appAppleId, bundleVersion, environment)"
        case .transaction: return "the transaction signed into data.signedTransactionInfo"
        case .renewal: return "the renewal info signed into data.signedRenewalInfo"
        case .summary: return "the summary of RENEWAL_EXTENSION/SUMMARY"
        case .externalPurchaseToken: return "the externalPurchaseToken of EXTERNAL_PURCHASE_TOKEN"
        case .appData: return "the appData of RESCIND_CONSENT"
        case .appTransaction: return "the app transaction signed into appData.signedAppTransactionInfo"
        }
    }

    /// Fields that are not set by name: the type and subtype are the command's argument, and the
    /// signed strings are made from the objects they sign.
    var reserved: [String: String] {
        switch self {
        case .payload:
            return [
                "notificationType": "the type is the command's argument", "subtype": "the subtype is the command's argument",
                "data": "set data.FIELD", "summary": "set summary.FIELD", "externalPurchaseToken": "set externalPurchaseToken.FIELD",
                "appData": "set appData.FIELD",
            ]
        case .data:
            return ["signedTransactionInfo": "it is signed from transaction.FIELD", "signedRenewalInfo": "it is signed from renewal.FIELD"]
        case .appData: return ["signedAppTransactionInfo": "it is signed from appTransaction.FIELD"]
        default: return [:]
        }
    }

    /// The model's fields, with how their values are read.
    var fields: [(name: String, kind: FieldKind)] {
        let blank: Any
        switch self {
        case .payload: blank = NotificationPayload()
        case .data: blank = NotificationData()
        case .transaction: blank = TransactionPayload()
        case .renewal: blank = RenewalInfoPayload()
        case .summary: blank = NotificationSummary()
        case .externalPurchaseToken: blank = ExternalPurchaseToken()
        case .appData: blank = NotificationAppData()
        case .appTransaction: blank = AppTransactionPayload()
        }
        let reserved = self.reserved
        return Mirror(reflecting: blank).children.compactMap { child in
            guard let name = child.label, reserved[name] == nil else { return nil }
            return (name, FieldKind(name: name, type: type(of: child.value)))
        }
    }
}

/// How a field's value is written on the command line and in JSON.
enum FieldKind {
    case string, integer(bits: Int), bool, date, millisecondsDate, strings, object
    case enumeration(values: [(raw: String, label: String)], numeric: Bool)

    init(name: String, type: Any.Type) {
        let wrapped = (type as? OptionalMarker.Type)?.wrapped ?? type
        if wrapped == Date.self { self = .date }
        else if wrapped == String.self { self = .string }
        else if wrapped == Int64.self { self = name.hasSuffix("Date") ? .millisecondsDate : .integer(bits: 64) }
        else if wrapped == Int32.self { self = .integer(bits: 32) }
        else if wrapped == Int.self { self = .integer(bits: 64) }
        else if wrapped == Bool.self { self = .bool }
        else if wrapped == [String].self { self = .strings }
        else if let open = wrapped as? any OpenEnum.Type { self = Self.enumeration(open) }
        else { self = .object }
    }

    private static func enumeration<E: OpenEnum>(_ type: E.Type) -> FieldKind {
        .enumeration(values: E.catalog.map { ("\($0.raw)", $0.label) }, numeric: E.RawValue.self != String.self)
    }

    /// What the field takes, in words, for an error.
    var expected: String {
        switch self {
        case .string: return "text"
        case .integer(let bits): return "a whole number\(bits == 32 ? " (32-bit)" : "")"
        case .bool: return "true or false"
        case .date, .millisecondsDate:
            return "a date: epoch milliseconds, 2026-11-01 or 2026-11-01T10:00:00Z, now, or a time from now such as +16d, -1h, +30m"
        case .strings: return "a list, comma-separated or a JSON array"
        case .object: return "a JSON object"
        case .enumeration(let values, _):
            return "one of " + values.map { "\($0.raw) (\($0.label))" }.joined(separator: ", ")
        }
    }

    /// The JSON for `text`, or nil when it is not a value of this kind. Relative dates count from `now`.
    func value(_ text: String, now: Date) -> JSONValue? {
        switch self {
        case .string: return .string(text)
        case .integer(let bits):
            guard let number = Int64(text), bits == 64 || Int32(exactly: number) != nil else { return nil }
            return .number(String(number))
        case .bool:
            switch text.lowercased() {
            case "true": return .bool(true)
            case "false": return .bool(false)
            default: return nil
            }
        case .date, .millisecondsDate:
            return Self.date(text, now: now).map { .number(String($0.epochMilliseconds)) }
        case .strings:
            if text.hasPrefix("["), let parsed = try? JSONValue.parse(Data(text.utf8)), case .array(let items) = parsed,
               items.allSatisfy({ $0.stringValue != nil }) {
                return parsed
            }
            if text.hasPrefix("[") { return nil }
            return .array(text.split(separator: ",").map { .string($0.trimmingCharacters(in: .whitespaces)) })
        case .object:
            guard let parsed = try? JSONValue.parse(Data(text.utf8)), case .object = parsed else { return nil }
            return parsed
        case .enumeration(let values, let numeric):
            guard let match = values.first(where: { $0.raw.caseInsensitiveCompare(text) == .orderedSame }) else { return nil }
            return numeric ? .number(match.raw) : .string(match.raw)
        }
    }

    /// `now`, `+16d`, `now-1h`, epoch milliseconds, or an ISO 8601 date or time.
    static func date(_ text: String, now: Date) -> Date? {
        let lowered = text.lowercased()
        if lowered == "now" { return now }
        var relative = Substring(lowered)
        if relative.hasPrefix("now") { relative = relative.dropFirst(3) }
        if let sign = relative.first, sign == "+" || sign == "-", let unit = relative.last,
           let amount = Double(relative.dropFirst().dropLast()), amount.isFinite, amount >= 0 {
            let seconds: Double
            switch unit {
            case "s": seconds = 1
            case "m": seconds = 60
            case "h": seconds = 3_600
            case "d": seconds = 86_400
            default: return nil
            }
            return now.addingTimeInterval((sign == "+" ? 1 : -1) * amount * seconds)
        }
        if !text.isEmpty, text.allSatisfy({ $0.isASCII && $0.isNumber }) || (text.hasPrefix("-") && text.dropFirst().allSatisfy({ $0.isASCII && $0.isNumber }) && text.count > 1) {
            return Double(text).flatMap { Date(checkedEpochMilliseconds: $0) }
        }
        let formatter = ISO8601DateFormatter()
        for options: ISO8601DateFormatter.Options in [[.withInternetDateTime], [.withInternetDateTime, .withFractionalSeconds], [.withFullDate]] {
            formatter.formatOptions = options
            if let date = formatter.date(from: text) { return date }
        }
        return nil
    }
}

private protocol OptionalMarker {
    static var wrapped: Any.Type { get }
}

extension Optional: OptionalMarker {
    static var wrapped: Any.Type { Wrapped.self }
}

/// One `--set object.field=value`: checked when read, applied to the object before it is signed.
public struct FieldAssignment: Sendable, CustomStringConvertible {
    public let object: PayloadObject
    public let field: String
    /// The value as typed; `null` removes the field.
    public let text: String
    let kind: FieldKind?

    public var description: String { "\(object.rawValue).\(field)=\(text)" }

    /// How keys are addressed, for help texts.
    public static let keyHelp =
        "KEY is OBJECT.FIELD with OBJECT one of payload, data, transaction, renewal, summary, externalPurchaseToken, appData, appTransaction "
        + "and FIELD a JSON key of Apple's payload (data.status=2, transaction.price=990, renewal.gracePeriodExpiresDate=+16d); "
        + "VALUE null removes the field."

    /// Reads `object.field=value`, checking the field exists and the value is of its type.
    public static func parse(_ text: String) throws(TriggerError) -> FieldAssignment {
        guard let equals = text.firstIndex(of: "=") else {
            throw TriggerError("--set \(text): give KEY=VALUE, such as data.status=2.", hint: keyHelp, kind: .usage)
        }
        let key = String(text[..<equals])
        let value = String(text[text.index(after: equals)...])
        let path = key.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
        guard path.count == 2, let object = PayloadObject.allCases.first(where: { $0.rawValue.caseInsensitiveCompare(path[0]) == .orderedSame })
                ?? (path[0].lowercased() == "token" ? .externalPurchaseToken : nil)
        else {
            throw TriggerError(
                "--set \(key): a key starts with the object it changes: "
                    + PayloadObject.allCases.map(\.rawValue).joined(separator: ", ") + ".",
                hint: keyHelp, kind: .usage)
        }
        if let why = object.reserved.first(where: { $0.key.caseInsensitiveCompare(path[1]) == .orderedSame }) {
            throw TriggerError("--set \(key): \(object.rawValue).\(why.key) cannot be set: \(why.value).", kind: .usage)
        }
        let fields = object.fields
        guard let field = fields.first(where: { $0.name == path[1] }) ?? fields.first(where: { $0.name.caseInsensitiveCompare(path[1]) == .orderedSame })
        else {
            throw TriggerError(
                "--set \(key): \(object.rawValue) has no field \(path[1]).",
                hint: "\(object.rawValue) is \(object.meaning); its fields: " + fields.map(\.name).joined(separator: ", ") + ".", kind: .usage)
        }
        let qualified = "\(object.rawValue).\(field.name)"
        if value == "null" { return FieldAssignment(object: object, field: field.name, text: value, kind: nil) }
        guard field.kind.value(value, now: Date()) != nil else {
            throw TriggerError("--set \(qualified)=\(value): \(qualified) takes \(field.kind.expected).\(Self.note(field.name))", kind: .usage)
        }
        return FieldAssignment(object: object, field: field.name, text: value, kind: field.kind)
    }

    private static func note(_ field: String) -> String {
        switch field {
        case "price", "renewalPrice", "commitmentPrice": return " Prices are in milliunits: 9990 is 9.99."
        case "revocationPercentage": return " Milliunits of a percent: 50000 is 50 %."
        default: return ""
        }
    }

    /// The JSON value to put, nil to remove the field.
    func value(now: Date) -> JSONValue? {
        guard let kind else { return nil }
        return kind.value(text, now: now)
    }

    /// `model` with the assignments to `object` applied, checked by decoding it back into its model.
    static func applying<T: Codable>(_ assignments: [FieldAssignment], to object: PayloadObject, of model: T, now: Date) throws(TriggerError) -> T {
        let mine = assignments.filter { $0.object == object }
        guard !mine.isEmpty else { return model }
        do {
            guard case .object(var members) = try JSONValue.parse(try AppStoreJSON.encoder().encode(model)) else { return model }
            for assignment in mine {
                members.removeAll { $0.key == assignment.field }
                if let value = assignment.value(now: now) { members.append((assignment.field, value)) }
            }
            return try AppStoreJSON.decode(T.self, from: Data(JSONValue.object(members).rendered().utf8))
        } catch let failure as JSONDecodeFailure {
            throw TriggerError("--set on \(object.rawValue): \(failure.path.isEmpty ? "" : "\(object.rawValue).\(failure.path): ")\(failure.reason)", kind: .usage)
        } catch {
            throw TriggerError("--set on \(object.rawValue): \(error)", kind: .usage)
        }
    }
}
