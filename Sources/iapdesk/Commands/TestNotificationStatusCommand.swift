import ArgumentParser

struct TestNotificationStatusCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "test-notification-status", abstract: "Show the delivery attempts of a test notification.")

    @Argument(help: "The token from test-notification.") var token: String
    @OptionGroup var global: GlobalOptions

    func run() async throws {
        try await withSession(global) { session, printer in
            let status = try await session.client.getTestNotificationStatus(testNotificationToken: token)
            try await TestNotificationReport.show(status, token: token, session: session, printer: printer)
        }
    }
}
