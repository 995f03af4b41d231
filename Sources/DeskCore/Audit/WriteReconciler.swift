import AppStoreServerAPI
import Foundation

/// Decides, at start, what happens to writes left without an outcome: only writes made in the
/// running session's account by the same agent are touched (on a team's store another agent's
/// write may be on the wire right now); a recent extension is re-sent with its request
/// identifier (Apple applies an identifier once); anything older waits for the agent to decide.
public enum WriteReconciler {
    public struct Plan: Sendable, Equatable {
        /// Extensions of this account attempted in the last few minutes: re-sent at once.
        public var resend: [UnresolvedWrite] = []
        /// Older writes of this account, and writes the console cannot re-send: the agent decides.
        public var ask: [UnresolvedWrite] = []
        /// Unresolved writes of other profiles, servers, apps or keys: never touched here.
        public var otherAccounts: [WriteRecord] = []
        /// Unresolved writes of this account by other agents: theirs to finish.
        public var otherAgents: [WriteRecord] = []
    }

    /// How old the last attempt may be for a re-send without asking.
    public static let automaticResendWindow: TimeInterval = 10 * 60

    /// `agent`: the running agent's name; nil takes every agent's writes as this one's.
    public static func plan(_ unresolved: [WriteRecord], accounts: Set<WriteAccount>, agent: String? = nil, now: Date) -> Plan {
        var plan = Plan()
        for record in unresolved {
            guard let account = record.account, accounts.contains(account) else {
                plan.otherAccounts.append(record)
                continue
            }
            if let agent, let writer = record.intent.agent, writer != agent {
                plan.otherAgents.append(record)
                continue
            }
            let target = extendTarget(record)
            let lastAttempt = record.lines.last?.time ?? record.intent.time
            let write = UnresolvedWrite(record: record, extend: target)
            if target != nil, now.timeIntervalSince(lastAttempt) < automaticResendWindow {
                plan.resend.append(write)
            } else {
                plan.ask.append(write)
            }
        }
        return plan
    }

    /// The extension a record describes, ready to send again with its request identifier.
    public static func extendTarget(_ record: WriteRecord) -> ExtendTarget? {
        let intent = record.intent
        guard intent.write == WriteKind.extend.rawValue, let body = intent.body,
              let request = try? AppStoreJSON.decode(ExtendRenewalDateRequest.self, from: Data(body.utf8)),
              request.requestIdentifier == record.requestIdentifier,
              let segment = intent.path.split(separator: "/").last, let id = String(segment).removingPercentEncoding, !id.isEmpty
        else { return nil }
        let target = ExtendTarget(
            originalTransactionId: id, body: request, environment: intent.account.map { AppStoreEnvironment($0.environment) },
            subject: intent.subject ?? "original transaction \(id)", isResend: true)
        // Only what rebuilds into the very request recorded is sent again.
        let endpoint = target.endpoint
        guard endpoint.method == intent.method, endpoint.path == intent.path,
              endpoint.body.map({ String(decoding: $0, as: UTF8.self) }) == body else { return nil }
        return target
    }
}
