import AppStoreServerAPI
import ArgumentParser
import Console
import DemoServer
import Foundation
import TerminalUI

struct ConsoleOptions: ParsableArguments {
    @Option(name: .long, help: "Colour theme: default, light, high-contrast, solarized-dark, monochrome, or one in the config dir.")
    var theme: String?
}

/// `iapdesk demo`: the console against the embedded demo server.
struct DemoCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "demo", abstract: "Open the full-screen console against the embedded demo App Store Server (no credentials, no network).")

    @OptionGroup var console: ConsoleOptions
    @Option(name: .long, help: "Production or Sandbox.") var environment: String = "Production"
    @Flag(name: .long, help: .hidden) var exitAfterFirstFrame = false

    @MainActor
    func run() async throws {
        try await runReporting {
            let session = try await Session.openDemo(environment: environment)
            try await ConsoleLauncher.launch(session: session, themeName: console.theme, isDemo: true, exitAfterFirstFrame: exitAfterFirstFrame)
        }
    }
}

/// `iapdesk` (or `iapdesk console`): the console with the configured profile.
struct ConsoleCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "console", abstract: "Open the full-screen console with the configured profile (the default command).")

    @OptionGroup var console: ConsoleOptions
    @OptionGroup var global: GlobalOptions

    @MainActor
    func run() async throws {
        try await runReporting {
            let session = try await Session.open(global)
            try await ConsoleLauncher.launch(session: session, themeName: console.theme, isDemo: global.demo)
        }
    }
}

enum ConsoleLauncher {
    @MainActor
    static func launch(session: Session, themeName: String?, isDemo: Bool, exitAfterFirstFrame: Bool = false) async throws {
        guard isatty(STDIN_FILENO) == 1, isatty(STDOUT_FILENO) == 1 else {
            await session.close()
            throw CLIError("The console needs a terminal.", hint: "Run it in a terminal, or use the commands (iapdesk --help) in scripts.", status: .usage)
        }
        let loader = ConfigLoader()
        let catalog = ThemeCatalog(userDirectory: loader.configDirectory + "/themes")
        let name = themeName ?? session.profile.theme ?? ProcessInfo.processInfo.environment["IAPDESK_THEME"] ?? "default"
        let theme: Theme
        do {
            theme = try catalog.load(name)
        } catch {
            await session.close()
            throw CLIError("\(error)", status: .configuration)
        }
        let ledger = try? AuditLedger(path: loader.stateDirectory + "/audit.jsonl")
        var state = ConsoleState(
            profileName: session.profile.name, environment: session.environment, isDemo: isDemo,
            bundleId: session.profile.bundleId ?? "-", readOnly: session.profile.readOnly, themeName: theme.name)
        let inbox = try Inbox()
        let demo = session.demo
        let profileServices = ConsoleServices(client: session.client, verifier: session.verifier, verifierProblem: session.verifierProblem)
        let runner = EffectRunner(
            services: profileServices, profileName: session.profile.name, ledger: ledger,
            makeServices: { environment in
                if let demo {
                    return ConsoleServices(client: try demo.makeClient(environment: environment), verifier: try demo.makeVerifier(environment: environment))
                }
                guard environment == session.environment else {
                    throw CLIError("this profile is for \(session.environment.label); use a profile for \(environment.label)", status: .configuration)
                }
                return profileServices
            },
            post: { inbox.post($0) })
        let effects = reconcile(ledger, &state)
        let loop = ConsoleLoop(
            state: state, theme: theme, catalog: catalog, runner: runner, inbox: inbox,
            noColor: ProcessInfo.processInfo.environment["NO_COLOR"].map { !$0.isEmpty } ?? false)
        do {
            try loop.run(initialEffects: effects, exitAfterFirstFrame: exitAfterFirstFrame)
        } catch let error as TerminalError {
            await session.close()
            throw CLIError(error.description, status: .failure)
        }
        await session.close()
    }

    /// Writes left without an outcome by a crash: extensions are re-sent with their request
    /// identifier (Apple applies each identifier once); anything else is marked unknown.
    static func reconcile(_ ledger: AuditLedger?, _ state: inout ConsoleState) -> [ConsoleEffect] {
        guard let ledger else { return [] }
        var effects: [ConsoleEffect] = []
        for entry in ledger.unfinished() {
            let prefix = "/inApps/v1/subscriptions/extend/"
            if entry.method == "PUT", entry.path.hasPrefix(prefix), entry.environment == state.environment.rawValue,
               let body = entry.body, let request = try? AppStoreJSON.decode(ExtendRenewalDateRequest.self, from: Data(body.utf8)) {
                try? ledger.recordOutcome(entry, outcome: "re-sent at startup with the same requestIdentifier")
                let id = state.nextRequest
                state.nextRequest += 1
                state.inFlight[id] = "Re-send unfinished extension \(entry.requestIdentifier)"
                effects.append(.extend(request: id, originalTransactionId: String(entry.path.dropFirst(prefix.count)), body: request))
            } else {
                try? ledger.recordOutcome(entry, outcome: "unknown: the process ended before the answer")
                state.toasts.append(ToastMessage(text: "A write from an earlier session has an unknown outcome: \(entry.path)", isError: true, expiresAtTick: 80))
            }
        }
        return effects
    }
}
