import ArgumentParser

/// `--from FILE` and its companions: one read command for every ID of a file, in one process.
struct BulkOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp(
        "Read the IDs from this file instead of the command line (one per line, or a CSV column with --column; - reads standard input).",
        valueName: "file"))
    var from: String?

    @Option(name: .long, help: ArgumentHelp("With --from: the CSV column holding the IDs, by header name or number (from 1).", valueName: "name|number"))
    var column: String?

    @Option(name: .long, help: "With --from: jsonl (every field, one line per input line; the default) or csv (the main columns).")
    var format: String = "jsonl"

    @Option(name: .long, help: ArgumentHelp("With --from: write the records to this file instead of standard output (needed by --resume).", valueName: "file"))
    var output: String?

    @Flag(name: .long, help: "With --from and --output: continue the run that wrote --output, asking only for the lines it does not hold.")
    var resume = false

    @Option(name: .long, help: ArgumentHelp("With --from: percent of Apple's per-endpoint rate limit to use, 1 to 100.", valueName: "percent"))
    var rateShare: Int = 95

    var isBulk: Bool { from != nil }

    var bulkFormat: BulkFormat { BulkFormat(rawValue: format.lowercased()) ?? .jsonl }

    /// Checks the options together with the command's ID argument: exactly one of the two.
    func validate(id: String?, rules: (String) throws -> Void) throws {
        guard isBulk else {
            let stray = [column.map { _ in "--column" }, output.map { _ in "--output" }, resume ? "--resume" : nil].compactMap { $0 }
            if let first = stray.first { throw ValidationError("\(first) goes with --from FILE.") }
            guard let id else { throw ValidationError("Missing the ID: give one, or --from FILE for a list of them.") }
            try rules(id)
            return
        }
        if let id { throw ValidationError("Give an ID or --from FILE, not both (\(id) and --from \(from ?? "")).") }
        guard BulkFormat(rawValue: format.lowercased()) != nil else {
            throw ValidationError("--format \(format) is not jsonl or csv.")
        }
        if resume && (output == nil || output == "-") {
            throw ValidationError("--resume needs --output FILE: the file of the earlier run is how it knows where that run stopped.")
        }
        guard (1...100).contains(rateShare) else { throw ValidationError("--rate-share \(rateShare) is not a percent from 1 to 100.") }
    }
}
