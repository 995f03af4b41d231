import ArgumentParser

/// The console's look, shared by `iapdesk`, `console` and `demo`.
struct ConsoleOptions: ParsableArguments {
    @Option(name: .long, help: "Colour theme: default, light, high-contrast, solarized-dark, monochrome, or one in the config dir.")
    var theme: String?
}
