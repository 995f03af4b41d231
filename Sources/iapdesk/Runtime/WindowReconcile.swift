import DeskStore
import Foundation
import NotificationReconcile

/// The join `reconcile` prints and `watch` turns into incidents: Apple's history for a window with
/// what the store holds of it, its forwards settled, and the re-posts made since.
enum WindowReconcile {
    static func report(history: [NotificationHistoryEntry], window: Range<Date>, store: any NotificationStore) async throws -> ReconcileReport {
        let uuids = Set(history.compactMap(\.notificationUUID))
        // The rows Apple lists come last, with their bodies: the join keeps the last row of a UUID.
        var rows = try await store.notifications(signedIn: window, bodies: false)
        rows.append(contentsOf: try await store.notifications(uuids: uuids))
        let stored = try await ForwardHistory.settled(consume rows, in: store)
        return Reconciler.reconcile(history: history, stored: stored, replays: try await store.replays(uuids: uuids), window: window)
    }
}
