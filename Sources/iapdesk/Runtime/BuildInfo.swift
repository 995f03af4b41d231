/// What `iapdesk --version` and `iapdesk version` print: the release, and the commit the build
/// was made from (`buildCommit`, written at build time by Plugins/BuildCommit).
enum BuildInfo {
    static let version = "0.22.0"

    static var line: String { "iapdesk \(version) (commit \(buildCommit))" }
}
