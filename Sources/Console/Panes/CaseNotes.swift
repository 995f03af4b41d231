import DeskCore
import DeskStore
import Foundation
import TerminalUI

extension CommandID {
    public static let customerNote = CommandID("customer.note")
}

/// The customer's case notes, read from the store (a team's store: every agent's) whenever the
/// customer on screen changes or a note is added; `a` (`:note TEXT`) adds one.
public struct CaseNotesModel: PaneModel {
    /// The notes about the customer on screen, oldest first; nil until read (or with no store).
    public var notes: [CaseNote]?
    /// Why they cannot be read, when they cannot.
    public var problem: String?
    var readFor: CustomerKey?
    var reading: Int?
    /// Notes on their way to the store: q waits for them.
    var adding = 0
    var stale = false
    public init() {}
}

extension ConsoleState {
    public var caseNotes: CaseNotesModel {
        get { models[CaseNotesModel.self] }
        set { models[CaseNotesModel.self] = newValue }
    }
}

public enum CaseNotes {
    struct Read: Sendable {
        var key: CustomerKey
        var notes: [CaseNote]?
        var problem: String?
    }

    struct Added: Sendable {
        var note: CaseNote?
        var problem: String?
    }

    static let command = KeyCommand(
        .customerNote, "Add a case note", keys: [.character("a")], context: .customer, inFooter: true, footerLabel: "Note",
        unavailable: unavailable,
        perform: { state, _ in
            state.focus = .commandLine
            state.commandInput = TextInputState(text: "note ", maxLength: ConsoleState.commandLineLength)
            return []
        })

    static let colonCommand = ColonCommand(
        ["note"], usage: ":note TEXT", "Add a case note about the customer on screen (every agent on the store reads it)",
        example: "Called about the outage; extended 7 days",
        unavailable: unavailable,
        perform: { state, _, argument in add(&state, argument) })

    /// A note is about a customer: one was found, or is still being looked up.
    static func unavailable(_ state: ConsoleState) -> String? {
        guard let customer = state.customer else { return "Look up a customer first." }
        return customer.foundNothing ? "Nothing was found for \(customer.query): a note needs a customer. Look up another ID." : nil
    }

    static func add(_ state: inout ConsoleState, _ typed: String) -> [ConsoleEffect] {
        guard let customer = state.customer else { return [] }
        let text = typed.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !text.isEmpty else {
            ConsoleReducer.toast(&state, "The note is empty: :note TEXT", isError: true)
            return []
        }
        guard text.count <= CaseNote.maxLength else {
            ConsoleReducer.toast(&state, "A note is at most \(CaseNote.maxLength) characters; this one has \(text.count).", isError: true)
            return []
        }
        guard !text.unicodeScalars.contains(where: { CharacterSet.controlCharacters.contains($0) }) else {
            ConsoleReducer.toast(&state, "A note is one line, without tabs or control characters.", isError: true)
            return []
        }
        let subjects = customer.noteSubjects
        let request = ConsoleReducer.start(&state, "Note for \(customer.query)", owner: .customer)
        state.caseNotes.adding += 1
        return [.task(PaneTask(request: request, name: "add a note for \(customer.query)") { services, _ in
            guard let writes = services.writes, let store = writes.notes else {
                return CustomerAnswer.noteAdded(Added(note: nil, problem: "no store to keep notes in (the audit ledger's store could not be opened)"))
            }
            do {
                return CustomerAnswer.noteAdded(Added(note: try await store.addNote(text, agent: writes.agent, at: Date(), subjects: subjects), problem: nil))
            } catch {
                return CustomerAnswer.noteAdded(Added(note: nil, problem: "\(error)"))
            }
        })]
    }

    static func tick(_ state: inout ConsoleState) -> [ConsoleEffect] {
        var model = state.caseNotes
        guard let customer = state.customer else {
            if model.notes != nil || model.problem != nil { state.caseNotes = CaseNotesModel() }
            return []
        }
        guard model.reading == nil else { return [] }
        // Compared at every tick, so it is made without walking the rows.
        let key = CustomerKey(
            lookup: customer.lookup, subscriptions: customer.subscriptions.value?.count ?? -1, history: customer.history.value?.count ?? -1,
            transaction: customer.transaction.value?.payload?.originalTransactionId)
        guard key != model.readFor || model.stale else { return [] }
        let subjects = customer.noteSubjects
        if key.lookup != model.readFor?.lookup { model.notes = nil }
        model.readFor = key
        model.stale = false
        let request = ConsoleReducer.startInBackground(&state, owner: .customer)
        model.reading = request
        state.caseNotes = model
        return [.task(PaneTask(request: request, name: "read notes for \(customer.query)") { services, _ in
            guard let store = services.writes?.notes else {
                return CustomerAnswer.notesRead(Read(key: key, notes: nil, problem: "the store could not be opened when the console started"))
            }
            do {
                return CustomerAnswer.notesRead(Read(key: key, notes: try await store.notes(concerning: subjects), problem: nil))
            } catch {
                return CustomerAnswer.notesRead(Read(key: key, notes: nil, problem: "\(error)"))
            }
        })]
    }

    /// Takes the customer's notes as read.
    static func receive(_ state: inout ConsoleState, _ read: Read) {
        state.caseNotes.reading = nil
        guard read.key == state.caseNotes.readFor else { return }
        state.caseNotes.notes = read.notes
        state.caseNotes.problem = read.problem
    }

    /// Takes a note as kept, or why it was not.
    static func receive(_ state: inout ConsoleState, _ added: Added) {
        state.caseNotes.adding = max(0, state.caseNotes.adding - 1)
        if let note = added.note {
            state.customerWatch.ownNotes.insert(note.id)
            ConsoleReducer.toast(&state, "Noted by \(note.agent).")
            state.caseNotes.stale = true
        } else {
            ConsoleReducer.toast(&state, "The note was not kept: \(added.problem ?? "unknown reason")", isError: true)
        }
    }
}
