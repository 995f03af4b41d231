import AppStoreServerAPI
import ArgumentParser
import DeskCore
import Foundation

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
            printer.emit(MassExtendOutput(requestIdentifier: response.requestIdentifier ?? identifier, productId: productId))
            printer.text("Accepted. Follow it with: iapdesk mass-extend-status --product-id \(productId) --request-id \(response.requestIdentifier ?? identifier)\(global.followUpFlags)")
        }
    }
}

/// `mass-extend --json`: what to follow the extension with.
struct MassExtendOutput: Encodable {
    var requestIdentifier: String
    var productId: String
}
