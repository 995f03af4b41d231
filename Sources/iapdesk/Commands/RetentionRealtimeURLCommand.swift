import AppStoreServerAPI
import ArgumentParser
import DeskCore
import Foundation

struct RetentionRealtimeURLCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "realtime-url", abstract: "Get, set and delete the URL Apple asks for a message in real time.",
        discussion: """
            Apple POSTs a signed real-time request to it (iapdesk decode reads one) and shows the message it answers \
            with. An https:// URL of at most 256 characters; Production takes one only after a performance test passed \
            in Sandbox.
            """,
        subcommands: [RetentionRealtimeURLGetCommand.self, RetentionRealtimeURLSetCommand.self, RetentionRealtimeURLDeleteCommand.self])
}

struct RetentionRealtimeURLGetCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "get", abstract: "The realtime URL of this environment.")

    @OptionGroup var global: GlobalOptions

    func run() async throws {
        try await withSession(global) { session, printer in
            let answer = try await session.client.getRealtimeURL()
            printer.emit(RetentionRealtimeURLOutput(environment: session.environment.rawValue, realtimeURL: answer.realtimeURL))
            printer.text("Realtime URL (\(session.environmentLabel)): \(answer.realtimeURL ?? "none")")
        }
    }
}

struct RetentionRealtimeURLSetCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "set", abstract: "Set the realtime URL of this environment.")

    @Argument(help: "An https:// URL of at most 256 characters.") var url: String
    @OptionGroup var write: WriteOptions
    @OptionGroup var global: GlobalOptions

    func validate() throws {
        if let violation = RealtimeUrlRequest(realtimeURL: url).violation { throw ValidationError(violation.description) }
    }

    func run() async throws {
        try await withSession(global) { session, printer in
            _ = try await RetentionWrite.send(
                Endpoints.configureRealtimeURL(request: RealtimeUrlRequest(realtimeURL: url)), subject: "realtime URL",
                session: session, yes: write.yes)
            printer.emit(RetentionWriteOutput(environment: session.environment.rawValue, action: "set-realtime-url", realtimeURL: url))
            printer.text("Realtime URL (\(session.environmentLabel)) is now \(url).")
        }
    }
}

struct RetentionRealtimeURLDeleteCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "delete", abstract: "Remove the realtime URL of this environment.")

    @OptionGroup var write: WriteOptions
    @OptionGroup var global: GlobalOptions

    func run() async throws {
        try await withSession(global) { session, printer in
            _ = try await RetentionWrite.send(Endpoints.deleteRealtimeURL(), subject: "realtime URL", session: session, yes: write.yes)
            printer.emit(RetentionWriteOutput(environment: session.environment.rawValue, action: "delete-realtime-url"))
            printer.text("Removed the realtime URL (\(session.environmentLabel)).")
        }
    }
}
