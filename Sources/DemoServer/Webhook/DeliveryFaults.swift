import AppStoreServerAPI
import Foundation
import Synchronization

/// What goes wrong on the way to the webhook, so a walkthrough shows gaps: the demo makes some of
/// its new notifications fail as real endpoints do. TEST notifications always go through.
public enum DeliveryFault: String, Sendable, CaseIterable {
    /// Delivered and answered 200 at once.
    case none
    /// The endpoint answers 500: nothing is delivered, Apple logs UNSUCCESSFUL_HTTP_RESPONSE_CODE.
    case serverError
    /// Delivered, but the answer came too late: Apple logs TIMED_OUT although the body arrived.
    case timedOutAfterArrival
    /// Delivered after two seconds, then answered 200.
    case slowSuccess

    /// The walkthrough's cycle: the first delivery succeeds, then one of each kind of trouble.
    public static let walkthrough: [DeliveryFault] = [.none, .slowSuccess, .serverError, .none, .timedOutAfterArrival]
}

/// The faults still to come, one per delivery, in a cycle.
final class DeliveryFaultPlan: Sendable {
    private let state = Mutex<(pattern: [DeliveryFault], next: Int)>(([], 0))

    func set(_ pattern: [DeliveryFault]) { state.withLock { $0 = (pattern, 0) } }

    func next() -> DeliveryFault {
        state.withLock { state in
            guard !state.pattern.isEmpty else { return .none }
            defer { state.next = (state.next + 1) % state.pattern.count }
            return state.pattern[state.next]
        }
    }
}

/// A notification of the history as Apple delivered it: what was sent and every attempt.
public struct DemoHistoryEntry: Sendable {
    public var notificationUUID: String
    /// The body Apple POSTs: {"signedPayload": ...}.
    public var body: Data
    public var attempts: [SendAttemptItem]
}
