import ArgumentParser
import Foundation

@main
struct IAPDesk: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "iapdesk",
        abstract: "A support console for Apple's App Store Server API.",
        discussion: """
            With no command, iapdesk opens the full-screen console for the configured profile; \
            `iapdesk demo` opens it against the embedded demo server. Every command takes --demo to run against an embedded demo App Store Server (no credentials, \
            no network), or reads a profile from $XDG_CONFIG_HOME/iapdesk/config.toml, overridden by \
            IAPDESK_* variables and flags. Tables on a terminal; --json for scripts.

            \(ExitStatus.helpText)
            """,
        version: BuildInfo.line,
        subcommands: [
            ConsoleCommand.self, DemoCommand.self, LookupCommand.self, TransactionCommand.self, HistoryCommand.self, RefundsCommand.self, StatusCommand.self,
            NotificationsCommand.self, TestNotificationCommand.self, TestNotificationStatusCommand.self, ExtendCommand.self,
            MassExtendCommand.self, MassExtendStatusCommand.self, ConsumptionCommand.self, RefundRequestsCommand.self, RefundPolicyCommand.self, AppAccountTokenCommand.self, FinishTransactionCommand.self,
            AppTransactionCommand.self, ReceiptCommand.self,
            RetentionCommand.self,
            AdvancedCommerceCommand.self,
            DecodeCommand.self, CaseCommand.self, TimelineCommand.self, NoteCommand.self, IndexCommand.self, AuditCommand.self, InitCommand.self, DoctorCommand.self, ListenCommand.self, ReceivedCommand.self,
            ReconcileCommand.self, WatchCommand.self, ReplayCommand.self, RecoverCommand.self, TriggerCommand.self, ServeDemoCommand.self, KeybindingsCommand.self, VersionCommand.self, ManCommand.self,
            CompletionsCommand.self,
        ],
        defaultSubcommand: ConsoleCommand.self)

    /// ArgumentParser's own `main`, with a mistyped subcommand named as one (`SubcommandMistake`).
    static func main() async {
        // Before the threads that allocate start.
        MallocArenas.limitToOnePerCore()
        do {
            var command = try parseAsRoot()
            if var command = command as? any AsyncParsableCommand {
                try await command.run()
            } else {
                try command.run()
            }
        } catch {
            let arguments = Array(CommandLine.arguments.dropFirst())
            if !(error is CleanExit), (try? parseAsRoot(arguments)) == nil, let mistake = SubcommandMistake.message(arguments, root: Self.self) {
                StandardStreams.error("Error: \(mistake)\n")
                exit(withError: ExitCode(ExitStatus.usage.rawValue))
            }
            exit(withError: error)
        }
    }
}
