import DeskStore
import Foundation
import NotificationReconcile

/// The join `reconcile` prints and `watch` turns into incidents: Apple's history for a window with
/// what the store holds of it, its forwards settled, and the re-posts made since.
enum WindowReconcile {
    static func report(history: [NotificationHistoryEntry], window: Range<Date>, store: any NotificationStore) async throws -> ReconcileReport {
        let uuids = Set(history.compactMap(\.notificationUUID))
        let stored = try await ForwardHistory.settled(store.notifications(uuids: uuids) + store.notifications(signedIn: window), in: store)
        return Reconciler.reconcile(history: history, stored: stored, replays: try await store.replays(uuids: uuids), window: window)
    }
}
