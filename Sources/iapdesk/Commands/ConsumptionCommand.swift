import AppStoreServerAPI
import ArgumentParser
import DeskCore
import Foundation

struct ConsumptionCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "consumption", abstract: "Answer a CONSUMPTION_REQUEST: send consumption information for a refund request.")

    @Argument(help: "The transaction the customer asked a refund for.") var transactionId: String
    @Option(name: .long, help: "delivered, undelivered-quality-issue, undelivered-wrong-item, undelivered-server-outage, undelivered-other.")
    var deliveryStatus: String
    @Flag(name: .long, help: "The customer consented to sharing this information (required by Apple).") var customerConsented = false
    @Flag(name: .long, help: "A sample or trial of the content was provided.") var sampleContentProvided = false
    @Option(name: .long, help: "Share consumed, 0 to 100 percent (not for subscriptions).") var consumedPercent: Double?
    @Option(name: .long, help: "decline, grant-full or grant-prorated.") var refundPreference: String?
    @OptionGroup var write: WriteOptions
    @OptionGroup var global: GlobalOptions

    func validate() throws {
        try IDRules.transactionId(transactionId, "TRANSACTION_ID")
        guard customerConsented else { throw ValidationError("Apple accepts consumption information only with --customer-consented.") }
        if let consumedPercent, !(0...100).contains(consumedPercent) { throw ValidationError("--consumed-percent must be 0 to 100.") }
    }

    func run() async throws {
        try await withSession(global) { session, printer in
            let status = DeliveryStatus(deliveryStatus.uppercased().replacingOccurrences(of: "-", with: "_"))
            guard status.isKnown else { throw CLIError("--delivery-status \(deliveryStatus) is not a delivery status.", status: .usage) }
            var preference: RefundPreference?
            if let refundPreference {
                preference = RefundPreference(refundPreference.uppercased().replacingOccurrences(of: "-", with: "_"))
                guard preference?.isKnown == true else { throw CLIError("--refund-preference \(refundPreference) is not decline, grant-full or grant-prorated.", status: .usage) }
            }
            let request = ConsumptionRequest(
                customerConsented: true, consumptionPercentage: consumedPercent.map { Int32(($0 * 1000).rounded()) },
                deliveryStatus: status, refundPreference: preference, sampleContentProvided: sampleContentProvided)
            let write = CommandLineWrite(
                kind: .consumption, subject: "transaction \(transactionId)",
                endpoint: { _ in Endpoints.sendConsumptionInformation(transactionId: transactionId, request: request) },
                givenIdentifier: nil, identifierIsSent: false)
            _ = try await write.run(session: session, yes: self.write.yes)
            printer.emit(ConsumptionOutput(transactionId: transactionId, accepted: true))
            printer.text("Accepted: consumption information for \(transactionId) was sent.")
        }
    }
}

/// `consumption --json`: Apple took the answer.
struct ConsumptionOutput: Encodable {
    var transactionId: String
    var accepted: Bool
}
