import AppStoreServerAPI
import ArgumentParser
import DeskCore
import Foundation

/// `--reason` by name or number.
enum ReasonArgument {
    static func parse(_ text: String) throws -> ExtendReasonCode {
        let key = text.lowercased().replacingOccurrences(of: "_", with: "-")
        switch key {
        case "0", "undeclared": return .undeclared
        case "1", "customer-satisfaction", "satisfaction", "goodwill": return .customerSatisfaction
        case "2", "other": return .other
        case "3", "service-issue", "outage", "service-issue-or-outage": return .serviceIssueOrOutage
        default:
            throw CLIError("--reason \(text) is not a reason.",
                           hint: "Use customer-satisfaction (1), service-issue (3), other (2) or undeclared (0).", status: .usage)
        }
    }
}

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
            var object: [String: Any?] = [
                "originalTransactionId": response.originalTransactionId, "webOrderLineItemId": response.webOrderLineItemId,
                "success": response.success, "requestIdentifier": identifier,
            ]
            object.merge(Printer.date("effectiveDate", response.effectiveDate))
            printer.emit(object)
            printer.text(response.success == true
                ? "Extended \(originalTransactionId) by \(DisplayFormat.count(days, "day")): renews \(DisplayFormat.date(response.effectiveDate)). Request \(identifier)."
                : "Apple did not apply the extension.")
            if response.success != true { throw CLIError("The extension did not take effect.", status: .rejected) }
        }
    }
}

struct MassExtendCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "mass-extend", abstract: "Extend the renewal date of every active subscriber of a product.")

    @Option(name: .long, help: "The auto-renewable product.") var productId: String
    @Option(name: .long, help: "Days to add, 1 to 90.") var days: Int
    @Option(name: .long, help: "customer-satisfaction, service-issue, other or undeclared.") var reason: String
    @Option(name: .long, help: "Only these storefronts, three-letter codes such as USA (repeatable; default all).") var storefront: [String] = []
    @Option(name: .long, help: "Request identifier (default: a new UUID).") var requestId: String?
    @OptionGroup var write: WriteOptions
    @OptionGroup var global: GlobalOptions

    func validate() throws {
        guard (1...90).contains(days) else { throw ValidationError("--days must be 1 to 90 (Apple's limit).") }
        if let requestId, UUID(uuidString: requestId) == nil { throw ValidationError("--request-id must be a UUID for a mass extension (Apple refuses others with 4000011).") }
    }

    func run() async throws {
        try await withSession(global) { session, printer in
            let reasonCode = try ReasonArgument.parse(reason)
            let codes = storefront.isEmpty ? nil : storefront.map { $0.uppercased() }
            let write = CommandLineWrite(
                kind: .massExtend, subject: "every active subscriber of \(productId)",
                endpoint: { identifier in
                    Endpoints.extendRenewalDateForAllActiveSubscribers(request: MassExtendRenewalDateRequest(
                        extendByDays: Int32(days), extendReasonCode: reasonCode, requestIdentifier: identifier,
                        storefrontCountryCodes: codes, productId: productId))
                },
                givenIdentifier: requestId, identifierIsSent: true)
            let (response, identifier) = try await write.run(session: session, yes: self.write.yes)
            printer.emit(["requestIdentifier": response.requestIdentifier ?? identifier, "productId": productId])
            printer.text("Accepted. Follow it with: iapdesk mass-extend-status --product-id \(productId) --request-id \(response.requestIdentifier ?? identifier)\(global.followUpFlags)")
        }
    }
}

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
