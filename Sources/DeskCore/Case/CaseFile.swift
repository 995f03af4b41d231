import AppStoreServerAPI
import DeskStore
import Foundation

/// One document an agent attaches to a ticket: who the customer is, where they were found and
/// whether every signature verified; subscriptions and renewal info in words; purchases; refunds;
/// their notifications with every send attempt; and every write made for them. IDs whole, no secrets.
public struct CaseFile: Sendable {
    public var customer: CustomerState
    public var environment: AppStoreEnvironment
    /// The audit ledger's writes for this customer, oldest first.
    public var writes: [WriteRecord]
    /// The agents' case notes about this customer, oldest first.
    public var notes: [CaseNote]
    /// The notifications about this customer the store received.
    public var received: [StoredNotification]
    public var generatedAt: Date

    public init(
        customer: CustomerState, environment: AppStoreEnvironment, writes: [WriteRecord], notes: [CaseNote] = [], received: [StoredNotification] = [],
        generatedAt: Date
    ) {
        self.customer = customer
        self.environment = environment
        self.writes = writes
        self.notes = notes
        self.received = received
        self.generatedAt = generatedAt
    }

    /// Everything that happened to the customer, in time order.
    public var timeline: [TimelineEvent] { Timeline.events(customer: customer, writes: writes, notes: notes, received: received) }

    /// The ledger's writes for this app in the customer's environment (the same IDs elsewhere are
    /// other purchases) sent to one of the customer's IDs, or recorded with the order looked up.
    public static func writes(for customer: CustomerState, in records: [WriteRecord], environment: AppStoreEnvironment, bundleId: String?) -> [WriteRecord] {
        let environment = (customer.environment ?? environment).rawValue
        let records = records.filter { record in
            record.account.map { $0.environment == environment && (bundleId == nil || $0.bundleId == bundleId) } ?? false
        }
        var ids = Set(customer.originalTransactionIds)
        for row in customer.history.value ?? [] { if let id = row.payload?.transactionId { ids.insert(id) } }
        ids.insert(customer.query)
        // A write names the customer by an ID in its path, or by the order it was looked up by.
        return records.filter { record in
            !ids.isDisjoint(with: record.intent.path.split(separator: "/").map(String.init))
                || (record.intent.subject?.contains("order \(customer.query)") ?? false)
        }
    }

    var verdict: String {
        // The summary's payloads, and the customer's notifications too.
        let all = customer.verifications + (customer.notifications.value ?? []).compactMap { $0.decoded?.notification.status }
        let failed = all.filter { !$0.isVerified }
        if all.isEmpty { return "nothing signed was received" }
        if failed.isEmpty { return "all \(all.count) signed payloads verified" }
        return "\(failed.count) of \(all.count) signed payloads NOT verified: \(Set(failed.map(\.summary)).sorted().joined(separator: "; "))"
    }

    // MARK: Markdown

    public func markdown() -> String {
        var out: [String] = []
        let c = customer
        out.append("# Case file: \(c.query)")
        out.append("")
        out.append("- Generated: \(DisplayFormat.date(generatedAt, seconds: true))")
        out.append("- Environment: \((c.environment ?? environment).label)")
        if case .orderId = IDKind.classify(c.query) { out.append("- Order ID: \(c.query)") }
        let originals = c.originalTransactionIds
        if !originals.isEmpty { out.append("- Original transaction IDs: \(originals.joined(separator: ", "))") }
        if let app = c.appTransaction.value?.payload?.appTransactionId { out.append("- App transaction ID: \(app)") }
        if let match = c.account.value {
            // Where the store's index found the customer, and what it cannot know.
            out.append("- Looked up by \(match.kind.label): \(match.account)")
            out += match.lines(now: generatedAt).dropFirst().map { "  - " + $0.trimmingCharacters(in: .whitespaces) }
        }
        out.append("- Verification: \(verdict)")
        out.append("")

        out.append("## Subscriptions")
        out.append("")
        section(c.subscriptions, into: &out) { rows in
            if rows.isEmpty { return ["None."] }
            return rows.flatMap { row -> [String] in
                let t = row.transaction?.payload
                let r = row.renewal?.payload
                var lines = ["- **\(row.status?.label ?? "Unknown status")**: \(t?.productId ?? "-"), original transaction \(row.originalTransactionId), group \(row.groupIdentifier)"]
                lines.append("  - \(Self.renewalWords(row))")
                if let intent = r?.expirationIntent { lines.append("  - Expired because: \(intent.label)") }
                if row.status != .expired, row.status != .revoked {
                    let facts = BillingFacts.of(row, history: c.history.value, notifications: c.notifications.value)
                    lines += facts.lines().map { "  - " + $0.trimmingCharacters(in: .whitespaces) }
                } else if let grace = r?.gracePeriodExpiresDate {
                    lines.append("  - Grace period until \(DisplayFormat.date(grace))")
                }
                if r?.priceIncreaseStatus == .customerHasNotResponded { lines.append("  - A price increase is not yet accepted") }
                if let product = r?.autoRenewProductId, product != t?.productId { lines.append("  - Renews into \(product)") }
                if let offer = SubscriptionOffer.current(row) { lines.append("  - Offer: \(offer)") }
                return lines
            }
        }
        out.append("")

        out.append("## Purchases")
        out.append("")
        section(c.history, into: &out) { rows in
            if rows.isEmpty { return ["None."] }
            var lines = ["| Purchased | Product | Type | Price | Transaction | Original | Verified |", "| --- | --- | --- | --- | --- | --- | --- |"]
            for row in rows {
                let t = row.payload
                lines.append("| \(DisplayFormat.date(t?.purchaseDate)) | \(t?.productId ?? "-") | \(t?.type?.label ?? "-") | \(DisplayFormat.money(t?.price, t?.currency)) | \(t?.transactionId ?? "-") | \(t?.originalTransactionId ?? "-") | \(row.status.isVerified ? "yes" : "NO: " + row.status.summary) |")
            }
            return lines
        }
        out.append("")

        out.append("## Refunds")
        out.append("")
        section(c.refunds, into: &out) { rows in
            if rows.isEmpty { return ["None."] }
            return rows.map { row in
                let t = row.payload
                var amount = DisplayFormat.money(t?.price, t?.currency)
                if let t, t.revocationType == .familyRevoke {
                    amount = "Family Sharing access revoked, no refund"
                } else if let t, let share = t.revocationPercentage, share < 100_000 {
                    amount = "\(DisplayFormat.money(Timeline.refundedAmount(t), t.currency)) refunded (\(DisplayFormat.percentage(share)) prorated) of \(amount)"
                }
                return "- \(DisplayFormat.date(t?.revocationDate)): \(t?.productId ?? "-"), transaction \(t?.transactionId ?? "-"), \(amount), reason \(t?.revocationReason?.label ?? "-")"
            }
        }
        out.append("")

        out.append("## Notifications")
        out.append("")
        section(c.notifications, into: &out) { rows in
            if rows.isEmpty { return ["None in the window searched."] }
            return rows.flatMap { row -> [String] in
                let p = row.payload
                let kind = [p?.notificationType?.rawValue, p?.subtype?.rawValue].compactMap { $0 }.joined(separator: "/")
                var lines = ["- \(DisplayFormat.date(p?.signedDate, seconds: true)) \(kind.isEmpty ? "?" : kind), notificationUUID \(p?.notificationUUID ?? "-")"]
                for attempt in row.attempts {
                    lines.append("  - attempt \(DisplayFormat.date(attempt.attemptDate, seconds: true)): \(attempt.sendAttemptResult?.rawValue ?? "?")")
                }
                return lines
            }
        }
        out.append("")

        out.append("## Writes from iapdesk")
        out.append("")
        if writes.isEmpty { out.append("None recorded in the audit ledger.") }
        for record in writes {
            let intent = record.intent
            out.append("- \(DisplayFormat.date(intent.time)) \(intent.action) for \(intent.subject ?? intent.path): \(record.stateLabel) (by \(intent.agent ?? "?") from \(intent.source?.rawValue ?? "?"), profile \(intent.account?.profile ?? "?"), request \(record.requestIdentifier))")
        }
        out.append("")

        out.append("## Notes")
        out.append("")
        if notes.isEmpty { out.append("None.") }
        for note in notes { out.append("- \(DisplayFormat.date(note.time)) \(note.agent): \(note.text)") }
        out.append("")

        out.append("## Timeline")
        out.append("")
        out.append("Spent: \(Timeline.spentLine(c)).")
        out.append("")
        for event in timeline {
            out.append("- \(DisplayFormat.date(event.time)) **\(event.kind.rawValue)** \(event.summary)\(event.detail.map { " (\($0))" } ?? "") [\(event.source.rawValue)]")
        }
        return out.joined(separator: "\n") + "\n"
    }

    private func section<T>(_ loadable: Loadable<T>, into out: inout [String], _ body: (T) -> [String]) {
        switch loadable {
        case .loaded(let value): out += body(value)
        case .failed(let error): out.append("Not available: \(error.summary)")
        case .idle: out.append("Not loaded.")
        case .loading: out.append("Still loading when the file was made.")
        }
    }

    static func renewalWords(_ row: SubscriptionRow) -> String {
        let t = row.transaction?.payload
        let r = row.renewal?.payload
        let due = r?.renewalDate ?? t?.expiresDate
        switch row.status {
        case .expired?, .revoked?: return "Ended \(DisplayFormat.date(t?.revocationDate ?? t?.expiresDate))"
        case .billingRetry?, .billingGracePeriod?: return "Renewal due since \(DisplayFormat.date(due)); Apple is retrying the payment"
        default:
            return r?.autoRenewStatus == .on
                ? "Renews \(DisplayFormat.date(due)) (auto-renew on)" : "Ends \(DisplayFormat.date(t?.expiresDate)) (auto-renew off)"
        }
    }

    // MARK: JSON

    public func json() -> Data {
        let c = customer
        func transaction(_ row: VerifiedTransaction) -> [String: Any] {
            var object: [String: Any] = ["verified": row.status.isVerified, "verification": row.status.summary]
            if let raw = row.rawPayload, let payload = try? JSONSerialization.jsonObject(with: raw) { object["payload"] = payload }
            return object
        }
        var document: [String: Any] = [
            "query": c.query, "environment": (c.environment ?? environment).rawValue, "generatedAt": DisplayFormat.iso(generatedAt),
            "originalTransactionIds": c.originalTransactionIds, "verification": verdict,
        ]
        if let match = c.account.value {
            document["lookedUpBy"] = [
                "kind": match.kind.rawValue, "account": match.account,
                "links": match.links.map { link -> [String: Any] in
                    ["originalTransactionId": link.originalTransactionId, "source": link.source.rawValue, "lastSeen": DisplayFormat.iso(link.lastSeen),
                     "signedDate": DisplayFormat.iso(link.signedDate)]
                },
            ] as [String: Any]
        }
        document["subscriptions"] = c.subscriptions.value?.map { row -> [String: Any] in
            var object: [String: Any] = ["originalTransactionId": row.originalTransactionId, "groupIdentifier": row.groupIdentifier,
                                         "status": row.status?.label ?? "unknown", "inWords": Self.renewalWords(row)]
            if let t = row.transaction { object["transaction"] = transaction(t) }
            if let r = row.renewal {
                var renewal: [String: Any] = ["verified": r.status.isVerified, "verification": r.status.summary]
                if let raw = r.rawPayload, let payload = try? JSONSerialization.jsonObject(with: raw) { renewal["payload"] = payload }
                object["renewalInfo"] = renewal
            }
            return object
        }
        document["purchases"] = c.history.value?.map(transaction)
        document["refunds"] = c.refunds.value?.map(transaction)
        document["notifications"] = c.notifications.value?.map { row -> [String: Any] in
            var object: [String: Any] = [
                "notificationUUID": row.payload?.notificationUUID ?? "", "notificationType": row.payload?.notificationType?.rawValue ?? "",
                "sendAttempts": row.attempts.map { ["attemptDate": $0.attemptDate.map(DisplayFormat.iso) ?? "", "result": $0.sendAttemptResult?.rawValue ?? ""] },
            ]
            if let subtype = row.payload?.subtype?.rawValue { object["subtype"] = subtype }
            if let signed = row.payload?.signedDate { object["signedDate"] = DisplayFormat.iso(signed) }
            return object
        }
        document["writes"] = writes.map { record -> [String: Any] in
            ["write": record.intent.write, "subject": record.intent.subject ?? record.intent.path, "state": record.stateLabel,
             "started": DisplayFormat.iso(record.intent.time), "agent": record.intent.agent ?? "", "source": record.intent.source?.rawValue ?? "",
             "requestIdentifier": record.requestIdentifier, "profile": record.intent.account?.profile ?? ""]
        }
        document["notes"] = notes.map { ["time": DisplayFormat.iso($0.time), "agent": $0.agent, "text": $0.text] }
        document["timeline"] = timeline.map { event -> [String: Any] in
            var object: [String: Any] = ["time": DisplayFormat.iso(event.time), "kind": event.kind.rawValue, "summary": event.summary, "source": event.source.rawValue]
            if let id = event.transactionId { object["transactionId"] = id }
            if let detail = event.detail { object["detail"] = detail }
            return object
        }
        for (key, loadable) in [("subscriptions", c.subscriptions.failure), ("purchases", c.history.failure), ("refunds", c.refunds.failure),
                                ("notifications", c.notifications.failure)] {
            if let error = loadable { document[key + "Error"] = error.summary }
        }
        return (try? JSONSerialization.data(withJSONObject: document, options: [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes])) ?? Data()
    }
}

extension Loadable {
    var failure: DisplayError? {
        if case .failed(let error) = self { return error }
        return nil
    }
}
