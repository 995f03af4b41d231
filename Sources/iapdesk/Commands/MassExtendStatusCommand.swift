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
            var object: [String: Any?] = [
                "requestIdentifier": status.requestIdentifier, "complete": status.complete,
                "succeededCount": status.succeededCount, "failedCount": status.failedCount,
            ]
            object.merge(Printer.date("completeDate", status.completeDate))
            printer.emit(object)
            var fields = FieldList()
            fields.add("Request", status.requestIdentifier)
            fields.add("Complete", status.complete == true ? "yes, \(DisplayFormat.date(status.completeDate))" : "not yet")
            fields.add("Succeeded", status.succeededCount.map(String.init))
            fields.add("Failed", status.failedCount.map(String.init))
            printer.text(fields.render())
        }
    }
}
