@testable import Console
@testable import DeskCore
import Testing

/// Inputs the fuzz targets found (Fuzz/, docs/fuzzing.md), each with what it broke.
@Suite struct FuzzRegressionTests {
    /// FuzzConfigFile: a table header with no name aborted the process inside toml++.
    @Test func aNamelessTableHeaderIsAnErrorNotACrash() {
        #expect(throws: ConfigurationError.invalidFile(path: "c.toml", detail: "line 3: expected a key, found U+A")) {
            try ConfigFile.parse("default_profile = \"p\"\n\n[\n", path: "c.toml")
        }
        #expect(throws: ConfigurationError.self) { try ConfigFile.parse("[profiles.p]\nroot_certs = [}", path: "c.toml") }
    }
}
