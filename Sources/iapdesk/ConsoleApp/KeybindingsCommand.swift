import ArgumentParser
import Console
import DeskCore

/// Prints the console's key bindings as Markdown: docs/keybindings.md is this output.
struct KeybindingsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "keybindings", abstract: "Print the console's key bindings as Markdown (the source of docs/keybindings.md).")

    func run() {
        print(ActionRegistry.markdown(), terminator: "")
    }
}
