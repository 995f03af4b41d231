import ArgumentParser
import Foundation

struct AdvancedCommerceCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "advanced-commerce", abstract: "Advanced Commerce API server actions (apps under Apple's addendum only).",
        discussion: """
            Refused unless the profile says advanced_commerce = true (the demo's does). Each action is checked \
            against Apple's limits first, shows the exact request and asks before sending (--yes for scripts), \
            goes through the audit ledger, and prints the transaction and renewal info Apple answers, verified. \
            Its requestReferenceId is kept: a re-run after an unknown outcome re-sends the same request, which \
            Apple applies at most once. docs/advanced-commerce.md.
            """,
        subcommands: [
            AdvancedCommerceCancelCommand.self, AdvancedCommerceRevokeCommand.self, AdvancedCommerceRefundCommand.self,
            AdvancedCommerceMetadataCommand.self, AdvancedCommercePriceCommand.self, AdvancedCommerceMigrateCommand.self,
        ])
}

/// Options every Advanced Commerce action takes.
struct AdvancedCommerceOptions: ParsableArguments {
    @Option(name: .long, help: "The storefront the transaction belongs to, such as USA (optional; Apple checks it matches).")
    var storefront: String?
    @Option(name: .long, help: "requestReferenceId to send, a UUID (default: a new one; a re-run after an unknown outcome re-uses the earlier one).")
    var requestId: String?

    func validate() throws {
        if let requestId, requestId.utf8.count != 36 || UUID(uuidString: requestId) == nil {
            throw ValidationError("--request-id \(requestId) is not a UUID: Apple's requestReferenceId is one, such as 7c80bb86-f892-4b21-a919-1357811d6c4f.")
        }
    }
}
