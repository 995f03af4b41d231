import DeskCore
import DeskStore
import Foundation
import TerminalUI

extension Pane {
    public static let timeline = Pane("timeline")
}

/// What the timeline adds to the customer's loaded data: the ledger's writes for them, the agents'
/// notes, and the notifications the store received, read when the pane is shown.
public struct TimelineModel: PaneModel {
    public var writes: [WriteRecord] = []
    public var notes: [CaseNote] = []
    public var received: [StoredNotification] = []
    /// What could not be read, in words.
    public var problems: [String] = []
    /// The lookup these were read for.
    var readFor: Int?
    var reading: Int?
    public init() {}
}

extension ConsoleState {
    public var timeline: TimelineModel {
        get { models[TimelineModel.self] }
        set { models[TimelineModel.self] = newValue }
    }
}

/// What the Timeline's reads answer.
enum TimelineAnswer: PaneAnswer {
    case read(TimelinePane.Read)
}

/// Everything that happened to the customer in time order, each row naming its source.
enum TimelinePane {
    struct Read: Sendable {
        var lookup: Int
        var writes: [WriteRecord]
        var notes: [CaseNote]
        var received: [StoredNotification]
        var problems: [String]
    }

    static let description = PaneDescription(
        pane: .timeline, title: "Timeline", shortTitle: "Time", rowNoun: "events",
        rowCount: { rows($0).count },
        selectedID: { PaneRows.selected(rows($0), $0, .timeline)?.transactionId },
        rowIDs: { rows($0).map { "\($0.time.timeIntervalSince1970) \($0.kind.rawValue) \($0.summary)" } },
        detail: { PaneRows.selected(rows($0), $0, .timeline).map(tree) },
        table: { _, inner in inner.height > 2 ? Rect(x: inner.x, y: inner.y + 2, width: inner.width, height: inner.height - 2) : inner },
        render: TimelineView.render,
        opened: { state in
            state.focus = .content
            return read(&state)
        },
        refresh: { state in
            state.timeline.readFor = nil
            return CustomerPane.description.refresh(&state)
        },
        answers: .of(TimelineAnswer.self) { state, request, answer in
            guard case .read(let read) = answer, request == state.timeline.reading else { return [] }
            state.timeline.reading = nil
            guard read.lookup == state.customer?.lookup else { return [] }
            state.timeline.writes = read.writes
            state.timeline.notes = read.notes
            state.timeline.received = read.received
            state.timeline.problems = read.problems
            return []
        },
        tick: { state in
            // Shown again after a new lookup or `r`: read what the customer's data does not hold.
            state.pane == .timeline ? read(&state) : []
        }
    )

    /// The events of the customer on screen, after the pane's `/` filter.
    static func rows(_ state: ConsoleState) -> [TimelineEvent] {
        guard let customer = state.customer else { return [] }
        let model = state.timeline
        let own = model.readFor == customer.lookup
        let events = Timeline.events(customer: customer, writes: own ? model.writes : [], notes: own ? model.notes : [], received: own ? model.received : [])
        return PaneRows.filtered(events, state.filters[.timeline]) { "\($0.kind.rawValue) \($0.summary) \($0.source.rawValue) \($0.detail ?? "")" }
    }

    /// Reads the ledger, the notes and the store for the customer on screen, once a lookup.
    static func read(_ state: inout ConsoleState) -> [ConsoleEffect] {
        guard let customer = state.customer, !customer.foundNothing, state.timeline.readFor != customer.lookup, state.timeline.reading == nil else { return [] }
        let lookup = customer.lookup
        let environment = state.environment
        let bundleId = state.bundleId
        let originals = Set(customer.originalTransactionIds)
        let subjects = customer.noteSubjects
        let request = ConsoleReducer.startInBackground(&state, owner: .timeline)
        state.timeline.reading = request
        state.timeline.readFor = lookup
        return [.task(PaneTask(request: request, name: "read the timeline's writes, notes and arrivals for \(customer.query)") { services, _ in
            var read = Read(lookup: lookup, writes: [], notes: [], received: [], problems: [])
            if let writes = services.writes {
                do {
                    read.writes = CaseFile.writes(for: customer, in: try await writes.ledger.writes(), environment: environment, bundleId: bundleId)
                } catch {
                    read.problems.append("the ledger cannot be read: \(error)")
                }
                do {
                    read.notes = try await writes.notes?.notes(concerning: subjects) ?? []
                } catch {
                    read.problems.append("the notes cannot be read: \(error)")
                }
            }
            if let received = services.received {
                do {
                    let store = try await received.store()
                    var found: [Int64: StoredNotification] = [:]
                    for original in originals.sorted() {
                        for stored in try await store.notifications(NotificationFilter(transactionId: original)) { found[stored.id] = stored }
                    }
                    read.received = found.values.sorted { $0.id < $1.id }
                } catch {
                    read.problems.append("the received notifications cannot be read: \(error)")
                }
            }
            return TimelineAnswer.read(read)
        })]
    }

    static func tree(_ event: TimelineEvent) -> TreeNode {
        var children = [
            TreeNode(label: "When", value: DisplayFormat.date(event.time), path: "time"),
            TreeNode(label: "What", value: event.kind.rawValue, path: "kind"),
            TreeNode(label: "From", value: event.source.rawValue, path: "source"),
        ]
        if let id = event.transactionId { children.append(TreeNode(label: "Transaction ID", value: id, path: "transaction")) }
        if let detail = event.detail { children.append(TreeNode(label: "Detail", value: detail, path: "detail")) }
        return TreeNode(label: event.summary, children: children, path: "")
    }
}
