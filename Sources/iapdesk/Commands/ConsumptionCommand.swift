import AppStoreServerAPI
import ArgumentParser
import DeskCore
import Foundation

struct ConsumptionCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "consumption", abstract: "Answer a CONSUMPTION_REQUEST: send consumption information for a refund request.",
        discussion: """
            Checks Apple's rules first, as the console's answer form does, and sends nothing Apple would refuse or \
            disregard: without --customer-consented (4000035), after the request's 12 hours, for a transaction Apple did \
            not ask about (no CONSUMPTION_REQUEST in the store or Apple's notification history), a consumed share for an \
            auto-renewable subscription (4000209), a non-zero share of content not delivered, or a request answered already. \
            The requests are read from Apple's history and the store first: when they cannot be read, whether Apple asked \
            is not known, and nothing is sent. The answer goes through the audit ledger once; a re-run after an unknown \
            outcome re-sends the same values with the same identifier. docs/refunds.md explains each field.
            """)

    @Argument(help: "The transaction the customer asked a refund for.") var transactionId: String
    @Option(name: .long, help: "delivered, undelivered-quality-issue, undelivered-wrong-item, undelivered-server-outage, undelivered-other.")
    var deliveryStatus: String
    @Flag(name: .long, help: "The customer agreed to share this information with Apple (required: nothing is sent without it).")
    var customerConsented = false
    @Flag(name: .long, help: "A free sample or trial of the content was provided first.") var sampleContentProvided = false
    @Option(name: .long, help: "Share consumed, 0 to 100 percent (not for auto-renewable subscriptions; 0 unless delivered).") var consumedPercent: Double?
    @Option(name: .long, help: "decline, grant-full or grant-prorated (default: the profile's refund_preference, if any).") var refundPreference: String?
    @OptionGroup var storeOptions: StoreOptions
    @OptionGroup var write: WriteOptions
    @OptionGroup var global: GlobalOptions

    func validate() throws {
        try IDRules.transactionId(transactionId, "TRANSACTION_ID")
        if let consumedPercent, !(0...100).contains(consumedPercent) { throw ValidationError("--consumed-percent must be 0 to 100.") }
    }

    func run() async throws {
        try await withSession(global) { session, printer in
            let status = DeliveryStatus(deliveryStatus.uppercased().replacingOccurrences(of: "-", with: "_"))
            guard status.isKnown else {
                throw CLIError(
                    "--delivery-status \(deliveryStatus) is not a delivery status.",
                    hint: "One of: delivered, undelivered-quality-issue, undelivered-wrong-item, undelivered-server-outage, undelivered-other.", status: .usage)
            }
            var preference = session.profile.refundPreference
            if let refundPreference {
                preference = RefundPreference(refundPreference.uppercased().replacingOccurrences(of: "-", with: "_"))
                guard preference?.isKnown == true else { throw CLIError("--refund-preference \(refundPreference) is not decline, grant-full or grant-prorated.", status: .usage) }
            }
            let answer = ConsumptionAnswer(
                deliveryStatus: status, consumptionPercentage: consumedPercent.map { Int32(($0 * 1000).rounded()) },
                sampleContentProvided: sampleContentProvided, refundPreference: preference, customerConsented: customerConsented)
            // What needs no request is refused before anything is read: consent above all.
            if let refusal = ConsumptionRules.bodyRefusals(answer, transaction: nil).first { throw Self.refused(refusal) }
            let queue = await RefundQueue.requests(session, storeOptions: storeOptions)
            for note in queue.notes { StandardStreams.error("note: \(note)\n") }
            let verdict = ConsumptionRules.check(
                answer, transactionId: transactionId, requests: queue.requests, requestsComplete: queue.complete, now: Date())
            let request: RefundRequest
            switch verdict {
            case .send(_, let answering):
                request = answering
            case .refused(let refusals):
                // An answer of unknown outcome is re-sent with its identifier when the values are the same
                // (CommandLineWrite decides); any other rule stops here.
                guard let refusal = refusals.first(where: { $0.rule != .answerUnresolved }) else {
                    request = ConsumptionRules.request(for: transactionId, in: queue.requests)!
                    break
                }
                throw Self.refused(refusal)
            }
            StandardStreams.error("Answers Apple's refund request of \(DisplayFormat.date(request.requestedAt)) (\(request.reason?.label ?? "no reason given")); its 12 hours end \(DisplayFormat.date(request.deadline)).\n")
            let body = answer.body
            let write = CommandLineWrite(
                kind: .consumption, subject: "transaction \(transactionId)",
                endpoint: { _ in Endpoints.sendConsumptionInformation(transactionId: transactionId, request: body) },
                givenIdentifier: nil, identifierIsSent: false)
            let (_, identifier) = try await write.run(session: session, yes: self.write.yes)
            printer.emit(ConsumptionOutput(
                transactionId: transactionId, accepted: true, requestIdentifier: identifier, notificationUUID: request.notificationUUID,
                requestedAt: DisplayFormat.iso(request.requestedAt), deadline: DisplayFormat.iso(request.deadline), body: body))
            printer.text("Accepted: consumption information for \(transactionId) was sent.")
        }
    }

    /// A rule Apple would refuse the answer by: exit 9, nothing sent.
    static func refused(_ refusal: ConsumptionRefusal) -> CLIError {
        CLIError("Not sent: \(refusal.reason)", hint: refusal.appleAnswer.map { "Apple would answer \($0). Nothing was sent." } ?? "Nothing was sent.", status: .refused)
    }
}

/// `consumption --json`: Apple took the answer to this request, with this body.
struct ConsumptionOutput: Encodable {
    var transactionId: String
    var accepted: Bool
    var requestIdentifier: String
    var notificationUUID: String
    var requestedAt: String
    var deadline: String
    var body: ConsumptionRequest
}
