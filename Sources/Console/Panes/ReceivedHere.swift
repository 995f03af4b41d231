import DeskCore
import DeskStore
import Foundation
import NotificationReconcile

/// What of Apple's notification history, and of the customer's notifications, arrived at the
/// receiver: looked up in the store whenever those rows or the store's contents change.
public struct ReceivedHereModel: PaneModel {
    /// Arrivals of the Notifications pane's rows, by notificationUUID; nil until looked up.
    public var arrivals: [String: StoredNotification]?
    /// Each row's verdict as `reconcile` gives it (its re-posts counted), by lowercased notificationUUID.
    public var verdicts: [String: ReconcileVerdict] = [:]
    /// The rows `arrivals` was looked up for (count, first and last UUID).
    var lookedUp: RowsKey?
    var lookup: Int?
    /// Notifications received for the customer on screen; nil until counted.
    public var customerCount: Int?
    var countedFor: CustomerKey?
    var count: Int?
    /// Set when new arrivals may change both answers.
    var stale = false
    public init() {}
}

struct RowsKey: Equatable, Sendable {
    var count: Int
    var first: String?
    var last: String?
}

/// What the customer's count depends on: which lookup, and how much of it has arrived.
struct CustomerKey: Equatable, Sendable {
    var lookup: Int
    var subscriptions: Int
    var history: Int
    var transaction: String?
}

extension ConsoleState {
    public var receivedHere: ReceivedHereModel {
        get { models[ReceivedHereModel.self] }
        set { models[ReceivedHereModel.self] = newValue }
    }
}

enum ReceivedHere {
    struct Arrivals: Sendable {
        var key: RowsKey
        var found: [String: StoredNotification]?
        var verdicts: [String: ReconcileVerdict] = [:]
    }

    struct CustomerCount: Sendable {
        var key: CustomerKey
        var count: Int?
    }

    static func tick(_ state: inout ConsoleState) -> [ConsoleEffect] {
        var effects: [ConsoleEffect] = []
        var model = state.receivedHere
        if model.stale, model.lookup == nil, model.count == nil {
            model.lookedUp = nil
            model.countedFor = nil
            model.stale = false
        }
        if model.lookup == nil, let rows = state.notificationsPane.value {
            // Compared at every tick, so it is made without walking the rows.
            let key = RowsKey(count: rows.count, first: rows.first?.payload?.notificationUUID, last: rows.last?.payload?.notificationUUID)
            if key != model.lookedUp {
                let uuids = rows.compactMap { $0.payload?.notificationUUID }
                let entries = rows.map(Self.entry)
                let request = ConsoleReducer.startInBackground(&state, owner: .live)
                model.lookup = request
                model.lookedUp = key
                effects.append(.task(PaneTask(request: request, name: "look up \(uuids.count) arrivals") { services, _ in
                    guard let store = try? await services.received?.store(),
                          let found = try? await ForwardHistory.settled(store.notifications(uuids: Set(uuids)), in: store),
                          let replays = try? await store.replays(uuids: Set(uuids))
                    else { return LiveAnswer.arrivals(Arrivals(key: key, found: nil)) }
                    // The rows only: an empty window adds none of the store's own.
                    let report = Reconciler.reconcile(history: entries, stored: found, replays: replays, window: Date.distantPast..<Date.distantPast)
                    // Apple's history and the store may spell a UUID in different cases.
                    return LiveAnswer.arrivals(Arrivals(
                        key: key, found: Dictionary(found.map { ($0.notificationUUID.lowercased(), $0) }, uniquingKeysWith: { first, _ in first }),
                        verdicts: Dictionary(report.rows.map { ($0.notificationUUID.lowercased(), $0.verdict) }, uniquingKeysWith: { first, _ in first })))
                }))
            }
        }
        if model.count == nil, let customer = state.customer {
            let key = CustomerKey(
                lookup: customer.lookup, subscriptions: customer.subscriptions.value?.count ?? -1, history: customer.history.value?.count ?? -1,
                transaction: customer.transaction.value?.payload?.originalTransactionId)
            if key != model.countedFor {
                let ids = customer.originalTransactionIds
                model.countedFor = key
                model.customerCount = nil
                if !ids.isEmpty {
                    let request = ConsoleReducer.startInBackground(&state, owner: .live)
                    model.count = request
                    effects.append(.task(PaneTask(request: request, name: "count arrivals for \(ids.count) purchases") { services, _ in
                        guard let store = try? await services.received?.store() else { return LiveAnswer.customerCount(CustomerCount(key: key, count: nil)) }
                        return LiveAnswer.customerCount(CustomerCount(key: key, count: try? await store.count(concerning: Set(ids))))
                    }))
                }
            }
        }
        state.receivedHere = model
        return effects
    }

    static func receive(_ state: inout ConsoleState, request: Int, _ arrivals: Arrivals) {
        guard request == state.receivedHere.lookup else { return }
        state.receivedHere.lookup = nil
        if arrivals.key == state.receivedHere.lookedUp {
            state.receivedHere.arrivals = arrivals.found
            state.receivedHere.verdicts = arrivals.verdicts
        }
    }

    static func receive(_ state: inout ConsoleState, request: Int, _ counted: CustomerCount) {
        guard request == state.receivedHere.count else { return }
        state.receivedHere.count = nil
        if counted.key == state.receivedHere.countedFor { state.receivedHere.customerCount = counted.count }
    }

    /// A row of Apple's history as the join reads it.
    static func entry(_ row: NotificationRow) -> NotificationHistoryEntry {
        let payload = row.payload
        return NotificationHistoryEntry(
            notificationUUID: payload?.notificationUUID, notificationType: payload?.notificationType?.rawValue, subtype: payload?.subtype?.rawValue,
            signedDate: payload?.signedDate, attempts: row.attempts, signedPayload: row.signedPayload,
            verification: row.decoded?.isFullyVerified == true ? .verified : .notChecked("read by the console"))
    }
}
