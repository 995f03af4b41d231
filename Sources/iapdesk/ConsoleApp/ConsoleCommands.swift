import AppStoreServerAPI
import ArgumentParser
import Console
import DemoServer
import DeskCore
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
            try await DemoConsole.open(
                live: live, themeName: console.theme, environment: environment, timeout: timeout, exitAfterFirstFrame: exitAfterFirstFrame)
        }
    }
}

/// `iapdesk` (or `iapdesk console`): the console with the configured profile.
struct ConsoleCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "console", abstract: "Open the full-screen console with the configured profile (the default command).")

    @OptionGroup var console: ConsoleOptions
    @OptionGroup var live: LiveOptions
    @OptionGroup var global: GlobalOptions
    /// Whatever follows `iapdesk` that is not a command lands here, so it can be named.
    @Argument(help: .hidden) var unknown: [String] = []

    func validate() throws {
        guard let word = unknown.first else { return }
        let commands = IAPDesk.configuration.subcommands.map { $0._commandName }
        if commands.contains(word) {
            // `iapdesk --demo transaction ID`: options before the command are read as the console's.
            throw ValidationError("Options go after the command: iapdesk \(word) … \(CommandLine.arguments.dropFirst().prefix { $0 != word }.joined(separator: " ")). See iapdesk \(word) --help.")
        }
        throw ValidationError("iapdesk has no command \"\(word)\". Commands: \(commands.joined(separator: ", ")). See iapdesk --help.")
    }

    @MainActor
    func run() async throws {
        try await runReporting {
            if let offer = try firstRunOffer() {
                switch FirstRunScreen.ask(offer) {
                case .quit:
                    return
                case .demo:
                    // The demo keeps what the console was told: its store, receiver, forward URL and theme.
                    try await DemoConsole.open(live: live, themeName: console.theme)
                    return
                case .setUp:
                    // Where the console was told to look (and send) is where the profile goes.
                    let arguments = [("--config", global.config), ("--profile", global.profile), ("--base-url", global.baseURL)]
                        .flatMap { flag, value in value.map { [flag, $0] } ?? [] }
                    let status = try await InitFlow(options: try InitOptions.parse(arguments), prompter: Prompter()).run()
                    // A profile the doctor failed is not opened: its report says what to fix first.
                    if status != .success {
                        print("\nFix what failed above, then start iapdesk again (iapdesk doctor checks again).")
                        throw ExitCode(status)
                    }
                }
            }
            let session = try await Session.open(global)
            let receiver: ConsoleReceiver
            if session.demo != nil {
                // `iapdesk --demo` is `iapdesk demo`: the demo's notifications never go into the real store.
                receiver = try await DemoConsole.receiver(live, session: session)
            } else {
                do {
                    receiver = try await ConsoleReceiver.start(
                        live, location: try live.storeOptions.location(profileStore: session.profile.store), listen: live.listen,
                        verifier: session.verifier)
                } catch {
                    await session.close()
                    throw error
                }
            }
            try await ConsoleLauncher.launch(
                session: session, themeName: console.theme, isDemo: global.demo, configPath: global.config, receiver: receiver)
        }
    }
}

extension ConsoleCommand {
    /// The offer to set up a profile, when the console starts on a terminal with none; a broken
    /// config file or an unknown profile name throws its error as before.
    func firstRunOffer() throws -> FirstRunOffer? {
        guard !global.demo, isatty(STDIN_FILENO) == 1, isatty(STDOUT_FILENO) == 1 else { return nil }
        let loader = ConfigLoader()
        let path = global.config ?? loader.environment["IAPDESK_CONFIG"].flatMap { $0.isEmpty ? nil : $0 } ?? loader.defaultConfigPath
        let file = try loader.loadFile(path: global.config)
        let resolved = try loader.resolve(file: file, name: global.profile, flags: try global.overrides())
        return FirstRunOffer.decide(file: file, fileExists: FileManager.default.fileExists(atPath: path), resolved: resolved, configPath: path)
    }
}

enum ConsoleLauncher {
    /// The registry's keys with the config file's `[keys]` applied.
    static func keymap(_ file: ConfigFile) throws -> Keymap {
        do {
            return try Keymap.standard.rebinding(file.keyBindings)
        } catch {
            throw CLIError("\(error.description) (in \(file.path ?? "the config file")).", hint: "iapdesk keybindings lists the commands and their keys.", status: .configuration)
        }
    }

    @MainActor
    static func launch(
        session: Session, themeName: String?, isDemo: Bool, configPath: String? = nil, receiver: ConsoleReceiver, exitAfterFirstFrame: Bool = false
    ) async throws {
        do {
            try await run(session: session, themeName: themeName, isDemo: isDemo, configPath: configPath, receiver: receiver, exitAfterFirstFrame: exitAfterFirstFrame)
        } catch {
            await receiver.stop()
            throw error
        }
        await receiver.stop()
    }

    @MainActor
    private static func run(
        session: Session, themeName: String?, isDemo: Bool, configPath: String?, receiver: ConsoleReceiver, exitAfterFirstFrame: Bool
    ) async throws {
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
        // Without a ledger the console still reads; writes are refused with the reason.
        let writes = try? await session.writeContext(source: .console)
        var state = ConsoleState(
            profileName: session.profile.name, environment: session.environment, isDemo: isDemo,
            bundleId: session.profile.bundleId ?? "-", readOnly: session.profile.readOnly, themeName: theme.name)
        state.now = Date()
        do {
            // The profile's file as the session read it; the demo reads it only for its keys.
            state.keymap = try keymap(try session.configFile ?? loader.loadFile(path: configPath))
        } catch {
            // The demo needs no config: a broken one only costs its key bindings.
            guard isDemo else {
                await session.close()
                throw error
            }
            state.toasts.append(ToastMessage(text: "\(error) Default keys are used.", isError: true, expiresAtTick: 100))
        }
        let recent = RecentLookups(stateDirectory: loader.stateDirectory, profile: session.profile.name)
        state.recentLookups = recent.load()
        let inbox = try Inbox()
        let demo = session.demo
        state.live.source = receiver.received.source
        let received = receiver.received
        let doctorFolder = NSTemporaryDirectory() + "iapdesk-console-doctor-\(getpid())"
        defer { if demo != nil { try? FileManager.default.removeItem(atPath: doctorFolder) } }
        let doctor = session.doctor(demoFolder: doctorFolder)
        let profileServices = DeskServices(
            client: session.client, verifier: session.verifier, verifierProblem: session.verifierProblem, writes: writes, received: received,
            doctor: doctor)
        let runner = EffectRunner(
            services: profileServices,
            makeServices: { environment in
                if let demo {
                    return DeskServices(
                        client: try demo.makeClient(environment: environment, callTimeout: session.timeout),
                        verifier: try demo.makeVerifier(environment: environment), writes: writes, received: received, doctor: doctor)
                }
                guard environment == session.environment else {
                    throw CLIError("this profile is for \(session.environment.label); use a profile for \(environment.label)", status: .configuration)
                }
                return profileServices
            },
            recentLookups: recent,
            post: { inbox.post($0) })
        var effects: [ConsoleEffect] = []
        if let writes {
            // Only this account's unfinished writes are reconciled; the rest are counted and left alone.
            let plan = WriteReconciler.plan(
                (try? await writes.ledger.unresolved()) ?? [], accounts: session.accounts(writes), agent: writes.agent, now: Date())
            effects = ConsoleReducer.reconcile(&state, plan)
        }
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
}
