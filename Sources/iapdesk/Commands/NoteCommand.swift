import ArgumentParser
import Console
import Foundation
import WebhookStore

/// `iapdesk note ID ["text"]`: a case note about a customer, kept in the store so every agent on
/// the same store reads it (the console's summary, case files); without text, lists them.
struct NoteCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "note",
        abstract: "Add a note about a customer (with TEXT), or list the notes about them.",
        discussion: """
            A note is one line of at most 500 characters, kept with the agent's name (agent in the profile, \
            IAPDESK_AGENT, else the login name) and the time, in the store (a team's PostgreSQL store shares it: docs/team.md). \
            Notes are kept under the ID given; the console's a keeps a note under every ID of the customer on screen, \
            and shows the notes kept under any of them. Needs no App Store credentials.
            """)

    @Argument(help: "The order ID from the receipt, or a transaction ID.") var id: String
    @Argument(help: "The note; quote it. Without it, the notes about ID are listed.") var text: String?
    @OptionGroup var global: GlobalOptions

    func validate() throws {
        if case .invalid(let reason) = IDKind.classify(id) { throw ValidationError("\(id): \(reason)") }
        if let text { _ = try Self.checked(text) }
    }

    /// The note as kept: trimmed, one line, 1 to 500 characters.
    static func checked(_ text: String) throws -> String {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !trimmed.isEmpty else { throw ValidationError("The note is empty.") }
        guard trimmed.count <= CaseNote.maxLength else {
            throw ValidationError("The note has \(trimmed.count) characters; a note is at most \(CaseNote.maxLength).")
        }
        guard !trimmed.unicodeScalars.contains(where: { CharacterSet.controlCharacters.contains($0) }) else {
            throw ValidationError("A note is one line, without tabs or control characters.")
        }
        return trimmed
    }

    func run() async throws {
        try await runReporting {
            let profile = global.demo ? nil : try ListenCommand.profile(global)
            let (_, notes) = try await AuditLedgerAccess.openWithNotes(profileStore: profile?.store, demo: global.demo)
            let printer = Printer(json: global.json)
            let agent = profile?.agentName ?? (try? ProfileOverrides.fromEnvironment(ProcessInfo.processInfo.environment))?.agent ?? WriteContext.loginName
            do {
                if let text {
                    let note = try await notes.addNote(try Self.checked(text), agent: agent, at: Date(), subjects: [id])
                    printer.emit(["id": id, "note": Self.object(note)])
                    printer.text("Noted for \(id) by \(note.agent) at \(DisplayFormat.date(note.time)).")
                } else {
                    let found = try await notes.notes(concerning: [id])
                    printer.emit(["id": id, "notes": found.map(Self.object)])
                    printer.text(found.isEmpty ? "No notes about \(id)." : found.map(Self.line).joined(separator: "\n"))
                }
            } catch let error as NotificationStoreError {
                throw CLIError("Notes: \(error.description)", status: .failure)
            }
        }
    }

    static func line(_ note: CaseNote) -> String {
        "\(DisplayFormat.date(note.time))  \(note.agent): \(note.text)"
    }

    static func object(_ note: CaseNote) -> [String: Any] {
        ["time": DisplayFormat.iso(note.time), "agent": note.agent, "text": note.text]
    }
}
