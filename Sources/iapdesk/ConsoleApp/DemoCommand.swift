import ArgumentParser
import DemoServer
import DeskCore
import Foundation

/// `iapdesk demo`: the console against the embedded demo server.
struct DemoCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "demo", abstract: "Open the full-screen console against the embedded demo App Store Server (no credentials, no network).")

    @OptionGroup var console: ConsoleOptions
    @OptionGroup var live: LiveOptions
    @Option(name: .long, help: "Production or Sandbox.") var environment: String = "Production"
    @Option(name: .long, help: ArgumentHelp("Seconds each request may take in all, retries included (default 60; IAPDESK_TIMEOUT).", valueName: "seconds"))
    var timeout: Double?
    @Flag(name: .long, help: "Remove the demo's kept state ($XDG_STATE_HOME/iapdesk/demo: its data and every write it accepted), say what was removed, and exit.")
    var reset = false
    @Flag(name: .long, help: .hidden) var exitAfterFirstFrame = false

    @MainActor
    func run() async throws {
        try await runReporting {
            if reset {
                do {
                    print(try DemoStateFolder(path: DemoStateLocation.path()).reset().description)
                } catch {
                    throw CLIError(String(describing: error), status: .configuration)
                }
                return
            }
            // Before the demo server starts: nothing to wait for on a terminal the console cannot use.
            try ConsoleTerminal.requireDrawable()
            try await DemoConsole.open(
                live: live, themeName: console.theme, environment: environment, timeout: timeout, consumptionPolicy: console.consumptionPolicy,
                exitAfterFirstFrame: exitAfterFirstFrame)
        }
    }
}
