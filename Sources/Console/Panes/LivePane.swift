import AppStoreServerAPI
import DeskCore
import DeskStore
import Foundation
import NotificationReconcile
import TerminalUI

extension Pane {
    public static let live = Pane("live")
}

/// The Live pane's own state: what arrived at the receiver, newest first, and a replay being confirmed.
public struct LiveModel: PaneModel {
    /// Where the rows come from; nil when the console reads no store.
    public var source: LiveSource?
    /// Without their raw bodies and decoded payloads: 2,000 of those are tens of megabytes, and only
    /// the opened row's payload is shown (`opened`) and a replay's body sent (read again for it).
    public var rows: [StoredNotification] = []
    /// The payload of the row whose detail is open, read from the store when it opened.
    public var opened: OpenedPayload?
    var payloadRead: Int?
    /// The latest delivery seen: the next poll asks for what came after it.
    public var cursor: Int64?
    public var loaded = false
    var poll: Int?
    var lastPollTick = Int.min / 2
    /// Why the store cannot be read now (none yet, unreadable); polling goes on.
    public var problem: DisplayError?
    /// A replay waiting for its second `r`.
    public var pendingReplay: PendingReplay?
    /// The last replay's outcome, by notificationUUID.
    public var replays: [String: ReplayOutcome] = [:]
    /// Re-posts by `replay`, `recover` or `watch` of the rows, read with them: their verdicts count them.
    public var reposts: [String: [StoredReplay]] = [:]
    public init() {}
}

/// A row's decoded payload as the store keeps it (nil when it has none).
public struct OpenedPayload: Sendable, Equatable {
    public var notificationUUID: String
    public var payload: Data?
}

public struct PendingReplay: Sendable, Equatable {
    public var notificationUUID: String
    public var armedAtTick: Int
}

extension ConsoleState {
    public var live: LiveModel {
        get { models[LiveModel.self] }
        set { models[LiveModel.self] = newValue }
    }
}

/// What the Live pane's reads and replays answer (and the "arrived here" marks it reads for the
/// Notifications pane and the customer's summary).
enum LiveAnswer: PaneAnswer {
    /// Rows that arrived after the pane's cursor, and their re-posts.
    case arrived([StoredNotification], [StoredReplay])
    /// The opened row's payload; nil when the store could not be read.
    case opened(OpenedPayload?)
    /// The store could not be read.
    case pollFailed(DisplayError)
    case replayed(LivePane.Replayed)
    case arrivals(ReceivedHere.Arrivals)
    case customerCount(ReceivedHere.CustomerCount)
}

/// Notifications as they arrive at a receiver (this console's own, or `iapdesk listen` writing
/// the same store): Enter shows the decoded payload, `r` replays one to the forward URL.
enum LivePane {
    /// Ticks between polls of the store (a tick is 120 ms), and while it cannot be read.
    static let pollEvery = 8
    static let retryEvery = 25
    /// The rows kept in memory; older ones stay in the store (`iapdesk received`).
    static let keep = 2_000
    /// Ticks the second `r` of a replay may take.
    static let confirmWithin = 40

    static let description = PaneDescription(
        pane: .live, title: "Live", rowNoun: "arrivals", showsCustomer: false,
        rowCount: { rows($0).count },
        selectedID: { PaneRows.selected(rows($0), $0, .live)?.notificationUUID },
        rowIDs: { rows($0).map { $0.notificationUUID } },
        detail: { state in
            PaneRows.selected(rows(state), state, .live).map { row in
                tree(row, replay: state.live.replays[row.notificationUUID],
                     payload: state.live.opened.flatMap { $0.notificationUUID == row.notificationUUID ? .read($0.payload) : nil } ?? .reading)
            }
        },
        table: { state, inner in PaneLayout.belowHeading(inner) },
        render: LiveView.render,
        refresh: replay, refreshTitle: "Replay",
        answers: .of(LiveAnswer.self, receive),
        tick: tick,
        intercept: { state, key, command in
            // A replay armed by r is sent only by y or Enter soon after; any other key drops it (r
            // again too: text typed into the wrong window, such as "err", must not send one).
            guard let pending = state.live.pendingReplay else { return nil }
            state.live.pendingReplay = nil
            if key == .character("y") || key == .enter { return send(&state, pending) }
            return key == .escape || command?.id == .appRefresh ? [] : nil
        }
    )

    /// The row's verdict as `reconcile` would give it from the store's side: its forward, re-posts and deliveries.
    static func verdict(_ row: StoredNotification, _ state: ConsoleState) -> ReconcileVerdict {
        var replays = state.live.reposts[row.notificationUUID.lowercased()] ?? []
        // This console's own replay, before the next read of the store brings its record.
        if let own = state.live.replays[row.notificationUUID], own.succeeded {
            replays.append(StoredReplay(id: 0, attempt: ReplayAttempt(
                notificationUUID: row.notificationUUID, targetURL: "", source: .store, command: "console", sentAt: Date(), result: own.result,
                status: own.status, milliseconds: own.milliseconds)))
        }
        return Reconciler.verdict(arrival: row, replays: replays)
    }

    static func rows(_ state: ConsoleState) -> [StoredNotification] {
        PaneRows.filtered(state.live.rows, state.filters[.live]) { row in
            // The VERDICT column's words too ("duplicate", "fwd failed"), as the row shows them.
            let shown = row.verdict == "verified" ? verdict(row, state) : nil
            return [row.notificationType ?? "", row.subtype ?? "", row.verdict, shown?.shortTitle ?? "", shown?.tinyTitle ?? "",
                    row.notificationUUID, row.transactionId ?? "", row.originalTransactionId ?? "", row.productId ?? ""].joined(separator: " ")
        }
    }

    // MARK: Polling the store

    static func tick(_ state: inout ConsoleState) -> [ConsoleEffect] {
        guard state.live.source != nil else { return [] }
        var effects = ReceivedHere.tick(&state) + readOpenedPayload(&state)
        let wait = state.live.problem == nil ? pollEvery : retryEvery
        guard state.live.poll == nil, state.tick - state.live.lastPollTick >= wait else { return effects }
        let request = ConsoleReducer.startInBackground(&state, owner: .live)
        state.live.poll = request
        state.live.lastPollTick = state.tick
        let cursor = state.live.cursor
        // A re-post from another shell (recover, replay, watch) adds no delivery here: the rows whose
        // forward failed are asked about at every read, so that they turn "recovered" when one lands.
        let failing = Set(state.live.rows.filter { Reconciler.verdict(arrival: $0, replays: []) == .forwardFailed }.map(\.notificationUUID))
        effects.append(.task(PaneTask(request: request, name: "read arrivals after \(cursor.map(String.init) ?? "none")") { services, _ in
            guard let received = services.received else { return LiveAnswer.pollFailed(DisplayError(summary: "No notification store is open.")) }
            do {
                let store = try await received.store()
                let rows = try await store.notifications(NotificationFilter(afterDelivery: cursor, limit: keep, settled: true, bodies: false))
                    .map(withoutBodies)
                return LiveAnswer.arrived(rows, try await store.replays(uuids: Set(rows.map(\.notificationUUID)).union(failing)))
            } catch let error as NotificationStoreError {
                return LiveAnswer.pollFailed(problem(error, received.source))
            } catch {
                return LiveAnswer.pollFailed(DisplayError(summary: "The notification store cannot be read: \(error)."))
            }
        }))
        return effects
    }

    static func withoutBodies(_ row: StoredNotification) -> StoredNotification {
        var row = row
        row.rawBody = Data()
        row.decodedPayload = nil
        return row
    }

    /// Reads the payload of the row whose detail is open, once per row opened.
    static func readOpenedPayload(_ state: inout ConsoleState) -> [ConsoleEffect] {
        guard state.pane == .live, state.list(.live).detailOpen, state.live.payloadRead == nil,
              let uuid = PaneRows.selected(rows(state), state, .live)?.notificationUUID, state.live.opened?.notificationUUID != uuid
        else { return [] }
        let request = ConsoleReducer.startInBackground(&state, owner: .live)
        state.live.payloadRead = request
        return [.task(PaneTask(request: request, name: "read the payload of \(uuid)") { services, _ in
            guard let store = try? await services.received?.store(), let found = try? await store.notifications(uuids: [uuid]) else {
                return LiveAnswer.opened(nil)
            }
            return LiveAnswer.opened(OpenedPayload(notificationUUID: uuid, payload: found.first?.decodedPayload))
        })]
    }

    static func problem(_ error: NotificationStoreError, _ source: LiveSource) -> DisplayError {
        switch error {
        case .missing:
            return DisplayError(
                summary: "Nothing received yet: no store at \(source.storePath).",
                hint: "Run iapdesk listen in another terminal, or start the console with --listen 127.0.0.1:8080.")
        default:
            return DisplayError(summary: error.description)
        }
    }

    static func receive(_ state: inout ConsoleState, request: Int, _ answer: LiveAnswer) -> [ConsoleEffect] {
        switch answer {
        case .arrived(let rows, let reposts):
            guard request == state.live.poll else { return [] }
            state.live.poll = nil
            for (uuid, replays) in Dictionary(grouping: reposts, by: { $0.attempt.notificationUUID.lowercased() }) { state.live.reposts[uuid] = replays }
            merge(&state, rows)
        case .opened(let opened):
            guard request == state.live.payloadRead else { return [] }
            state.live.payloadRead = nil
            // A store that cannot be read now is asked again at the next tick.
            if let opened { state.live.opened = opened }
        case .pollFailed(let error):
            guard request == state.live.poll else { return [] }
            state.live.poll = nil
            state.live.problem = error
        case .replayed(let replayed):
            guard state.inFlight[request] != nil else { return [] }
            state.inFlight[request] = nil
            state.live.replays[replayed.notificationUUID] = replayed.outcome
            let target = RedactedURL.text(replayed.url)
            let timing = "\(replayed.outcome.result) in \(Int(replayed.outcome.milliseconds.rounded())) ms"
            if replayed.outcome.succeeded {
                ConsoleReducer.toast(&state, "Replayed \(replayed.notificationUUID) to \(target): \(timing).")
            } else {
                ConsoleReducer.fail(&state, DisplayError(
                    summary: "The replay of \(replayed.notificationUUID) to \(target) was not taken: \(timing).",
                    hint: "The body is the one that arrived, signedDate included: the endpoint must accept an old signedDate."))
            }
        case .arrivals(let arrivals):
            ReceivedHere.receive(&state, request: request, arrivals)
        case .customerCount(let counted):
            ReceivedHere.receive(&state, request: request, counted)
        }
        return []
    }

    /// New rows go on top; a row delivered again moves up with its new count. The selection stays
    /// on the row it was on, unless it was on the newest, which it follows.
    static func merge(_ state: inout ConsoleState, _ arrived: [StoredNotification]) {
        let first = !state.live.loaded
        state.live.loaded = true
        state.live.problem = nil
        guard !arrived.isEmpty else { return }
        var model = state.live
        let ids = Set(arrived.map(\.id))
        let selected = PaneRows.selected(rows(state), state, .live)?.id
        let new = arrived.filter { row in !model.rows.contains { $0.id == row.id } }
        model.rows.removeAll { ids.contains($0.id) }
        model.rows.insert(contentsOf: arrived.sorted { $0.lastDeliveryId > $1.lastDeliveryId }, at: 0)
        if model.rows.count > keep { model.rows.removeLast(model.rows.count - keep) }
        model.cursor = max(model.cursor ?? 0, arrived.map(\.lastDeliveryId).max() ?? 0)
        state.live = model
        state.models[ReceivedHereModel.self].stale = true
        var list = state.list(.live)
        if list.selected > 0, let selected, let index = rows(state).firstIndex(where: { $0.id == selected }) {
            list.selected = index
        }
        state.lists[.live] = list
        if !first && state.pane != .live, let newest = new.max(by: { $0.lastDeliveryId < $1.lastDeliveryId }) {
            let what = new.count == 1 ? "\(newest.notificationType ?? "A notification")\(newest.subtype.map { "/\($0)" } ?? "") arrived" : "\(new.count) notifications arrived"
            ConsoleReducer.toast(&state, "\(what) (pane \(Panes.index(of: .live) + 1), Live).")
        }
    }

    // MARK: Replay

    struct Replayed: Sendable {
        var notificationUUID: String
        var url: URL
        var outcome: ReplayOutcome
    }

    static func replay(_ state: inout ConsoleState) -> [ConsoleEffect] {
        guard let row = PaneRows.selected(rows(state), state, .live) else {
            ConsoleReducer.toast(&state, "Nothing to replay: no notification is selected.", isError: true)
            return []
        }
        guard state.live.source?.forwardURL != nil else {
            ConsoleReducer.fail(&state, DisplayError(
                summary: "r replays to the forward URL, and none is set.",
                hint: "Start the console with --listen ADDRESS --forward-to URL, or use iapdesk replay UUID --to URL."))
            return []
        }
        guard !state.readOnly else {
            ConsoleReducer.fail(&state, DisplayError(summary: "This profile is read-only: nothing is replayed."))
            return []
        }
        state.live.pendingReplay = PendingReplay(notificationUUID: row.notificationUUID, armedAtTick: state.tick)
        return []
    }

    /// The armed replay, if it is still the selected row's and was armed just now.
    static func send(_ state: inout ConsoleState, _ pending: PendingReplay) -> [ConsoleEffect] {
        guard state.tick - pending.armedAtTick <= confirmWithin, let url = state.live.source?.forwardURL,
              let row = PaneRows.selected(rows(state), state, .live), row.notificationUUID == pending.notificationUUID
        else {
            ConsoleReducer.toast(&state, "Not replayed: press r again, then y.", isError: true)
            return []
        }
        let request = ConsoleReducer.start(&state, "Replay \(row.notificationType ?? "notification") to \(url.host ?? url.absoluteString)", owner: .live)
        return [.task(PaneTask(request: request, name: "replay \(row.notificationUUID)") { services, _ in
            guard let received = services.received else {
                return LiveAnswer.replayed(Replayed(notificationUUID: row.notificationUUID, url: url, outcome: ReplayOutcome(result: "no store is open", status: nil, milliseconds: 0)))
            }
            // The rows are kept without bodies: the one sent is read again, as it arrived.
            let stored = try? await received.store().notifications(uuids: [row.notificationUUID]).first
            guard let stored else {
                return LiveAnswer.replayed(Replayed(notificationUUID: row.notificationUUID, url: url, outcome: ReplayOutcome(result: "not in the store", status: nil, milliseconds: 0)))
            }
            return LiveAnswer.replayed(Replayed(notificationUUID: row.notificationUUID, url: url, outcome: await received.replay(stored, to: url)))
        })]
    }

    // MARK: Detail

    /// The opened row's payload: being read, or read (nil when the row has none).
    enum PayloadRead {
        case reading
        case read(Data?)
    }

    static func tree(_ row: StoredNotification, replay: ReplayOutcome?, payload: PayloadRead) -> TreeNode {
        var children: [TreeNode] = [
            TreeNode(label: "notificationUUID", value: row.notificationUUID, path: "uuid"),
            TreeNode(label: "Verification", value: row.verdict, children: row.verdictDetail.map { [TreeNode(label: "Checks", value: $0, path: "verdict/detail")] } ?? [], path: "verdict"),
            TreeNode(label: "Received", value: receivedText(row), path: "received"),
            TreeNode(label: "App", value: "\(row.bundleId ?? "-") in \(row.environment ?? "-")", path: "app"),
            TreeNode(label: "Answered", value: "HTTP \(row.answeredStatus) after \(milliseconds(row.elapsedMilliseconds))", path: "answered"),
        ]
        if let forward = row.forwardResult { children.append(TreeNode(label: "Forward", value: forward, path: "forward")) }
        if let replay { children.append(TreeNode(label: "Replay", value: "\(replay.result) in \(milliseconds(replay.milliseconds))", path: "replay")) }
        if let signed = row.signedDate {
            children.append(TreeNode(label: "Signed", value: "\(DisplayFormat.date(signed, seconds: true)) (signedDate; a replay keeps it)", path: "signed"))
        }
        for (label, value) in [("Environment", row.environment), ("Transaction", row.transactionId), ("Original transaction", row.originalTransactionId), ("Product", row.productId)] {
            if let value { children.append(TreeNode(label: label, value: value, path: label.lowercased())) }
        }
        switch payload {
        case .reading:
            children.append(TreeNode(label: "Payload", value: "reading the store…", path: "payload"))
        case .read(let data):
            if let data, let json = try? JSONValue.parse(data) {
                children.append(TreeNode(label: "Payload", children: DetailContent.jsonChildren(json, path: "payload"), path: "payload"))
            }
        }
        let title = [row.notificationType, row.subtype].compactMap { $0 }.joined(separator: " / ")
        return TreeNode(label: title.isEmpty ? "Notification" : title, children: children, path: "")
    }

    static func receivedText(_ row: StoredNotification) -> String {
        var text = DisplayFormat.date(row.firstReceivedAt, seconds: true)
        if row.deliveryCount > 1 { text += ", \(row.deliveryCount) deliveries (last \(DisplayFormat.date(row.lastReceivedAt, seconds: true)))" }
        if let remote = row.remoteAddress { text += " from \(remote)" }
        return text
    }

    static func milliseconds(_ value: Double) -> String {
        value < 10 ? String(format: "%.1f ms", value) : "\(Int(value.rounded())) ms"
    }
}
