import Foundation

/// One write as its ledger lines tell it: what was to be sent, every attempt, how it ended.
public struct WriteRecord: Sendable, Equatable {
    /// The first line (intent) of the write.
    public var intent: AuditLedger.Entry
    /// Every line of the write, in order.
    public var lines: [AuditLedger.Entry]

    public var requestIdentifier: String { intent.requestIdentifier }
    public var account: WriteAccount? { intent.account }

    /// The last outcome written, if any.
    public var lastOutcome: AuditLedger.Entry? { lines.last { $0.event == .outcome || $0.event == .resolved } }

    /// Known to be applied, refused or not sent, or closed by someone who checked. A send that
    /// started after the last outcome (a re-send that never answered) leaves it unresolved again.
    public var isResolved: Bool {
        guard let last = lines.last else { return false }
        switch last.event {
        case .intent, .resend: return false
        case .resolved: return true
        case .outcome: return last.outcome != .unknown
        }
    }

    /// What the write is now, in a few words.
    public var stateLabel: String {
        guard let last = lines.last else { return "unknown" }
        switch last.event {
        case .intent: return "no outcome: the process ended while it was being sent"
        case .resend: return "no outcome: the process ended while it was being re-sent"
        case .resolved: return "resolved by hand" + (last.detail.map { ": \($0)" } ?? "")
        case .outcome:
            switch last.outcome ?? .unknown {
            case .applied: return "applied" + (last.detail.map { " (\($0))" } ?? "")
            case .refused: return "refused by Apple" + (last.detail.map { ": \($0)" } ?? "")
            case .notSent: return "not sent" + (last.detail.map { ": \($0)" } ?? "")
            case .unknown: return "may have been applied" + (last.detail.map { " (\($0))" } ?? "")
            }
        }
    }

    /// The line that closes this write by hand, after someone checked what is true.
    public func resolution(note: String, source: WriteSource, agent: String, now: Date) -> AuditLedger.Entry {
        var line = lines.last ?? intent
        line.time = now
        line.event = .resolved
        line.outcome = nil
        line.detail = note
        line.source = source
        line.agent = agent
        return line
    }

    /// An outcome learned after the send's own was written: a re-send Apple refused as one it has
    /// seen before was applied by the earlier send. Settled by what happened, not closed by hand.
    public func outcome(_ status: AuditLedger.OutcomeStatus, detail: String, now: Date) -> AuditLedger.Entry {
        var line = lines.last ?? intent
        line.time = now
        line.event = .outcome
        line.outcome = status
        line.detail = detail
        return line
    }

    /// Folds ledger lines into writes, keyed by request identifier and account (two accounts may
    /// reuse an identifier; they are different writes).
    public static func fold(_ entries: [AuditLedger.Entry]) -> [WriteRecord] {
        var order: [String] = []
        var records: [String: WriteRecord] = [:]
        for entry in entries {
            let key = Self.key(entry)
            if var record = records[key] {
                record.lines.append(entry)
                records[key] = record
            } else {
                order.append(key)
                records[key] = WriteRecord(intent: entry, lines: [entry])
            }
        }
        return order.compactMap { records[$0] }
    }

    static func key(_ entry: AuditLedger.Entry) -> String {
        guard let account = entry.account else { return "legacy|" + entry.requestIdentifier }
        return [account.profile, account.environment, account.baseURL, account.bundleId, account.keyId, entry.requestIdentifier].joined(separator: "|")
    }
}
