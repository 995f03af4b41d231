import ArgumentParser
import DeskCore
import Foundation

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
        // Said without the console's usage, which is not what was meant.
        let near = commands.map { ($0, Self.distance(word.lowercased(), $0)) }.filter { $0.1 <= max(1, $0.0.count / 3) }.min { $0.1 < $1.1 }?.0
        throw CLIError(
            "iapdesk has no command \"\(word)\"." + (near.map { " Did you mean \"\($0)\"?" } ?? ""),
            hint: "Commands: \(commands.joined(separator: ", ")). See iapdesk --help.", status: .usage
        ).reported()
    }

    /// Edits (insert, delete, replace) from one word to another.
    static func distance(_ from: String, _ to: String) -> Int {
        let a = Array(from), b = Array(to)
        guard !a.isEmpty, !b.isEmpty else { return max(a.count, b.count) }
        var previous = Array(0...b.count)
        for i in 1...a.count {
            var current = [i] + Array(repeating: 0, count: b.count)
            for j in 1...b.count {
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
            }
            previous = current
        }
        return previous[b.count]
    }

    @MainActor
    func run() async throws {
        try await runReporting {
            // Before the first-run offer, which draws too: a terminal that cannot is told at once.
            if isatty(STDIN_FILENO) == 1, isatty(STDOUT_FILENO) == 1 { try ConsoleTerminal.requireDrawable() }
            if let offer = try firstRunOffer() {
                switch FirstRunScreen.ask(offer) {
                case .quit:
                    return
                case .demo:
                    // The demo keeps what the console was told: its store, receiver, forward URL and theme.
                    try await DemoConsole.open(live: live, themeName: console.theme, consumptionPolicy: console.consumptionPolicy)
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
                session: session, themeName: console.theme, isDemo: global.demo, configPath: global.config, receiver: receiver,
                consumptionPolicy: console.consumptionPolicy)
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
