import ArgumentParser

/// `iapdesk retention`: Apple's Retention Messaging API, one subcommand per endpoint.
struct RetentionCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "retention",
        abstract: "Retention Messaging: images, messages, default messages, the realtime URL and performance tests.",
        discussion: """
            What the App Store shows a subscriber who is about to cancel. Each environment (Production, Sandbox: \
            --environment) keeps its own configuration. Uploads and deletes are writes: confirmed (or --yes), recorded in \
            the audit ledger, refused by a read-only profile. Images and messages are checked against Apple's rules \
            before anything is sent. See docs/retention.md.
            """,
        subcommands: [
            RetentionImagesCommand.self, RetentionMessagesCommand.self, RetentionDefaultCommand.self, RetentionRealtimeURLCommand.self,
            RetentionPerformanceTestCommand.self,
        ])
}
