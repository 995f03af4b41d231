import ArgumentParser

/// `iapdesk completions SHELL`: the shell completion script (what --generate-completion-script prints).
struct CompletionsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "completions",
        abstract: "Print the completion script for bash, zsh or fish.",
        discussion: """
            Install it where the shell looks: iapdesk completions bash > ~/.local/share/bash-completion/completions/iapdesk; \
            iapdesk completions zsh > a folder of $fpath as _iapdesk; iapdesk completions fish > ~/.config/fish/completions/iapdesk.fish. \
            The same script as iapdesk --generate-completion-script SHELL.
            """)

    @Argument(help: ArgumentHelp("bash, zsh or fish.", valueName: "shell"))
    var shell: String

    func validate() throws {
        guard CompletionShell(rawValue: shell.lowercased()) != nil else {
            throw ValidationError("No completions for \"\(shell)\": the shells are bash, zsh and fish.")
        }
    }

    func run() {
        // validate() has checked the name.
        guard let known = CompletionShell(rawValue: shell.lowercased()) else { return }
        print(IAPDesk.completionScript(for: known))
    }
}
