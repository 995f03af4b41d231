import ArgumentParser

/// `iapdesk audit`: every write recorded in the audit ledger, console and command line alike.
struct AuditCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "audit", abstract: "List the writes in the audit ledger (console and command line), or close one whose outcome is unknown.",
        subcommands: [AuditListCommand.self, AuditResolveCommand.self], defaultSubcommand: AuditListCommand.self)
}
