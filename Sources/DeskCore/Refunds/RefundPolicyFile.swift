import AppStoreServerAPI
import DeskStore
import Foundation
import TOML

/// Why a policy file cannot be used, naming the line and the key to look at.
public struct RefundPolicyError: Error, Sendable, Equatable, CustomStringConvertible {
    public var file: String
    public var line: Int?
    /// The key as written, with the table it is in: `rule[2].product`.
    public var key: String?
    public var message: String

    public var description: String {
        let place = [line.map { "line \($0)" }, key].compactMap { $0 }.joined(separator: ", ")
        return "\(file)\(place.isEmpty ? "" : " \(place)"): \(message)"
    }
}

/// Reads a consumption policy from TOML (docs/refunds.md has a complete example):
///
/// ```toml
/// consent = "app-terms"
/// refund_preference = "decline"
/// [[rule]]
/// product = "com.example.coins.*"
/// reason = "unintended-purchase"
/// refund_preference = "grant-full"
/// ```
extension RefundPolicy {
    static let topKeys = ["consent", "refund_preference", "delivery_status", "consumption_share", "sample_content", "dry_run", "rule", "customer"]
    static let answerKeys = ["refund_preference", "delivery_status", "consumption_share", "sample_content", "answer"]
    static let ruleKeys = ["product", "reason"] + answerKeys
    static let customerKeys = ["original_transaction_id", "app_account_token", "note"] + answerKeys

    /// Reads the file at `path`; its name names the policy.
    public static func load(path: String) throws(RefundPolicyError) -> RefundPolicy {
        let name = (path as NSString).lastPathComponent
        guard let data = FileManager.default.contents(atPath: path) else {
            throw RefundPolicyError(file: path, message: "cannot be read (missing, or not readable by this user)")
        }
        guard let text = String(data: data, encoding: .utf8) else { throw RefundPolicyError(file: path, message: "is not UTF-8 text") }
        return try parse(text, name: name)
    }

    public static func parse(_ text: String, name: String) throws(RefundPolicyError) -> RefundPolicy {
        let table: TOMLTable
        do {
            table = try TOMLDocument.parse(text)
        } catch {
            throw RefundPolicyError(file: name, line: error.line, message: "not TOML: \(error.message)")
        }
        let reader = Reader(file: name)
        try reader.onlyKeys(table, topKeys, in: nil)
        var consent: Consent?
        if let value = table["consent"] {
            let text = try reader.string(value, key: "consent", table: table)
            guard let known = Consent(rawValue: text) else {
                throw reader.error(table, "consent", "\"\(text)\" is not a source of consent: \"app-terms\" (the app's terms give it), or leave consent out and the policy never sends")
            }
            consent = known
        }
        guard table["refund_preference"] != nil else {
            throw RefundPolicyError(
                file: name, key: "refund_preference",
                message: "missing: state the preference every answer gives unless a rule says otherwise (decline, grant-full, grant-prorated, or none to state none)")
        }
        let defaults = try reader.answer(table, label: nil)
        var rules: [Rule] = []
        for (index, ruleTable) in try reader.tables(table, "rule").enumerated() {
            let label = "rule[\(index + 1)]"
            try reader.onlyKeys(ruleTable, ruleKeys, in: label)
            var rule = Rule(answer: try reader.answer(ruleTable, label: label), line: ruleTable.line)
            rule.products = try reader.strings(ruleTable, "product", label: label).map { (product, line) throws(RefundPolicyError) -> String in
                guard !product.isEmpty, product.allSatisfy({ $0.isLetter || $0.isNumber || "._-*?".contains($0) }) else {
                    throw RefundPolicyError(
                        file: name, line: line, key: "\(label).product",
                        message: "\"\(product)\" is not a product ID or a pattern such as \"com.example.coins.*\" (letters, digits, . _ - and * ?)")
                }
                return product
            }
            rule.reasons = try reader.strings(ruleTable, "reason", label: label).map { (text, line) throws(RefundPolicyError) -> ConsumptionRequestReason in
                guard let reason = Self.reason(text) else {
                    throw RefundPolicyError(
                        file: name, line: line, key: "\(label).reason",
                        message: "\"\(text)\" is not one of Apple's reasons: \(ConsumptionRequestReason.catalog.map { Self.word($0.raw) }.joined(separator: ", "))")
                }
                return reason
            }
            rules.append(rule)
        }
        var customers: [Customer] = []
        for (index, customerTable) in try reader.tables(table, "customer").enumerated() {
            let label = "customer[\(index + 1)]"
            try reader.onlyKeys(customerTable, customerKeys, in: label)
            func text(_ key: String) throws(RefundPolicyError) -> String? {
                guard let value = customerTable[key] else { return nil }
                return try reader.string(value, key: key, table: customerTable, label: label)
            }
            let original = try text("original_transaction_id"), token = try text("app_account_token")
            let kind: RefundOverride.Kind, account: String
            switch (original, token) {
            case (let id?, nil):
                guard !id.isEmpty, id.allSatisfy(\.isASCII), id.allSatisfy(\.isNumber) else {
                    throw reader.error(customerTable, "original_transaction_id", "\"\(id)\" is not an original transaction ID (digits)", label: label)
                }
                (kind, account) = (.originalTransactionId, id)
            case (nil, let value?):
                guard UUID(uuidString: value) != nil else {
                    throw reader.error(customerTable, "app_account_token", "\"\(value)\" is not an app account token (a UUID)", label: label)
                }
                (kind, account) = (.appAccountToken, value)
            default:
                throw RefundPolicyError(
                    file: name, line: customerTable.line, key: label,
                    message: "names a customer by original_transaction_id or by app_account_token: exactly one of them")
            }
            let note = try text("note")
            customers.append(Customer(kind: kind, account: account, answer: try reader.answer(customerTable, label: label), note: note, line: customerTable.line))
        }
        var dryRun = false
        if let value = table["dry_run"] {
            guard let flag = value.bool else { throw reader.error(table, "dry_run", "must be true or false") }
            dryRun = flag
        }
        return RefundPolicy(name: name, consent: consent, defaults: defaults, rules: rules, customers: customers, dryRun: dryRun)
    }

    /// `unintended-purchase` or Apple's `UNINTENDED_PURCHASE`.
    static func reason(_ text: String) -> ConsumptionRequestReason? {
        let raw = text.uppercased().replacingOccurrences(of: "-", with: "_")
        let reason = ConsumptionRequestReason(raw)
        return reason.isKnown ? reason : nil
    }

    /// Apple's `UNDELIVERED_OTHER` as the file writes it: `undelivered-other`.
    static func word(_ raw: String) -> String { raw.lowercased().replacingOccurrences(of: "_", with: "-") }

    /// Reads values with errors that name the line and key.
    struct Reader {
        let file: String

        func error(_ table: TOMLTable, _ key: String, _ message: String, label: String? = nil) -> RefundPolicyError {
            RefundPolicyError(file: file, line: table.line(of: key) ?? table.line, key: label.map { "\($0).\(key)" } ?? key, message: message)
        }

        func onlyKeys(_ table: TOMLTable, _ known: [String], in label: String?) throws(RefundPolicyError) {
            for key in table.keys where !known.contains(key) {
                let place = label.map { "in \($0)" } ?? "at the top"
                throw error(table, key, "unknown key \(place) (expected \(known.joined(separator: ", ")))", label: label)
            }
        }

        func string(_ value: TOMLValue, key: String, table: TOMLTable, label: String? = nil) throws(RefundPolicyError) -> String {
            guard let text = value.string else { throw error(table, key, "must be a string in quotes", label: label) }
            return text
        }

        /// A string or a list of strings, each with its line.
        func strings(_ table: TOMLTable, _ key: String, label: String) throws(RefundPolicyError) -> [(String, Int?)] {
            guard let value = table[key] else { return [] }
            let line = table.line(of: key)
            if let text = value.string { return [(text, line)] }
            guard let list = value.array, !list.isEmpty, list.allSatisfy({ $0.string != nil }) else {
                throw error(table, key, "must be a string or a list of strings, such as [\"a\", \"b\"]", label: label)
            }
            return list.compactMap(\.string).map { ($0, line) }
        }

        /// `[[name]]` tables.
        func tables(_ table: TOMLTable, _ key: String) throws(RefundPolicyError) -> [TOMLTable] {
            guard let value = table[key] else { return [] }
            guard let list = value.array, list.allSatisfy({ $0.table != nil }) else {
                throw error(table, key, "must be tables written [[\(key)]]")
            }
            return list.compactMap(\.table)
        }

        /// The settings of an answer in `table` (the top, a rule or a customer).
        func answer(_ table: TOMLTable, label: String?) throws(RefundPolicyError) -> Answer {
            var answer = Answer()
            if let value = table["refund_preference"] {
                let text = try string(value, key: "refund_preference", table: table, label: label)
                guard let preference = Preference(rawValue: RefundPolicy.word(text)) else {
                    throw error(table, "refund_preference", "\"\(text)\" is not decline, grant-full, grant-prorated or none", label: label)
                }
                answer.refundPreference = preference
            }
            if let value = table["delivery_status"] {
                let text = try string(value, key: "delivery_status", table: table, label: label)
                if text == "from-transaction" {
                    answer.delivery = .fromTransaction
                } else {
                    let status = DeliveryStatus(text.uppercased().replacingOccurrences(of: "-", with: "_"))
                    guard status.isKnown else {
                        let known = ["from-transaction"] + DeliveryStatus.catalog.map { RefundPolicy.word($0.raw) }
                        throw error(table, "delivery_status", "\"\(text)\" is not one of \(known.joined(separator: ", "))", label: label)
                    }
                    answer.delivery = .fixed(status)
                }
            }
            if let value = table["consumption_share"] {
                if value.string == "omit" {
                    answer.share = .omitted
                } else if let number = value.number, number.isFinite, (0...100).contains(number) {
                    answer.share = .percent(number)
                } else {
                    throw error(table, "consumption_share", "must be a percentage from 0 to 100, or \"omit\" to leave it out", label: label)
                }
            }
            if let value = table["sample_content"] {
                guard let flag = value.bool else { throw error(table, "sample_content", "must be true or false", label: label) }
                answer.sampleContent = flag
            }
            if let value = table["answer"] {
                guard let flag = value.bool else { throw error(table, "answer", "must be true or false (false: these requests are not answered)", label: label) }
                answer.answers = flag
            }
            return answer
        }
    }
}
