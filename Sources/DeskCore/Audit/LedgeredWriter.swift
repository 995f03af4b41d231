import AppStoreServerAPI
import DeskStore
import Foundation

/// Who is writing, and where the ledger is: everything a write needs besides its request.
public struct WriteContext: Sendable {
    public var ledger: AuditLedger
    public var profile: String
    public var bundleId: String
    public var keyId: String
    /// The demo's server moves to a new port each run; its writes are keyed to "demo" instead.
    public var isDemo: Bool
    public var source: WriteSource
    public var agent: String
    /// The state folder (case files are saved in its `cases/`); nil when there is none.
    public var stateFolder: String?
    /// Where case notes are kept: the same store as the ledger.
    public var notes: (any NoteStore)?

    public init(
        ledger: AuditLedger, profile: String, bundleId: String, keyId: String, isDemo: Bool, source: WriteSource, agent: String,
        stateFolder: String? = nil, notes: (any NoteStore)? = nil
    ) {
        self.ledger = ledger
        self.profile = profile
        self.bundleId = bundleId
        self.keyId = keyId
        self.isDemo = isDemo
        self.source = source
        self.agent = agent
        self.stateFolder = stateFolder
        self.notes = notes
    }

    /// The account a write sent with `client` is made in.
    public func account(for client: AppStoreServerClient) -> WriteAccount {
        WriteAccount(
            profile: profile, environment: client.environment.environment,
            baseURL: isDemo ? "demo" : client.environment.baseURL.absoluteString, bundleId: bundleId, keyId: keyId)
    }

    /// The agent's login name, for the ledger.
    public static var loginName: String {
        let environment = ProcessInfo.processInfo.environment
        if let name = environment["USER"] ?? environment["LOGNAME"], !name.isEmpty { return name }
        // Started without a login environment (a service, tmux with a cleared environment).
        if let entry = getpwuid(getuid()), let name = entry.pointee.pw_name { return String(cString: name) }
        return "uid \(getuid())"
    }
}

/// How a write ended, as far as anyone can know.
public enum WriteResult<Response: Sendable>: Sendable {
    case applied(Response)
    /// Apple refused it: nothing changed.
    case refused(APIError)
    /// Stopped before the network.
    case notSent(String)
    /// No answer that says either way: it may have been applied.
    case unknown(APIError)
}

/// What must not have changed since the agent confirmed a write: writes by anyone (any agent,
/// any key) to the same thing after the ledger was read for the confirmation.
public struct SendGuard: Sendable {
    /// What the write writes to, the same for every agent and key: app, environment and path.
    public var key: String
    /// When the ledger was read for what the agent confirmed.
    public var seenAt: Date
    public var matches: @Sendable (WriteRecord) -> Bool
    /// Run under the lock after the ledger is checked: what changed at Apple since the agent
    /// confirmed (nil: nothing), read right before the request leaves.
    public var recheck: (@Sendable () async -> String?)?

    public init(key: String, seenAt: Date, matches: @escaping @Sendable (WriteRecord) -> Bool, recheck: (@Sendable () async -> String?)? = nil) {
        self.key = key
        self.seenAt = seenAt
        self.matches = matches
        self.recheck = recheck
    }

    /// For writes to `path` of this app in this environment, by whoever made them with whichever
    /// key (Apple counts a subscription's extensions, not a key's). The demo's writes are kept in
    /// a ledger of their own, so they never meet a real account's.
    public static func sameTarget(path: String, account: WriteAccount, seenAt: Date) -> SendGuard {
        SendGuard(
            key: [account.bundleId, account.environment, path].joined(separator: "|"), seenAt: seenAt,
            matches: { record in
                guard let other = record.account else { return false }
                return record.intent.path == path && other.bundleId == account.bundleId && other.environment == account.environment
            })
    }

    /// The latest other write to the same thing that moved after `seenAt`: started, re-sent or
    /// answered since the agent looked (one in flight then, answered while this one waited for the
    /// lock, counts: the agent has not seen its outcome).
    func newer(in writes: [WriteRecord], than requestIdentifier: String) -> WriteRecord? {
        // Lines keep milliseconds (those of earlier versions whole seconds): a line in the same
        // millisecond as the read counts as newer (asking again is safe; sending twice is not).
        let since = (seenAt.timeIntervalSince1970 * 1000).rounded(.down) / 1000
        return writes.last { record in
            record.requestIdentifier != requestIdentifier && matches(record) && record.lastOutcome?.outcome != .notSent
                && record.lines.contains { $0.time.timeIntervalSince1970 >= since }
        }
    }

    func lookAgain(_ record: WriteRecord, now: Date) -> String {
        let who = record.intent.agent ?? "someone"
        let seconds = max(0, Int(now.timeIntervalSince(record.intent.time)))
        let when = seconds < 90 ? "\(seconds) s ago" : "\(seconds / 60) min ago"
        let what = record.intent.write == WriteKind.extend.rawValue ? "an extension of the same subscription" : "a \(record.intent.write) to the same target"
        return "changed meanwhile: \(who) sent \(what) \(when) (\(record.stateLabel)); review it again"
    }
}

/// The one way every write is sent, from the console and the command line: the intent (or the
/// re-send) is flushed to the ledger before the request, the outcome written after the answer.
public enum LedgeredWriter {
    public static func send<Response: Sendable>(
        _ endpoint: Endpoint<Response>, requestIdentifier: String, write: WriteKind, subject: String,
        resend: Bool = false, client: AppStoreServerClient, context: WriteContext, now: @escaping @Sendable () -> Date = Date.init,
        guardedBy sendGuard: SendGuard? = nil, describe: @escaping @Sendable (Response) -> String? = { _ in nil }
    ) async -> WriteResult<Response> {
        guard let sendGuard else {
            return await sendNow(
                endpoint, requestIdentifier: requestIdentifier, write: write, subject: subject, resend: resend, client: client, context: context,
                now: now, describe: describe)
        }
        // Held only around the send: another agent about to write to the same thing waits, then
        // finds this write in the ledger and is asked to look again.
        do {
            return try await context.ledger.exclusively(sendGuard.key) {
                let writes = try await context.ledger.writes()
                if let newer = sendGuard.newer(in: writes, than: requestIdentifier) {
                    return .notSent(sendGuard.lookAgain(newer, now: now()))
                }
                if let changed = await sendGuard.recheck?() { return .notSent(changed) }
                return await sendNow(
                    endpoint, requestIdentifier: requestIdentifier, write: write, subject: subject, resend: resend, client: client,
                    context: context, now: now, describe: describe)
            }
        } catch {
            return .notSent("the audit ledger could not be checked for other agents' writes (\(error)); nothing was sent")
        }
    }

    private static func sendNow<Response: Sendable>(
        _ endpoint: Endpoint<Response>, requestIdentifier: String, write: WriteKind, subject: String,
        resend: Bool, client: AppStoreServerClient, context: WriteContext, now: @Sendable () -> Date,
        describe: (Response) -> String?
    ) async -> WriteResult<Response> {
        let entry = AuditLedger.Entry(
            time: now(), event: resend ? .resend : .intent, requestIdentifier: requestIdentifier, write: write.rawValue,
            method: endpoint.method, path: endpoint.path, body: endpoint.describedBody,
            account: context.account(for: client), subject: subject, source: context.source, agent: context.agent)
        do {
            try await context.ledger.append(entry)
        } catch {
            return .notSent("the audit ledger could not be written (\(error)); nothing was sent")
        }
        func record(_ status: AuditLedger.OutcomeStatus, _ detail: String?) async {
            var outcome = entry
            outcome.time = now()
            outcome.event = .outcome
            outcome.outcome = status
            outcome.detail = detail
            // Sent already: a failure to record the outcome leaves the write unresolved, which is
            // safe (it is offered again with the same identifier), so it does not hide the answer.
            try? await context.ledger.append(outcome)
        }
        do {
            let response = try await client.send(endpoint)
            await record(.applied, describe(response))
            return .applied(response)
        } catch {
            let status = classify(error)
            await record(status, error.summary)
            switch status {
            case .refused: return .refused(error)
            case .notSent: return .notSent(error.summary)
            default: return .unknown(error)
            }
        }
    }

    /// Whether an error proves the write was not applied. Only an answer from Apple with a 4xx
    /// status (including 401 and 429) does; no answer, a 5xx or an unreadable success may hide one.
    public static func classify(_ error: APIError) -> AuditLedger.OutcomeStatus {
        switch error {
        case .server(let failure): return (400..<500).contains(failure.status) ? .refused : .unknown
        case .unauthorized: return .refused
        case .invalidRequest: return .notSent
        default: return .unknown
        }
    }
}
