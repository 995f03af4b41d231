import ArgumentParser

/// `iapdesk version`: the same line as `iapdesk --version`, for those who type a command.
struct VersionCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "version", abstract: "Print iapdesk's version and the commit it was built from (as --version does).")

    func run() {
        print(BuildInfo.line)
    }
}
