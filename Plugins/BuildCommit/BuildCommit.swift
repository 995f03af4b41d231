import Foundation
import PackagePlugin

/// Stamps `iapdesk` with the commit it is built from, for `iapdesk --version`. SwiftPM has no
/// build-time script hook but a build-tool plugin: before every build this writes BuildCommit.swift
/// with `buildCommit`, `git rev-parse --short HEAD` of the package folder, or "unknown" outside a
/// checkout (a source archive, no git, a folder git refuses). It never fails the build, needs no
/// network, and rewrites the file only when the commit changed, so a build with nothing new
/// compiles nothing again.
@main
struct BuildCommit: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: Target) throws -> [Command] {
        let folder = context.pluginWorkDirectoryURL.appending(path: "BuildCommit")
        let file = folder.appending(path: "BuildCommit.swift")
        let script = #"""
            commit=$(git -c safe.directory="$1" -C "$1" rev-parse --short HEAD 2>/dev/null) || commit=unknown
            case "$commit" in *[!0-9a-f]* | "") commit=unknown ;; esac
            text="/// The commit this build was made from (Plugins/BuildCommit): \"unknown\" outside a git checkout.
            let buildCommit = \"$commit\""
            mkdir -p "$(dirname "$2")"
            [ "$(cat "$2" 2>/dev/null)" = "$text" ] || printf '%s\n' "$text" > "$2"
            exit 0
            """#
        var environment = ProcessInfo.processInfo.environment
        environment["PATH"] = (environment["PATH"].map { $0 + ":" } ?? "") + "/usr/bin:/bin:/usr/local/bin:/opt/homebrew/bin"
        return [
            .prebuildCommand(
                displayName: "Stamping iapdesk with its commit",
                executable: URL(filePath: "/bin/sh"),
                arguments: ["-c", script, "build-commit", context.package.directoryURL.path, file.path],
                environment: environment,
                outputFilesDirectory: folder)
        ]
    }
}
