import ArgumentParser

/// `iapdesk init`: asks for a profile's settings, checking each, writes it into the config file
/// and runs the doctor on it.
struct InitCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "init",
        abstract: "Set up a profile: asks for the issuer ID, key, bundle ID, environment and app Apple ID, writes it, then checks it.",
        discussion: """
            Each answer is checked as it is given, and asked again with the reason when wrong; Enter takes the value in \
            brackets (an existing profile's). Every answer can be given as a flag instead. Answers can also come line by \
            line on standard input; when standard input ends with answers still missing, init names the flags to give \
            and exits 2. The profile goes into the config file (other profiles, keys and comments are kept; the folder \
            is made with mode 700 and the file written with mode 600), then the doctor checks it: init exits with the \
            doctor's code.
            """)

    @OptionGroup var options: InitOptions

    func run() async throws {
        try await runReporting {
            let status = try await InitFlow(options: options, prompter: Prompter()).run()
            if status != .success { throw ExitCode(status) }
        }
    }
}
