import DeskCore
import DeskStore
import Foundation

/// What others did to the customer on screen since it was read: an extension recorded in the
/// ledger by another console, process or agent, or a note by someone else. Looked for about once
/// a second, so the summary says so within two ("extended by sam 12 s ago: r reloads").
public struct CustomerWatchModel: PaneModel {
    /// What changed since the customer on screen was read, oldest first.
    public var changes: [CustomerChange] = []
    /// The lookup `changes` belong to.
    var watchedLookup: Int?
    var reading: Int?
    var lastReadTick: Int?
    /// Writes this console sent: their outcomes are already on screen.
    var ownWrites: Set<String> = []
    /// Notes this console added.
    var ownNotes: Set<Int64> = []
    public init() {}
}

/// One thing done to the customer elsewhere.
public struct CustomerChange: Sendable, Equatable {
    public var time: Date
    public var agent: String
    /// "extended", "noted".
    public var what: String

    /// "extended by sam 12 s ago".
    public func line(now: Date) -> String { "\(what) by \(agent) \(DisplayFormat.relative(time, now: now))" }
}

extension ConsoleState {
    public var customerWatch: CustomerWatchModel {
        get { models[CustomerWatchModel.self] }
        set { models[CustomerWatchModel.self] = newValue }
    }
}

enum CustomerWatch {
    /// Ticks between two looks (a tick is about 120 ms).
    static let interval = 8

    struct Found: Sendable {
        var lookup: Int
        var writes: [(requestIdentifier: String, change: CustomerChange)]
        var notes: [(id: Int64, change: CustomerChange)]
    }

    static func tick(_ state: inout ConsoleState) -> [ConsoleEffect] {
        var model = state.customerWatch
        guard let customer = state.customer, let since = customer.readAt, !customer.foundNothing else {
            if !model.changes.isEmpty { model.changes = [] }
            state.customerWatch = model
            return []
        }
        if model.watchedLookup != customer.lookup {
            model.changes = []
            model.watchedLookup = customer.lookup
        }
        guard model.reading == nil, state.tick - (model.lastReadTick ?? state.tick - interval) >= interval else {
            state.customerWatch = model
            return []
        }
        let lookup = customer.lookup
        let originals = Set(customer.originalTransactionIds)
        let subjects = customer.noteSubjects
        let request = ConsoleReducer.startInBackground(&state, owner: .customer)
        model.reading = request
        model.lastReadTick = state.tick
        state.customerWatch = model
        return [.task(PaneTask(request: request, name: "watch \(customer.query) for others' changes") { services, _ in
            CustomerAnswer.watched(await look(lookup: lookup, since: since, originals: originals, subjects: subjects, services: services))
        })]
    }

    /// Extensions of the customer's subscriptions with a line in the ledger after `since`, and
    /// notes about the customer kept after it.
    static func look(lookup: Int, since: Date, originals: Set<String>, subjects: Set<String>, services: DeskServices) async -> Found {
        var found = Found(lookup: lookup, writes: [], notes: [])
        guard let writes = services.writes else { return found }
        if let records = try? await writes.ledger.writes() {
            for record in records where record.intent.write == WriteKind.extend.rawValue {
                guard let original = record.intent.path.split(separator: "/").last.map(String.init), originals.contains(original),
                      let latest = record.lines.last, latest.time > since
                else { continue }
                let what = record.lastOutcome?.outcome == .applied ? "extended" : "extension sent (\(record.stateLabel))"
                found.writes.append((record.requestIdentifier, CustomerChange(time: latest.time, agent: record.intent.agent ?? "someone", what: what)))
            }
        }
        if let notes = try? await writes.notes?.notes(concerning: subjects) {
            for note in notes where note.time > since {
                found.notes.append((note.id, CustomerChange(time: note.time, agent: note.agent, what: "noted")))
            }
        }
        return found
    }

    /// Takes a look's answer.
    static func receive(_ state: inout ConsoleState, _ found: Found) {
        var model = state.customerWatch
        model.reading = nil
        guard found.lookup == state.customer?.lookup else {
            state.customerWatch = model
            return
        }
        // A note of this console still on its way to the store is not someone else's.
        let notesOnTheirWay = state.caseNotes.adding > 0
        let writes = found.writes.filter { !model.ownWrites.contains($0.requestIdentifier) }.map(\.change)
        let notes = found.notes.filter { !model.ownNotes.contains($0.id) && !notesOnTheirWay }
        let known = Set(state.caseNotes.notes?.map(\.id) ?? [])
        if notes.contains(where: { !known.contains($0.id) }) { state.caseNotes.stale = true }
        model.changes = (writes + notes.map(\.change)).sorted { $0.time < $1.time }
        state.customerWatch = model
    }
}
