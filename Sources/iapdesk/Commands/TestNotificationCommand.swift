import AppStoreServerAPI
import ArgumentParser
import DeskCore
import Foundation

struct TestNotificationCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "test-notification", abstract: "Ask Apple to send a TEST notification to the app's server, and follow its delivery.")

    @Flag(name: .long, help: "Wait until the delivery result is known.") var wait = false
    @Option(name: .long, help: ArgumentHelp("Seconds to wait for the result with --wait (the global --timeout bounds each request).", valueName: "seconds"))
    var waitTimeout: Double = 60
    @OptionGroup var global: GlobalOptions

    func validate() throws {
        guard waitTimeout > 0, waitTimeout <= 86_400 else { throw ValidationError("--wait-timeout must be more than 0 and at most 86400 seconds.") }
    }

    func run() async throws {
        // The wait is on purpose: the command's deadline covers it on top of the requests' time.
        try await withSession(global, extraTime: wait ? waitTimeout : 0) { session, printer in
            let token = try await session.client.requestTestNotification().testNotificationToken ?? ""
            printer.text("Requested a test notification in \(session.environmentLabel). Token: \(token)")
            guard wait else {
                printer.emit(TestNotificationRequested(testNotificationToken: token, environment: session.environment))
                printer.text("Check later with: iapdesk test-notification-status \(token)\(global.followUpFlags)")
                return
            }
            let deadline = Date().addingTimeInterval(waitTimeout)
            while true {
                do {
                    let status = try await session.client.getTestNotificationStatus(testNotificationToken: token)
                    try await TestNotificationReport.show(status, token: token, session: session, printer: printer)
                    return
                } catch let error as APIError where error.isNotReadyYet {
                    guard Date() < deadline else {
                        throw CLIError("No delivery result after \(Int(waitTimeout)) s.", hint: "Check later with iapdesk test-notification-status \(token)\(global.followUpFlags), or wait longer with --wait-timeout.", status: .unavailable)
                    }
                    if !printer.json { StandardStreams.error("waiting for the delivery result...\n") }
                    try await Task.sleep(nanoseconds: 1_000_000_000)
                }
            }
        }
    }
}

extension APIError {
    /// Apple's "result not available yet" for a test notification still being delivered.
    var isNotReadyYet: Bool {
        if case .server(let failure) = self { return failure.code == .testNotificationNotFound }
        return false
    }
}

/// `test-notification --json` without `--wait`: the token to ask for the result with.
struct TestNotificationRequested: Encodable {
    var testNotificationToken: String
    var environment: AppStoreEnvironment
}
