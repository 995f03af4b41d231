import ArgumentParser

/// The console's look, shared by `iapdesk`, `console` and `demo`.
struct ConsoleOptions: ParsableArguments {
    @Option(name: .long, help: "Colour theme: default, light, high-contrast, solarized-dark, monochrome, or one in the config dir.")
    var theme: String?
    @Option(name: .long, help: ArgumentHelp(
        "The consumption policy the receivers answer with (default: the profile's consumption_policy): the Refund requests pane shows what it does for each request.",
        valueName: "file"))
    var consumptionPolicy: String?
}
