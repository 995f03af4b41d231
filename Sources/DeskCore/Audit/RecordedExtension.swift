import AppStoreServerAPI
import Foundation

/// An extension of one subscription as the audit ledger has it, whoever sent it: what an agent
/// reads before sending another ("extended 3 days ago by sam: 7 days, service issue or outage").
public struct RecordedExtension: Sendable, Equatable {
    public var time: Date
    public var agent: String?
    public var days: Int?
    public var reason: String?
    /// "applied", "may have been applied", "refused by Apple: ...".
    public var state: String
    public var applied: Bool

    public init(time: Date, agent: String?, days: Int?, reason: String?, state: String, applied: Bool) {
        self.time = time
        self.agent = agent
        self.days = days
        self.reason = reason
        self.state = state
        self.applied = applied
    }

    /// The extensions of `path` (one subscription's) in the ledger for this app, environment and
    /// server, by any agent with any key, started at or after `since`, oldest first. Writes stopped
    /// before the network are left out: nothing was sent.
    public static func find(in writes: [WriteRecord], path: String, account: WriteAccount, since: Date) -> [RecordedExtension] {
        let target = SendGuard.sameTarget(path: path, account: account, seenAt: since)
        return writes.compactMap { record in
            guard target.matches(record), record.intent.write == WriteKind.extend.rawValue, record.intent.time >= since,
                  record.lastOutcome?.outcome != .notSent
            else { return nil }
            let request = record.intent.body.flatMap { try? AppStoreJSON.decode(ExtendRenewalDateRequest.self, from: Data($0.utf8)) }
            let reason = request?.extendReasonCode.map { $0.label }
            return RecordedExtension(
                time: record.intent.time, agent: record.intent.agent, days: request?.extendByDays.map(Int.init), reason: reason,
                state: record.stateLabel, applied: record.lastOutcome?.outcome == .applied)
        }
    }

    /// "3 days ago by sam: 7 days, Service issue or outage (applied)".
    public func line(now: Date) -> String {
        var text = "\(DisplayFormat.relative(time, now: now)) by \(agent ?? "someone")"
        var what: [String] = []
        if let days { what.append("\(days) day\(days == 1 ? "" : "s")") }
        if let reason { what.append(reason) }
        if !what.isEmpty { text += ": " + what.joined(separator: ", ") }
        return text + " (\(state))"
    }
}
