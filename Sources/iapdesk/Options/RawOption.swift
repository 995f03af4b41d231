import ArgumentParser

/// `--raw` of the commands that show signed records: the signed strings in the tables as well.
struct RawOption: ParsableArguments {
    @Flag(name: .long, help: "Print each record's signed string (the JWS exactly as Apple sent it) on an indented line under its row; --json always carries them.")
    var raw = false
}
