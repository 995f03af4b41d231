import AppStoreServerAPI
import DeskCore
import Foundation

/// A write from the command line, sent the one way every write is sent: confirmed, recorded in the
/// audit ledger before it goes, and safe to run again after a crash or a timeout.
struct CommandLineWrite<Response: Sendable> {
    let kind: WriteKind
    /// "original transaction 2000000400000044": what the write is for, in words.
    let subject: String
    /// Builds the endpoint with the request identifier it will carry.
    let endpoint: (String) -> Endpoint<Response>
    /// Given with --request-id: used as it is.
    let givenIdentifier: String?
    /// Whether Apple dedupes the write by its identifier (extensions); otherwise the identifier is ours.
    let identifierIsSent: Bool
    /// For a renewal extension: the subscription and the days, read and counted before confirming.
    var extending: (originalTransactionId: String, days: Int, again: Bool)? = nil
    /// Sends through this client instead of the session's (a performance test goes to Sandbox).
    var client: AppStoreServerClient? = nil
    /// Apple's codes that, answered to a re-send, mean the earlier send was applied (an Advanced
    /// Commerce requestReferenceId seen before): the write is closed as applied, not as refused.
    var appliedEarlierCodes: Set<APIErrorCode> = []
    /// The write in words for messages ("Advanced Commerce cancel of transaction …"); default the
    /// kind's words and the subject.
    var title: String? = nil

    private var named: String { title ?? "\(kind.words) for \(subject)" }

    /// Confirms, sends and reports; throws a `CLIError` for anything but an applied write.
    func run(session: Session, yes: Bool) async throws -> (response: Response, requestIdentifier: String) {
        try session.requireWritable()
        let context = try await session.writeContext(source: .commandLine)
        let client = self.client ?? session.client
        let account = context.account(for: client)
        let (identifier, resend) = try await chooseIdentifier(context: context, account: account)
        let endpoint = endpoint(identifier)
        let body = endpoint.describedBody ?? ""
        var sendGuard: SendGuard?
        if let extending {
            // A re-send carries an identifier Apple applies at most once: it is not counted again.
            sendGuard = resend
                ? SendGuard.sameTarget(path: endpoint.path, account: account, seenAt: Date())
                : try await reviewExtension(extending, endpoint.path, identifier, session: session, context: context, account: account)
        }
        try confirmWrite("\(endpoint.method) \(endpoint.path)\n\(body)", yes: yes, session: session)
        // Printed before the request leaves, so it is known whatever happens next.
        StandardStreams.error("Request identifier: \(identifier)\n")
        // The time spent reading the request and typing yes is not the server's: the send gets a
        // deadline of its own.
        let result = await Deadline.$current.withValue(Deadline(seconds: session.timeout)) {
            await LedgeredWriter.send(
                endpoint, requestIdentifier: identifier, write: kind, subject: subject, resend: resend,
                client: client, context: context, guardedBy: sendGuard)
        }
        switch result {
        case .applied(let response):
            return (response, identifier)
        case .refused(let error):
            if resend, case .server(let failure) = error, let code = failure.code, appliedEarlierCodes.contains(code) {
                // Settled by this re-run, not by anyone's hand: its outcome is the earlier send's.
                let note = "by the earlier run; Apple answered \(code.name) \(code.rawValue) to this run's re-send"
                if let record = try? await context.ledger.writes().last(where: { $0.requestIdentifier == identifier && $0.account == account }) {
                    try? await context.ledger.append(record.outcome(.applied, detail: note, now: Date()))
                }
                throw WriteAppliedEarlier(requestIdentifier: identifier, code: code)
            }
            var failure = CLIError(error)
            failure.hint = "Nothing was changed. " + (failure.hint ?? "")
            throw failure
        case .notSent(let reason):
            // Stopped by another agent's write made meanwhile: refused here, and nothing was sent.
            let raced = reason.hasPrefix("changed meanwhile")
            throw CLIError(
                "Not sent: \(reason).", hint: raced ? "Check with iapdesk status, then run it again if it is still needed." : nil,
                status: raced ? .refused : .failure)
        case .unknown(let error):
            throw CLIError(
                "The \(named) may have been applied: \(error.summary) Request identifier \(identifier).",
                hint: checkHint(), status: .unavailable)
        }
    }

    /// The subscription as Apple has it now and every earlier extension of it (Apple's history and
    /// every agent's in the ledger), read and counted as the console does, said before the
    /// confirmation; a third within 365 days is refused here as Apple would. The send is then held
    /// against another agent's write, or a new renewal date at Apple, made meanwhile.
    private func reviewExtension(
        _ extending: (originalTransactionId: String, days: Int, again: Bool), _ path: String, _ identifier: String, session: Session, context: WriteContext,
        account: WriteAccount
    ) async throws -> SendGuard {
        let review: ExtensionReview
        switch await ExtensionRules.review(
            extending.originalTransactionId, client: session.client, verification: session.verification, writes: context, requestIdentifier: identifier)
        {
        case .success(let value): review = value
        case .failure(let error):
            // Exits as the read's own failure would (an unknown ID is 2, as for every read), not as an unexpected one.
            throw CLIError(
                "Not sent: the subscription could not be read before confirming: \(error.summary)", hint: error.hint,
                status: error.source.map { CLIError($0).status } ?? .failure)
        }
        let now = Date()
        let renews = ExtensionRules.renewalDate(review.subscription)
        var lines = [
            "Runs to (renews or ends): \(DisplayFormat.date(renews)) (read from Apple just now); after the extension: \(DisplayFormat.date(renews?.addingTimeInterval(Double(extending.days) * 86_400))).",
            "Earlier extensions: \(review.count.summary).",
        ]
        lines += review.count.recorded.reversed().map { "  extended " + $0.line(now: now) }
        StandardStreams.error(lines.joined(separator: "\n") + "\n")
        if let refusal = review.refusal {
            throw CLIError("Not sent: \(refusal)", hint: "Nothing was sent. Check with iapdesk status \(extending.originalTransactionId).", status: .refused)
        }
        // A command run twice (to "make sure", or from a script's retry) must not give twice.
        if !extending.again, let recent = review.count.recorded.last(where: { $0.applied && now.timeIntervalSince($0.time) < Self.rerunWindow }) {
            throw CLIError(
                "Not sent: \(extending.originalTransactionId) was already extended \(recent.line(now: now)). A second extension within a day is usually the same one run twice.",
                hint: "Nothing was sent. Run it with --again to extend a second time (Apple allows two in 365 days); a re-run after a timeout takes --request-id instead.",
                status: .refused)
        }
        var sendGuard = SendGuard.sameTarget(path: path, account: account, seenAt: review.count.readAt ?? now)
        sendGuard.recheck = ExtensionRules.unchanged(
            extending.originalTransactionId, confirmed: renews, client: session.client, verification: session.verification)
        return sendGuard
    }

    /// An extension of the same subscription applied this recently makes a new one a likely re-run.
    static var rerunWindow: TimeInterval { 24 * 3600 }

    private func checkHint() -> String {
        let again = identifierIsSent
            ? "Running the same command again re-sends it with the same request identifier, which Apple applies at most once."
            : "Running the same command again sends the same values, which leaves the same result."
        return "Check what is true with `iapdesk status` or `iapdesk transaction` for it. \(again) It stays open in `iapdesk audit --unresolved` until then."
    }

    /// A new identifier, or the one of an earlier run of the same write whose outcome is unknown.
    private func chooseIdentifier(context: WriteContext, account: WriteAccount) async throws -> (String, Bool) {
        let probe = endpoint("-")
        let unresolved = try await AuditLedgerAccess.reading(context.ledger) { try await $0.unresolved() }
        // Another agent's write to the same thing with no outcome may be on the wire right now:
        // theirs to finish, never re-sent or raced from here.
        let sameTarget = SendGuard.sameTarget(path: probe.path, account: account, seenAt: Date())
        if let theirs = unresolved.last(where: { sameTarget.matches($0) && $0.intent.agent != context.agent }) {
            throw CLIError(
                "Not sent: \(theirs.intent.agent ?? "another agent")'s \(theirs.intent.write) for \(subject) (\(DisplayFormat.date(theirs.intent.time)), request \(theirs.requestIdentifier)) has no outcome yet: it may be on its way to Apple now.",
                hint: "Wait for it and check with iapdesk audit --unresolved and iapdesk status; \(theirs.intent.agent ?? "they") can close it with iapdesk audit resolve \(theirs.requestIdentifier).",
                status: .refused)
        }
        let open = unresolved.filter {
            $0.account == account && $0.intent.write == kind.rawValue && $0.intent.path == probe.path && ($0.intent.agent == nil || $0.intent.agent == context.agent)
        }
        if let givenIdentifier {
            return (givenIdentifier, open.contains { $0.requestIdentifier == givenIdentifier })
        }
        guard let earlier = open.last else { return (UUID().uuidString.lowercased(), false) }
        let sameRequest = endpoint(earlier.requestIdentifier).describedBody == earlier.intent.body
        guard sameRequest else {
            throw CLIError(
                "Not sent: an earlier \(named) with other values (request \(earlier.requestIdentifier), \(DisplayFormat.date(earlier.intent.time))) has no known outcome.",
                hint: "Check with `iapdesk status`; then re-run the earlier values to re-send them safely, or close it with `iapdesk audit resolve \(earlier.requestIdentifier)` and run this again.",
                status: .refused)
        }
        StandardStreams.error(
            "An earlier run of this \(kind.words) (\(DisplayFormat.date(earlier.intent.time))) has no known outcome: re-sending it with the same request identifier\(identifierIsSent ? ", which Apple applies at most once" : "").\n")
        return (earlier.requestIdentifier, true)
    }
}

/// A re-sent write Apple answered as one it has already applied: nothing was applied twice.
struct WriteAppliedEarlier: Error {
    let requestIdentifier: String
    let code: APIErrorCode
}
