import AppStoreServerAPI
import DemoServer
import DeskStore
import Foundation
import WebhookReceiver

/// The demo's receiver starts with what would have arrived of the demo's notification history,
/// so the Notifications pane shows each kind of gap from the first minute: delivered and stored;
/// Apple logged a time-out although the body arrived (stored, then delivered again); delivered
/// per Apple but missing here; never delivered and missing; and a TEST notification of two days
/// ago, which is not in Apple's history (arrived but unknown to Apple).
enum DemoArrivals {
    /// One delivered notification in this many is missing here, as if another URL had taken it.
    static let missingEvery = 9

    /// Stores the history's arrivals, each at the time of the attempt that brought it; returns how many.
    @discardableResult
    static func seed(_ demo: DemoServer, store: any NotificationStore, verifier: SignedDataVerifier) async throws -> Int {
        let history = demo.notificationHistory(demo.environment)
        let test = demo.testNotificationBody(signedDate: Date().addingTimeInterval(-2 * 86_400))
        var arrivals: [(date: Date, body: Data, milliseconds: Double)] = [(test.signedDate.addingTimeInterval(1), test.body, 9)]
        for (index, entry) in history.enumerated() {
            arrivals += self.arrivals(entry, index: index).map { ($0.date, entry.body, $0.milliseconds) }
        }
        // Stored in the order they arrived, so the store's delivery order (the Live pane's) is the clock's.
        var stored = 0
        for arrival in arrivals.sorted(by: { $0.date < $1.date }) {
            guard case .success(var delivery) = await NotificationIntake.delivery(
                from: arrival.body, verifier: verifier, receivedAt: arrival.date, remoteAddress: "17.0.0.1 (demo history)") else { continue }
            delivery.elapsedMilliseconds = arrival.milliseconds
            _ = try await store.record(delivery)
            stored += 1
        }
        return stored
    }

    /// The attempts whose body reached the receiver, with how long its answer took.
    static func arrivals(_ entry: DemoHistoryEntry, index: Int) -> [(date: Date, milliseconds: Double)] {
        guard entry.attempts.contains(where: { $0.sendAttemptResult == .success }), index % missingEvery != missingEvery / 2 else { return [] }
        return entry.attempts.compactMap { attempt in
            guard let date = attempt.attemptDate else { return nil }
            switch attempt.sendAttemptResult {
            case .success?: return (date.addingTimeInterval(0.2), 14)
            // Stored, but answered after Apple stopped waiting.
            case .timedOut?: return (date.addingTimeInterval(0.2), 31_250)
            default: return nil
            }
        }
    }
}
