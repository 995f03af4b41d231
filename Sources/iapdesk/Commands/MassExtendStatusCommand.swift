import AppStoreServerAPI
import ArgumentParser
import DeskCore

struct MassExtendStatusCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "mass-extend-status", abstract: "Show the progress of a mass renewal date extension.")

    @Option(name: .long, help: "The product the extension was for.") var productId: String
    @Option(name: .long, help: "The extension's request identifier.") var requestId: String
    @OptionGroup var global: GlobalOptions

    func run() async throws {
        try await withSession(global) { session, printer in
            let status = try await session.client.getStatusOfSubscriptionRenewalDateExtensions(productId: productId, requestIdentifier: requestId)
            printer.emit(MassExtendStatusOutput(status))
            var fields = FieldList()
            fields.add("Request", status.requestIdentifier)
            fields.add("Complete", status.complete == true ? "yes, \(DisplayFormat.date(status.completeDate))" : "not yet")
            fields.add("Succeeded", status.succeededCount.map(String.init))
            fields.add("Failed", status.failedCount.map(String.init))
            printer.text(fields.render())
        }
    }
}

/// `mass-extend-status --json`: Apple's answer as it gave it.
struct MassExtendStatusOutput: Encodable {
    var requestIdentifier: String?
    var complete: Bool?
    var succeededCount: Int64?
    var failedCount: Int64?
    var completeDate: String?
    var completeDateMs: Int64?

    init(_ status: MassExtendRenewalDateStatusResponse) {
        (requestIdentifier, complete, succeededCount, failedCount) = (status.requestIdentifier, status.complete, status.succeededCount, status.failedCount)
        (completeDate, completeDateMs) = DatePair.of(status.completeDate)
    }
}
