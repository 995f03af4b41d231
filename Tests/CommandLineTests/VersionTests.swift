import Foundation
import Testing

extension CommandLineTests {
    /// `--version` (ArgumentParser's) and the `version` command say the same: the release and the
    /// commit the build was made from, stamped by Plugins/BuildCommit.
    @Test func versionAndTheVersionCommandPrintTheSameLine() async throws {
        let flag = try await run(["--version"])
        let command = try await run(["version"])
        #expect(flag.status == 0, "\(flag.stderr)")
        #expect(command.status == 0, "\(command.stderr)")
        #expect(flag.stdout == command.stdout)
        let line = flag.stdout.trimmingCharacters(in: .newlines)
        #expect(line.range(of: #"^iapdesk \d+\.\d+\.\d+ \(commit ([0-9a-f]{7,}|unknown)\)$"#, options: .regularExpression) != nil, "\(line)")
    }
}
