import AppStoreServerAPI
import ArgumentParser
import DeskCore
import Foundation

struct ExtendCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "extend", abstract: "Extend one subscription's renewal date (at most 90 days, twice a year).")

    @Argument(help: "The subscription's original transaction ID.") var originalTransactionId: String
    @Option(name: .long, help: "Days to add, 1 to 90.") var days: Int
    @Option(name: .long, help: "customer-satisfaction, service-issue, other or undeclared.") var reason: String
    @Option(name: .long, help: "Request identifier that makes a retry safe (default: a new UUID).") var requestId: String?
    @Flag(name: .long, help: "Extend even though the subscription was extended in the last 24 hours (otherwise refused as a likely re-run).") var again = false
    @OptionGroup var write: WriteOptions
    @OptionGroup var global: GlobalOptions

    func validate() throws {
        guard (1...90).contains(days) else { throw ValidationError("--days must be 1 to 90 (Apple's limit).") }
        try IDRules.transactionId(originalTransactionId, "ORIGINAL_TRANSACTION_ID")
        if let requestId, requestId.isEmpty || requestId.count > 128 { throw ValidationError("--request-id must be 1 to 128 characters.") }
    }

    func run() async throws {
        try await withSession(global) { session, printer in
            let reasonCode = try ReasonArgument.parse(reason)
            let write = CommandLineWrite(
                kind: .extend, subject: "original transaction \(originalTransactionId)",
                endpoint: { identifier in
                    Endpoints.extendSubscriptionRenewalDate(
                        originalTransactionId: originalTransactionId,
                        request: ExtendRenewalDateRequest(extendByDays: Int32(days), extendReasonCode: reasonCode, requestIdentifier: identifier))
                },
                givenIdentifier: requestId, identifierIsSent: true, extending: (originalTransactionId, days, again))
            let (response, identifier) = try await write.run(session: session, yes: self.write.yes)
            printer.emit(ExtendOutput(response, requestIdentifier: identifier))
            printer.text(response.success == true
                ? "Extended \(originalTransactionId) by \(DisplayFormat.count(days, "day")): it now runs to \(DisplayFormat.date(response.effectiveDate)) (renewing then only if auto-renew is on). Request \(identifier)."
                : "Apple did not apply the extension.")
            if response.success != true { throw CLIError("The extension did not take effect.", status: .rejected) }
        }
    }
}

/// `extend --json`: Apple's answer, and the request identifier it was sent with.
struct ExtendOutput: Encodable {
    var originalTransactionId: String?
    var webOrderLineItemId: String?
    var success: Bool?
    var requestIdentifier: String
    var effectiveDate: String?
    var effectiveDateMs: Int64?

    init(_ response: ExtendRenewalDateResponse, requestIdentifier: String) {
        (originalTransactionId, webOrderLineItemId, success) = (response.originalTransactionId, response.webOrderLineItemId, response.success)
        self.requestIdentifier = requestIdentifier
        (effectiveDate, effectiveDateMs) = DatePair.of(response.effectiveDate)
    }
}
