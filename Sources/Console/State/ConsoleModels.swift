import AppStoreServerAPI
import Foundation
import TerminalUI

/// An error as the console shows it: what happened and what to do, with the API error behind it
/// kept as a value, so decisions read its code and status, never its text.
public struct DisplayError: Error, Sendable, Equatable {
    public var summary: String
    public var hint: String?
    public var source: APIError?
    /// The environment the failed request went to, when it went to one.
    public var environment: AppStoreEnvironment?

    public init(summary: String, hint: String? = nil, source: APIError? = nil, environment: AppStoreEnvironment? = nil) {
        self.summary = summary
        self.hint = hint
        self.source = source
        self.environment = environment
    }

    /// "Apple error 4040010 · HTTP 404 · Sandbox": what the error is, for a ticket or a search.
    public var facts: String? {
        var parts: [String] = []
        if let code { parts.append("Apple error \(code.rawValue)") }
        if let httpStatus { parts.append("HTTP \(httpStatus)") }
        if let environment { parts.append(environment.label) }
        return parts.isEmpty ? nil : parts.joined(separator: " · ")
    }

    public init(_ error: APIError) {
        self.init(summary: error.summary, hint: error.hint, source: error)
    }

    /// Apple's error code, when Apple answered with one.
    public var code: APIErrorCode? {
        if case .server(let failure)? = source { return failure.code }
        return nil
    }

    /// The HTTP status Apple answered with, when it answered.
    public var httpStatus: Int? {
        switch source {
        case .server(let failure)?: return failure.status
        case .unauthorized?: return 401
        default: return nil
        }
    }

    public init(_ error: any Error) {
        if let api = error as? APIError {
            self.init(api)
        } else if error is CancellationError {
            self.init(summary: "Cancelled.")
        } else {
            self.init(summary: "\(error)")
        }
    }
}

extension Loadable: Equatable where Value: Equatable {}

/// A verified paste as the Inspector shows it: the report and its tree, built once when the report
/// arrives rather than at every key and frame.
public struct InspectorResult: Sendable {
    public let report: InspectionReport
    public let tree: TreeNode

    public init(_ report: InspectionReport) {
        self.report = report
        self.tree = DetailContent.inspectionTree(report)
    }
}

/// Loading state of one part of a pane.
public enum Loadable<Value: Sendable>: Sendable {
    case idle
    case loading
    case loaded(Value)
    case failed(DisplayError)

    public var value: Value? {
        if case .loaded(let value) = self { return value }
        return nil
    }

    public var isLoading: Bool {
        if case .loading = self { return true }
        return false
    }

    public var isLoaded: Bool { value != nil }

    public var error: DisplayError? {
        if case .failed(let error) = self { return error }
        return nil
    }
}

public typealias VerifiedTransaction = VerifiedPayload<TransactionPayload>
public typealias VerifiedRenewal = VerifiedPayload<RenewalInfoPayload>

/// One subscription chain as Get All Subscription Statuses reports it.
public struct SubscriptionRow: Sendable {
    public var groupIdentifier: String
    public var originalTransactionId: String
    public var status: SubscriptionStatus?
    public var transaction: VerifiedTransaction?
    public var renewal: VerifiedRenewal?

    public init(groupIdentifier: String, originalTransactionId: String, status: SubscriptionStatus?, transaction: VerifiedTransaction?, renewal: VerifiedRenewal?) {
        self.groupIdentifier = groupIdentifier
        self.originalTransactionId = originalTransactionId
        self.status = status
        self.transaction = transaction
        self.renewal = renewal
    }
}

/// One notification from the history with its delivery attempts.
public struct NotificationRow: Sendable {
    public var decoded: DecodedNotification?
    public var signedPayload: String
    public var attempts: [SendAttemptItem]

    public init(decoded: DecodedNotification?, signedPayload: String, attempts: [SendAttemptItem]) {
        self.decoded = decoded
        self.signedPayload = signedPayload
        self.attempts = attempts
    }

    public var payload: NotificationPayload? { decoded?.notification.payload }
    public var delivered: Bool { attempts.contains { $0.sendAttemptResult == .success } }
}

/// The order lookup of the customer pane.
public struct OrderResult: Sendable {
    public var orderId: String
    public var status: OrderLookupStatus?
    public var transactions: [VerifiedTransaction]

    public init(orderId: String, status: OrderLookupStatus?, transactions: [VerifiedTransaction]) {
        self.orderId = orderId
        self.status = status
        self.transactions = transactions
    }
}

/// What a typed ID is, judged by its shape. An app transaction ID has a transaction ID's shape;
/// Apple tells them apart (Get Transaction Info answers 4000048 for it).
public enum IDKind: Sendable, Equatable {
    case orderId(String)
    case transactionId(String)
    /// The UUID the app set as appAccountToken (its own user ID), in lowercase.
    case appAccountToken(String)
    case invalid(String)

    /// "Order ID: MK5TTTVWJH" as pasted from a receipt, or "#2000…": the ID without its label.
    static func withoutLabel(_ text: String) -> String {
        var rest = Substring(text)
        for label in [
            "order id", "order", "app transaction id", "app transaction", "transaction id", "original transaction id", "transaction",
            "app account token", "appaccounttoken", "account token", "account id", "account", "user id", "id",
        ] {
            if rest.lowercased().hasPrefix(label) {
                let after = rest.dropFirst(label.count)
                if after.first == ":" || after.first == " " || after.first == "#" { rest = after; break }
            }
        }
        return String(rest.drop { $0 == ":" || $0 == "#" || $0 == " " }).trimmingCharacters(in: .whitespaces)
    }

    /// A UUID as apps show it: with dashes, in braces, or as 32 hex digits; in lowercase with dashes.
    static func accountToken(_ text: String) -> String? {
        var hex = text
        if hex.hasPrefix("{") && hex.hasSuffix("}") { hex = String(hex.dropFirst().dropLast()) }
        // Digits alone are a transaction ID, however long.
        if hex.count == 32, hex.allSatisfy(\.isHexDigit), hex.contains(where: \.isLetter) {
            let c = Array(hex)
            hex = [c[0..<8], c[8..<12], c[12..<16], c[16..<20], c[20..<32]].map { String($0) }.joined(separator: "-")
        }
        guard hex.count == 36, UUID(uuidString: hex) != nil else { return nil }
        return hex.lowercased()
    }

    /// Order IDs mix capital letters and digits (MK5TTTVWJH); transaction IDs are digits only.
    public static func classify(_ raw: String) -> IDKind {
        let text = withoutLabel(raw.trimmingCharacters(in: .whitespacesAndNewlines))
        guard !text.isEmpty else { return .invalid("Type an order ID (such as MK5TTTVWJH), a transaction ID or the app's account ID (a UUID).") }
        if let token = accountToken(text) { return .appAccountToken(token) }
        let shown: String = text.count > 24 ? String(text.prefix(20)) + "…" : text
        guard text.count <= 40 else {
            return .invalid("\"\(shown)\" is \(text.count) characters: order IDs have 6 to 20, transaction IDs at most 40, account IDs (UUIDs) 36.")
        }
        if text.allSatisfy(\.isASCII), text.allSatisfy(\.isNumber) { return .transactionId(text) }
        let upper = text.uppercased()
        if upper.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber) }) {
            if (6...20).contains(upper.count) { return .orderId(upper) }
            return .invalid("\"\(shown)\" has \(upper.count) letters and digits: an order ID has 6 to 20 (such as MK5TTTVWJH), a transaction ID digits only.")
        }
        return .invalid("\"\(shown)\" has characters no ID has: order IDs are letters and digits (such as MK5TTTVWJH), transaction IDs digits only, account IDs UUIDs.")
    }
}

/// Earlier extensions of one subscription: Apple offers no count, so they are found in Apple's
/// notification history (as far back as it keeps) and in this ledger (for what is older).
public struct ExtensionCount: Sendable, Equatable {
    /// Dates of RENEWAL_EXTENDED notifications for this subscription in Apple's history.
    public var notified: [Date]
    /// Applied extensions in the ledger older than that history, within the last 365 days.
    public var fromLedger: [Date]
    /// How far back Apple's history reaches in this environment (180 days in Production, 30 in Sandbox).
    public var windowDays: Int
    /// This subscription's extensions in the audit ledger in the last 365 days, by any agent.
    public var recorded: [RecordedExtension]
    /// When the ledger was read: a write to the subscription recorded after it makes the agent look again.
    public var readAt: Date?
    /// Extensions the ledger has applied inside Apple's window beyond those its history lists yet.
    public var notYetNotified: [Date] = []

    public init(notified: [Date], fromLedger: [Date], windowDays: Int, recorded: [RecordedExtension] = [], readAt: Date? = nil) {
        self.notified = notified
        self.fromLedger = fromLedger
        self.windowDays = windowDays
        self.recorded = recorded
        self.readAt = readAt
    }

    public var total: Int { notified.count + notYetNotified.count + fromLedger.count }

    /// "2 found in the last 180 days; older ones unknown".
    public var summary: String {
        var text = "\(notified.count) found in the last \(windowDays) days"
        if !notYetNotified.isEmpty { text += ", \(notYetNotified.count) more applied in the audit ledger" }
        if !fromLedger.isEmpty { text += ", \(fromLedger.count) older in the audit ledger" }
        return text + (windowDays < 365 ? "; older ones by other tools unknown" : "")
    }
}

/// A write of an earlier session of this account with no known outcome.
public struct UnresolvedWrite: Sendable, Equatable {
    public var record: WriteRecord
    /// An extension can be re-sent from the console with its request identifier; other writes
    /// are re-run from the command line.
    public var extend: ExtendTarget?

    public init(record: WriteRecord, extend: ExtendTarget?) {
        self.record = record
        self.extend = extend
    }
}
