import ArgumentParser
import DeskCore
import DeskStore
import Foundation

/// `iapdesk note ID ["text"]`: a case note about a customer, kept in the store so every agent on
/// the same store reads it (the console's summary, case files); without text, lists them.
struct NoteCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "note",
        abstract: "Add a note about a customer (with TEXT), or list the notes about them.",
        discussion: """
            A note is one line of at most 500 characters, kept with the agent's name (agent in the profile, \
            IAPDESK_AGENT, else the login name) and the time, in the store (a team's PostgreSQL store shares it: docs/team.md). \
            A note is kept under every ID the customer is known by (the order's purchases and their original \
            transactions, read from Apple when the profile has credentials; else the ID given only), as the console's a \
            keeps it, so any agent finds it by any of them. Listing needs no App Store credentials.
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
            let profile = global.demo ? nil : try ReceivingProfile.resolve(global)
            let (_, notes) = try await AuditLedgerAccess.openWithNotes(profileStore: profile?.store, demo: global.demo)
            let printer = Printer(json: global.json)
            let agent = profile?.agentName ?? (try? ProfileOverrides.fromEnvironment(ProcessInfo.processInfo.environment))?.agent ?? WriteContext.loginName
            do {
                if let text {
                    let checked = try Self.checked(text)
                    let (subjects, alone) = await relatedIDs()
                    let note = try await notes.addNote(checked, agent: agent, at: Date(), subjects: subjects)
                    printer.emit(NoteOutput.Added(id: id, note: NoteOutput.Note(note), keptUnder: subjects.sorted()))
                    printer.text("Noted for \(id) by \(note.agent) at \(DisplayFormat.date(note.time))"
                        + (subjects.count > 1 ? ", under its \(subjects.count) IDs." : "."))
                    if let alone { StandardStreams.error("note: \(alone)\n") }
                } else {
                    let found = try await notes.notes(concerning: [id])
                    printer.emit(NoteOutput.Listed(id: id, notes: found.map(NoteOutput.Note.init)))
                    printer.text(found.isEmpty ? "No notes about \(id)." : found.map(Self.line).joined(separator: "\n"))
                }
            } catch let error as NotificationStoreError {
                throw CLIError("Notes: \(error.description)", status: .failure)
            }
        }
    }

    /// Every ID the customer is known by, as the console keeps a note under them: the order's
    /// purchases and their original transactions, or a transaction's original one; read from
    /// verified data only. Without credentials (or an answer), the ID given alone, and why.
    private func relatedIDs() async -> (Set<String>, String?) {
        var ids: Set<String> = [id]
        let alone = "kept under \(id) only: the customer's other IDs could not be read"
        guard let session = try? await Session.open(global) else {
            return (ids, alone + " (no App Store credentials); look the customer up by \(id) to find it")
        }
        defer { Task { await session.close() } }
        guard let verifier = session.verifier else { return (ids, alone + " (nothing to verify Apple's answers with)") }
        do {
            let signed: [String]
            switch IDKind.classify(id) {
            case .orderId: signed = try await session.client.lookUpOrderId(orderId: id).signedTransactions ?? []
            case .transactionId: signed = [try await session.client.getTransactionInfo(transactionId: id).signedTransactionInfo].compactMap { $0 }
            case .appAccountToken(let token):
                // The customer's original transactions, as far as the store's index has seen them.
                let links = (try? await AccountIndexAccess.links(token, session: session).links) ?? []
                ids.formUnion(links.map(\.originalTransactionId))
                signed = []
            case .invalid: signed = []
            }
            for jws in signed {
                guard let payload = await verifier.verifyTransaction(jws).verifiedPayload else { continue }
                if let value = payload.transactionId { ids.insert(value) }
                if let value = payload.originalTransactionId { ids.insert(value) }
            }
            return (ids, nil)
        } catch {
            return (ids, alone + " (\(error.summary)); look the customer up by \(id) to find it")
        }
    }

    static func line(_ note: CaseNote) -> String {
        "\(DisplayFormat.date(note.time))  \(note.agent): \(note.text)"
    }
}

/// `note --json`: the note added and every ID it is kept under, or the notes about the ID.
enum NoteOutput {
    struct Note: Encodable {
        var time: String
        var agent: String
        var text: String

        init(_ note: CaseNote) {
            (time, agent, text) = (DisplayFormat.iso(note.time), note.agent, note.text)
        }
    }

    struct Added: Encodable {
        var id: String
        var note: Note
        var keptUnder: [String]
    }

    struct Listed: Encodable {
        var id: String
        var notes: [Note]
    }
}
