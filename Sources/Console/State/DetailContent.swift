import AppStoreServerAPI
import DeskCore
import DeskStore
import Foundation
import NotificationReconcile
import TerminalUI

/// The detail view of a pane's selected row, as a foldable tree: the trees of each kind of row.
public enum DetailContent {
    public static func tree(_ state: ConsoleState, _ pane: Pane) -> TreeNode? {
        Panes.description(pane).detail(state)
    }

    public static func lineCount(_ state: ConsoleState, _ pane: Pane) -> Int {
        tree(state, pane)?.lines(folded: state.list(pane).folded).count ?? 0
    }

    public static func path(_ state: ConsoleState, _ pane: Pane, line: Int) -> String? {
        let lines = tree(state, pane)?.lines(folded: state.list(pane).folded) ?? []
        return lines.indices.contains(line) ? lines[line].node.path : nil
    }

    static func subscriptionTree(_ row: SubscriptionRow) -> TreeNode {
        var children: [TreeNode] = [
            TreeNode(label: "Status", value: row.status?.label ?? "-", path: "status"),
            TreeNode(label: "Original transaction ID", value: row.originalTransactionId, path: "otid"),
        ]
        if let renewal = row.renewal { children.append(payloadTree("Renewal info", VerifiedPart(path: "", kind: "renewal info", renewal), path: "renewal")) }
        if let transaction = row.transaction { children.append(payloadTree("Latest transaction", VerifiedPart(path: "", kind: "transaction", transaction), path: "transaction")) }
        return TreeNode(label: "Subscription", children: children, path: "")
    }

    static func transactionTree(_ row: VerifiedTransaction) -> TreeNode {
        payloadTree("Transaction \(row.payload?.transactionId ?? "")", VerifiedPart(path: "", kind: "transaction", row), path: "")
    }

    /// The verdict with one line per check under it, then the payload's JSON.
    static func payloadTree(_ title: String, _ part: VerifiedPart, path: String) -> TreeNode {
        let checks = part.checks.map { TreeNode(label: $0.subject.rawValue, value: $0.outcomeText, path: path + "/verification/" + $0.subject.rawValue) }
        var children = [TreeNode(label: "Verification", value: part.headline, children: checks, path: path + "/verification")]
        if let raw = part.rawPayload, let json = try? JSONValue.parse(raw) {
            children += jsonChildren(json, path: path + "/json")
        }
        return TreeNode(label: title, children: children, path: path)
    }

    static func notificationTree(
        _ row: NotificationRow, environment: AppStoreEnvironment, arrival: StoredNotification?? = nil, verdict: ReconcileVerdict? = nil
    ) -> TreeNode {
        var attempts: [TreeNode] = []
        for (index, attempt) in row.attempts.enumerated() {
            let result = attempt.sendAttemptResult
            attempts.append(TreeNode(
                label: "\(DisplayFormat.date(attempt.attemptDate, seconds: true))  \(result?.rawValue ?? "?")",
                value: result?.hint, path: "attempt\(index)"))
        }
        if let next = NotificationSchedule.nextRetry(row.attempts, environment: environment) {
            attempts.append(TreeNode(label: "Next retry", value: "\(DisplayFormat.date(next)) (Apple retries 1, 12, 24, 48 and 72 hours after each failure)", path: "next"))
        } else if !row.delivered {
            attempts.append(TreeNode(label: "Retries", value: environment == .sandbox ? "Sandbox does not retry." : "Apple's retries are exhausted: fetch this notification from history.", path: "next"))
        }
        var children = [TreeNode(label: "Send attempts (\(row.attempts.count))", children: attempts, path: "attempts")]
        if let arrival {
            // Known only when a notification store is read: nil inside means it never arrived there.
            children.append(TreeNode(label: "Arrived here", value: arrival.map {
                "\(LivePane.receivedText($0)), answered HTTP \($0.answeredStatus), \($0.verdict)" + ($0.forwardResult.map { "; forwarded to the app: \($0)" } ?? "")
            } ?? "no: not in the notification store", path: "arrived"))
        }
        if let verdict {
            children.append(TreeNode(label: "Verdict", value: "\(verdict.title): \(verdict.action)", path: "verdict"))
        }
        if let decoded = row.decoded {
            for (index, part) in decoded.parts.enumerated() {
                children.append(payloadTree(part.path.isEmpty ? "Notification" : part.path, part, path: "part\(index)"))
            }
        }
        return TreeNode(label: row.payload?.notificationType?.rawValue ?? "Notification", children: children, path: "")
    }

    /// A legacy app receipt: what is not checked first, the app's fields, then each in-app purchase
    /// (newest first, paths `receipt/purchase/N`) with its fields.
    static func receiptTree(_ receipt: AppReceipt) -> TreeNode {
        func field(_ label: String, _ value: String?, _ path: String) -> TreeNode? {
            value.map { TreeNode(label: label, value: $0, path: path) }
        }
        func date(_ date: Date?) -> String? { date.map { DisplayFormat.date($0, seconds: true) } }
        var children: [TreeNode] = [
            TreeNode(label: "Verification", value: "not verified: the PKCS#7 signature, Apple's certificate and the device hash are not checked; l looks a purchase up, and the lookup verifies what Apple answers", path: "receipt/verification"),
        ]
        children += [
            field("Bundle ID", receipt.bundleId, "receipt/bundleId"), field("App version", receipt.applicationVersion, "receipt/applicationVersion"),
            field("Original app version", receipt.originalApplicationVersion, "receipt/originalApplicationVersion"),
            field("Receipt type", receipt.receiptType, "receipt/receiptType"), field("App item ID", receipt.appItemId.map(String.init), "receipt/appItemId"),
            field("Created", date(receipt.creationDate), "receipt/creationDate"), field("First download", date(receipt.originalPurchaseDate), "receipt/originalPurchaseDate"),
            field("Expires", date(receipt.expirationDate), "receipt/expirationDate"),
            TreeNode(label: "Container", value: "PKCS#7 SignedData, \(DisplayFormat.count(receipt.certificateCount, "certificate")), \(DisplayFormat.count(receipt.signerCount, "signer"))", path: "receipt/container"),
        ].compactMap { $0 }
        let purchases = receipt.newestFirst.enumerated().map { index, p in
            let path = "receipt/purchase/\(index)"
            let fields: [TreeNode] = [
                field("Transaction ID", p.transactionId, path + "/transactionId"), field("Original transaction ID", p.originalTransactionId, path + "/originalTransactionId"),
                field("Product", p.productId, path + "/productId"), field("Quantity", p.quantity.map(String.init), path + "/quantity"),
                field("Purchased", date(p.purchaseDate), path + "/purchaseDate"), field("Original purchase", date(p.originalPurchaseDate), path + "/originalPurchaseDate"),
                field("Expires", date(p.expiresDate), path + "/expiresDate"), field("Cancelled", date(p.cancellationDate), path + "/cancellationDate"),
                field("Web order line item ID", p.webOrderLineItemId, path + "/webOrderLineItemId"),
                field("Free trial", p.isTrialPeriod.map { $0 ? "yes" : "no" }, path + "/isTrialPeriod"),
                field("Introductory offer", p.isInIntroOfferPeriod.map { $0 ? "yes" : "no" }, path + "/isInIntroOfferPeriod"),
                field("Promotional offer", p.promotionalOfferId, path + "/promotionalOfferId"),
            ].compactMap { $0 }
            let summary = [p.productId, DisplayFormat.date(p.purchaseDate)].compactMap { $0 }.joined(separator: " · ")
            return TreeNode(label: p.transactionId ?? "(no transaction ID)", value: summary, children: fields, path: path)
        }
        children.append(TreeNode(label: "In-app purchases", value: purchases.isEmpty ? "none" : DisplayFormat.count(purchases.count, "purchase") + ", newest first",
                                 children: purchases, path: "receipt/purchases"))
        if !receipt.problems.isEmpty {
            children.append(TreeNode(label: "Left out", children: receipt.problems.enumerated().map { TreeNode(label: $1, path: "receipt/problem/\($0)") }, path: "receipt/problems"))
        }
        return TreeNode(label: "App receipt", value: "read, not verified", children: children, path: "receipt")
    }

    /// A line saying how many payloads verified, then each payload with its JSON path and verdict.
    static func inspectionTree(_ report: InspectionReport) -> TreeNode {
        if let problem = report.problem { return TreeNode(label: "No signed data", value: problem, path: "") }
        if report.items.count == 1, case .unrecognised(let reason) = report.items[0].decoded {
            return TreeNode(label: "Not App Store signed data", value: reason, path: "")
        }
        let parts = report.parts
        let children = parts.enumerated().map { index, part in
            payloadTree("\(part.kind.prefix(1).uppercased() + part.kind.dropFirst()) at \(part.path)", part, path: "part\(index)")
        }
        let verified = parts.filter { $0.status.isVerified }.count
        let summary = verified == parts.count ? "all verified" : "\(verified) verified, \(parts.count - verified) NOT verified"
        return TreeNode(label: "\(parts.count) signed payload\(parts.count == 1 ? "" : "s")", value: summary, children: children, path: "")
    }

    /// JSON as tree nodes; millisecond dates get their UTC date beside them.
    static func jsonChildren(_ value: JSONValue, path: String) -> [TreeNode] {
        switch value {
        case .object(let members):
            return members.map { member in node(member.key, member.value, path: path + "." + member.key) }
        case .array(let items):
            return items.enumerated().map { node("[\($0.offset)]", $0.element, path: path + "[\($0.offset)]") }
        default:
            return [node("value", value, path: path)]
        }
    }

    static func node(_ label: String, _ value: JSONValue, path: String) -> TreeNode {
        switch value {
        case .object, .array:
            return TreeNode(label: label, children: jsonChildren(value, path: path), path: path)
        case .string(let text):
            return TreeNode(label: label, value: text.count > 120 ? String(text.prefix(60)) + "…(\(text.count) chars)" : text, path: path)
        case .number(let text):
            if label.hasSuffix("Date"), let ms = Double(text), ms > 100_000_000_000 {
                return TreeNode(label: label, value: "\(text)  (\(DisplayFormat.date(Date(epochMilliseconds: ms), seconds: true)))", path: path)
            }
            return TreeNode(label: label, value: text, path: path)
        case .bool(let flag): return TreeNode(label: label, value: flag ? "true" : "false", path: path)
        case .null: return TreeNode(label: label, value: "null", path: path)
        }
    }
}

/// Apple's delivery retry schedule (Production only): 1, 12, 24, 48, 72 hours after the previous attempt.
public enum NotificationSchedule {
    public static let intervals: [TimeInterval] = [1, 12, 24, 48, 72].map { $0 * 3600 }

    public static func nextRetry(_ attempts: [SendAttemptItem], environment: AppStoreEnvironment) -> Date? {
        guard environment != .sandbox, !attempts.isEmpty, !attempts.contains(where: { $0.sendAttemptResult == .success }),
              attempts.count <= intervals.count, let last = attempts.last?.attemptDate else { return nil }
        return last.addingTimeInterval(intervals[attempts.count - 1])
    }
}
