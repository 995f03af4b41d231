import AppStoreServerAPI
import DeskCore
import Foundation

/// One Advanced Commerce server action from the command line: refused unless the profile says
/// `advanced_commerce = true`, checked against Apple's limits, then sent as every write is
/// (`CommandLineWrite`: shown, confirmed, in the audit ledger, its requestReferenceId kept so a
/// re-run after an unknown outcome re-sends the same request, which Apple applies at most once).
struct AdvancedCommerceWrite<Body: AdvancedCommerceCheckable> {
    /// "cancel", as the command is named.
    let action: String
    let transactionId: String
    /// --request-id: the requestReferenceId to send (default a new UUID).
    let requestId: String?
    /// The body carrying a requestReferenceId.
    let body: (String) -> Body
    let endpoint: (String, Body) -> Endpoint<AdvancedCommerceActionResponse>

    /// A UUID for checking the body before its identifier is chosen.
    private static var placeholder: String { "00000000-0000-4000-8000-000000000000" }

    func run(session: Session, printer: Printer, yes: Bool, done: (VerifiedAdvancedCommerceAnswer) -> String) async throws {
        try Self.requireAllowed(session.profile)
        let problems = AdvancedCommerceLimits.problems(body(requestId ?? Self.placeholder))
        guard problems.isEmpty else {
            throw CLIError(
                "Not sent: " + problems.joined(separator: "; ") + ".",
                hint: "Apple would refuse it with the error named; nothing was sent.", status: .usage)
        }
        var write = CommandLineWrite(
            kind: .advancedCommerce, subject: "transaction \(transactionId)",
            endpoint: { identifier in endpoint(transactionId, body(identifier)) }, givenIdentifier: requestId, identifierIsSent: true)
        write.appliedEarlierCodes = [.repeatedRequestReferenceId]
        write.title = "Advanced Commerce \(action) of transaction \(transactionId)"
        let answer: VerifiedAdvancedCommerceAnswer
        do {
            let (response, identifier) = try await write.run(session: session, yes: yes)
            answer = await session.verification.advancedCommerce(response)
            printer.emit(AdvancedCommerceOutput(action: action, transactionId: transactionId, requestReferenceId: identifier, answer: answer))
            printer.text(done(answer) + " Request \(identifier).\n")
        } catch let earlier as WriteAppliedEarlier {
            guard let read = await readAfterAppliedEarlier(earlier, session: session, printer: printer) else { return }
            answer = read
        }
        printer.text(Self.fields(answer).render())
        try requireVerified([answer.transaction?.status, answer.renewal?.status].compactMap { $0 })
    }

    /// The earlier run's request reached Apple: said first, then the transaction is read back (not
    /// sent again). A read that fails is said with how to read it later; the write stays a success
    /// (nil: nothing more to print).
    private func readAfterAppliedEarlier(_ earlier: WriteAppliedEarlier, session: Session, printer: Printer) async -> VerifiedAdvancedCommerceAnswer? {
        printer.text(
            "Already applied: the earlier run's \(action) of transaction \(transactionId) reached Apple (request \(earlier.requestIdentifier)). Apple answered \(earlier.code.name), \(earlier.code.rawValue), to the same request again; nothing was applied twice.")
        var output = AdvancedCommerceOutput(action: action, transactionId: transactionId, requestReferenceId: earlier.requestIdentifier, answer: nil)
        output.appliedEarlier = true
        do {
            let signed = try await session.client.getTransactionInfo(transactionId: transactionId).signedTransactionInfo
            let answer = await session.verification.advancedCommerce(AdvancedCommerceActionResponse(signedTransactionInfo: signed))
            output = AdvancedCommerceOutput(action: action, transactionId: transactionId, requestReferenceId: earlier.requestIdentifier, answer: answer)
            output.appliedEarlier = true
            printer.emit(output)
            printer.text("The transaction as Apple has it now:")
            return answer
        } catch {
            var summary = error.summary
            while summary.hasSuffix(".") { summary.removeLast() }
            let problem = "reading the transaction afterwards failed: \(summary)."
            output.readProblem = problem
            printer.emit(output)
            StandardStreams.error("note: the \(action) is applied, but \(problem) Read it with `iapdesk transaction \(transactionId)`.\n")
            return nil
        }
    }

    /// Only apps under Apple's Advanced Commerce API addendum may call it: the profile says so.
    static func requireAllowed(_ profile: Profile) throws {
        guard !profile.advancedCommerce else { return }
        throw CLIError(
            "Not sent: profile \"\(profile.name)\" does not say advanced_commerce = true.",
            hint: "Only apps whose account holder signed Apple's Advanced Commerce API addendum may use it. If yours did, add advanced_commerce = true to [profiles.\(profile.name)] in the config file (docs/advanced-commerce.md); --demo has it on.",
            status: .refused)
    }

    /// The transaction and renewal info as Apple answered them, with their verification.
    static func fields(_ answer: VerifiedAdvancedCommerceAnswer) -> FieldList {
        var fields = answer.transaction.map(Records.transactionFields) ?? FieldList()
        guard let renewal = answer.renewal else { return fields }
        fields.add("Renewal info", renewal.verdict)
        guard let r = renewal.payload else { return fields }
        fields.add("Auto-renew", r.autoRenewStatus?.label)
        fields.add("Renews", r.autoRenewStatus == .on ? DisplayFormat.date(r.renewalDate) : nil)
        fields.add("Renews as", r.autoRenewProductId)
        fields.add("Renewal price", DisplayFormat.money(r.renewalPrice, r.currency))
        if let info = r.advancedCommerceInfo {
            fields.fields += Records.advancedCommerceLines(AdvancedCommerceRecord(info), currency: r.currency).map { ($0.0 == "Advanced Commerce" ? "Renews with" : $0.0, $0.1) }
        }
        return fields
    }
}

/// `advanced-commerce … --json`: what was sent, and the transaction and renewal info Apple answered.
struct AdvancedCommerceOutput: Encodable {
    var action: String
    var transactionId: String
    var requestReferenceId: String
    var verified: Bool
    /// A re-run found the earlier run's request applied at Apple: `transaction` is read back.
    var appliedEarlier: Bool?
    /// Why `transaction` is missing: the read after an earlier run's applied request failed.
    var readProblem: String?
    var transaction: TransactionRecord?
    var renewalInfo: RenewalRecord?

    /// `answer` nil: nothing was read back (see `readProblem`); `verified` then says nothing failed.
    init(action: String, transactionId: String, requestReferenceId: String, answer: VerifiedAdvancedCommerceAnswer?) {
        (self.action, self.transactionId, self.requestReferenceId) = (action, transactionId, requestReferenceId)
        verified = answer?.isVerified ?? true
        transaction = answer?.transaction.map(TransactionRecord.init)
        renewalInfo = answer?.renewal.map(RenewalRecord.init)
    }
}

/// Arguments the Advanced Commerce commands share.
enum AdvancedCommerceArguments {
    /// A request identifier must be a UUID: Apple's requestReferenceId.
    static func requestId(_ text: String?) throws -> String? {
        guard let text else { return nil }
        guard text.utf8.count == 36, UUID(uuidString: text) != nil else {
            throw CLIError("--request-id \(text) is not a UUID: Apple's requestReferenceId is one, such as 7c80bb86-f892-4b21-a919-1357811d6c4f.", status: .usage)
        }
        return text.lowercased()
    }

    /// "9.99" (in the currency) as milliunits, 9990; at most three decimals. `prefix` is what was
    /// typed before the amount ("--price BASE="), so a problem names the argument as it was typed.
    static func milliunits(_ text: String, after prefix: String) throws -> Int64 {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        let negative = trimmed.hasPrefix("-")
        let digits = negative ? String(trimmed.dropFirst()) : trimmed
        let parts = digits.split(separator: ".", omittingEmptySubsequences: false)
        guard (1...2).contains(parts.count), !parts[0].isEmpty, parts.allSatisfy({ $0.allSatisfy { $0.isASCII && $0.isNumber } }),
              parts.count == 1 || (1...3).contains(parts[1].count)
        else {
            throw CLIError("\(prefix)\(text) is not an amount such as 9.99 (in the currency; at most three decimals).", status: .usage)
        }
        // Nine digits before the point keep every amount, in milliunits, far inside what Apple's fields hold.
        guard parts[0].drop(while: { $0 == "0" }).count <= 9, let whole = Int64(parts[0]) else {
            throw CLIError("\(prefix)\(text) is too large: an amount is at most 999999999.999 in the currency.", status: .usage)
        }
        var fraction: Int64 = 0
        if parts.count == 2 { fraction = Int64(parts[1].padding(toLength: 3, withPad: "0", startingAt: 0))! }
        let value = whole * 1000 + fraction
        return negative ? -value : value
    }

    /// SIMULATE_REFUND_DECLINE is Sandbox only (Apple answers 4000158 before it looks the ID up): a
    /// Sandbox purchase sent to Production is named as such, nothing sent.
    static func requireSandbox(for reason: AdvancedCommerceRefundReason, _ transactionId: String, session: Session) throws {
        guard reason == .simulateRefundDecline, session.environment != .sandbox else { return }
        throw CLIError(
            "Not sent: simulate-refund-decline is for Sandbox purchases only (Apple would answer SimulateRefundDeclineOnlyInSandboxError 4000158), and this profile sends to \(session.environmentLabel).",
            hint: "If \(transactionId) is a Sandbox purchase, add --environment sandbox; for a Production purchase use a real --reason.", status: .usage)
    }

    /// A value of one of Apple's string enums, typed as Apple writes it or in lower case with hyphens.
    static func choice<E: OpenEnum>(_ text: String, _ option: String, _ type: E.Type) throws -> E where E.RawValue == String {
        let value = E(text.uppercased().replacingOccurrences(of: "-", with: "_"))
        guard value.isKnown else {
            let known = E.knownValues.map { $0.rawValue.lowercased().replacingOccurrences(of: "_", with: "-") }
            throw CLIError("\(option) \(text) is not one of: \(known.joined(separator: ", ")).", status: .usage)
        }
        return value
    }
}
